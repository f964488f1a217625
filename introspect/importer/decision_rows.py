"""agent-ways decision-log records as DecisionRecord rows (with their candidates and outcomes): the
decisions store (importer/stores.py), for `decisions.jsonl` and its `decisions-YYYY-MM-DD.jsonl.gz`.

A line is read as upstream's reader reads it (rules/decision_records.py, serde's rules), not as the
generic parser reads JSON: a line upstream skips (malformed, no or an unknown `kind`, a field of the
wrong type) is quarantined with upstream's reason, so the quarantine counts by reason what
upstream's `skipped_lines` counts in one; a blank line is inert. Records are de-duplicated by the
sha256 of their line, as events are: a trim moves the oldest turns from the live file into an
archive (and rewrites the live file, a new generation), and the copy lowest in stream order
(archives oldest day first, then live) places the record.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

from introspect.importer import parser, stores, tailer
from introspect.models import DecisionCandidate, DecisionOutcome, DecisionRecord, SourceFile
from introspect.rules import timestamps
from introspect.rules.decision_records import Pull, Rejected, Scan, parse_line
from lib import bulk, column_fit

I64_MAX = 2**63 - 1  # upstream's u64 fields past this do not fit a signed 64-bit column
NUL = "\x00"
REPLACEMENT = (
    "\ufffd"  # PostgreSQL refuses NUL in text; both backends hold U+FFFD (importer-reliability.md §7.8)
)

RECORD_NAMES = tuple(f.attname for f in DecisionRecord._meta.concrete_fields if not f.primary_key)
record_row = operator.itemgetter(*RECORD_NAMES)
CANDIDATE_NAMES = ("record_id", "position", "way", "cosine", "share", "margin")
OUTCOME_NAMES = tuple(
    f.attname for f in DecisionOutcome._meta.concrete_fields if f.attname not in ("id", "record_id")
)
outcome_fields = OUTCOME_NAMES[1:]  # after `position`: the Outcome dataclass's own fields
KNOWN = ("pk", "sha256", "source_id", "order_rank", "order_generation", "order_offset", "order_index")


def parse_decision_line(data: bytes) -> parser.Parsed:
    """One line as upstream reads it: a record, blank (inert), or why upstream skips it (quarantined)."""
    parsed = parse_line(data)
    if parsed is None:
        return parser.Parsed(inert="blank")
    if isinstance(parsed, Rejected):
        return parser.Parsed(quarantine=(parsed.reason, parsed.detail))
    # Record.obj holds the typed record here, not a dict: only this store reads it.
    return parser.Parsed(records=[parser.Record(obj=parsed, data=data)])  # type: ignore[arg-type]


@dataclass
class Built:
    """What one batch adds: the new records, and each one's candidates and outcomes by its sha256."""

    records: bulk.Rows
    candidates: dict[str, list[tuple]] = field(default_factory=dict)
    outcomes: dict[str, list[tuple]] = field(default_factory=dict)


def store_decisions(row: SourceFile, lines: stores.NewLines, sessions: set[str]) -> Built:
    """Build the records not stored yet; a line stored before from a place later in stream order moves there."""
    candidates, shas, outcomes = lines.candidates, lines.shas, lines.outcomes
    existing = {
        known.sha256: known
        for known in bulk.chunked_in(DecisionRecord.objects.only(*KNOWN), "sha256", set(shas))
    }
    fresh: dict[str, dict] = {}
    built = Built(bulk.Rows(DecisionRecord, RECORD_NAMES, []))
    keys: set[str] = set()
    for (line, record), sha in zip(candidates, shas, strict=True):
        if sha in fresh:
            continue  # the same bytes twice in one batch: one record (upstream would read it twice)
        known = existing.get(sha)
        if known is not None:
            position = (row.rank, row.generation, line.offset, line.index)
            if position < (known.order_rank, known.order_generation, known.order_offset, known.order_index):
                DecisionRecord.objects.filter(pk=known.pk).update(
                    order_rank=row.rank,
                    order_generation=row.generation,
                    order_offset=line.offset,
                    order_index=line.index,
                )
            continue
        values, children = record_values(row, line, record, sha)
        fresh[sha] = values
        built.candidates[sha], built.outcomes[sha] = children
        outcomes[(line.offset, line.index)] = "imported"
        if values["session_key"]:
            keys.add(values["session_key"])
    ids = stores.ensure_sessions(keys)
    sessions |= keys
    for values in fresh.values():
        values["session_id"] = ids.get(values["session_key"])
    built.records.values.extend(record_row(values) for values in fresh.values())
    return built


def write_decisions(row: SourceFile, built: Built) -> None:
    """The records, then their candidates and outcomes under the records' new primary keys."""
    bulk.insert_rows(built.records)
    wanted = {sha for sha in built.candidates if built.candidates[sha] or built.outcomes[sha]}
    if not wanted:
        return
    ids = dict(bulk.chunked_in(DecisionRecord.objects.values_list("sha256", "pk"), "sha256", wanted))
    bulk.insert_rows(
        bulk.Rows(
            DecisionCandidate,
            CANDIDATE_NAMES,
            [(ids[sha], *values) for sha in wanted for values in built.candidates[sha]],
        )
    )
    bulk.insert_rows(
        bulk.Rows(
            DecisionOutcome,
            ("record_id", *OUTCOME_NAMES),
            [(ids[sha], *values) for sha in wanted for values in built.outcomes[sha]],
        )
    )


def clean(value, name: str, flags: list[str]):
    """A value as its column can hold it: NUL replaced, an integer past i64 left NULL (flagged)."""
    if isinstance(value, str) and NUL in value:
        flags.append(f"nul_replaced:{name}")
        return value.replace(NUL, REPLACEMENT)
    if type(value) is int and value > I64_MAX:
        flags.append(f"overflow:{name}")
        return None
    return value


def record_values(
    row: SourceFile, line: tailer.Line, record: parser.Record, sha: str
) -> tuple[dict, tuple[list[tuple], list[tuple]]]:
    """The new record's column values (attname → value), and its candidate and outcome rows."""
    typed: Scan | Pull = record.obj  # type: ignore[assignment]
    flags: list[str] = [f"nul_prefix={line.nul_prefix}"] if line.nul_prefix else []
    values = {
        "kind": "scan" if isinstance(typed, Scan) else "pull",
        "ts_raw": typed.ts,
        "session_key": typed.session,
        "agent": typed.agent,
        "epoch": typed.epoch,
        "token_position": typed.token_position,
        "scan_id": typed.scan_id,
        "turn_start": False,
        "surface": "",
        "hook_event": "",
        "scope": "",
        "project": "",
        "lane": None,
        "basis": None,
        "sidecar": False,
        "judge_status": None,
        "judge_reason": None,
        "judge_engine": None,
        "judge_model": None,
        "judge_ms": None,
        "judge_capped": [],
        "way": "",
        "window": "",
        "out_of_band": False,
        "stamped": False,
        "reason": None,
    }
    candidate_rows: list[tuple] = []
    outcome_rows: list[tuple] = []
    if isinstance(typed, Scan):
        values.update(
            turn_start=typed.turn_start,
            surface=typed.surface,
            hook_event=typed.hook_event,
            scope=typed.scope,
            project=typed.project,
            lane=typed.lane,
            basis=typed.basis,
            sidecar=typed.sidecar,
        )
        judge = typed.judge
        if judge is not None:
            values.update(
                judge_status=judge.status,
                judge_reason=judge.reason,
                judge_engine=judge.engine,
                judge_model=judge.model,
                judge_ms=judge.judge_ms,
                judge_capped=[clean(way, "judge_capped", flags) for way in judge.capped],
            )
        for position, candidate in enumerate(typed.candidates):
            way = clean(candidate.way, "candidates.way", flags)
            if len(way) > column_fit.limits(DecisionCandidate)["way"][0]:
                way = ""  # the raw line keeps it
                flags.append("overlong:candidates.way")
            candidate_rows.append((position, way, candidate.cosine, candidate.share, candidate.margin))
        for position, outcome in enumerate(typed.outcomes):
            fields = {
                name: clean(getattr(outcome, name), f"outcomes.{name}", flags) for name in outcome_fields
            }
            flags += [
                f"{flag.replace(':', ':outcomes.', 1)}" for flag in column_fit.fit(DecisionOutcome, fields)
            ]
            outcome_rows.append((position, *(fields[name] for name in outcome_fields)))
    else:
        values.update(
            way=typed.way,
            window=typed.window,
            out_of_band=typed.out_of_band,
            stamped=typed.stamped,
            reason=typed.reason,
        )
    for name, value in values.items():
        values[name] = clean(value, name, flags)
    flags += column_fit.fit(DecisionRecord, values)
    ts = timestamps.utc_second(typed.ts)
    if ts is not None and not timestamps.in_range(ts):
        flags.append(timestamps.OUT_OF_RANGE)
    if "overlong:ts_raw" in flags:
        ts = None
    values.update(placed(row, line, record, sha, flags), order_rank=row.rank, ts=ts, session_id=None)
    return values, (candidate_rows, outcome_rows)


def placed(row: SourceFile, line: tailer.Line, record: parser.Record, sha: str, flags: list[str]) -> dict:
    """A line's identity, where it was read, the line itself and its flags, as its row's columns."""
    return {
        "sha256": sha,
        "source_id": row.pk,
        "order_generation": row.generation,
        "order_offset": line.offset,
        "order_index": line.index,
        "raw": record.data.decode("utf-8", "replace"),
        "flags": flags,
    }
