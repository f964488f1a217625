"""The imported decision log handed back as upstream's reader reads it: its records in stream order.

Records come in stream order (archives oldest day first, then the live file, each in file order:
the lowest place a line was read at, decision_rows.py), then the distinct lines upstream skips (the
quarantine, by line identity), so the rules count `skipped_lines` as upstream counts them; a line
skipped is no record, so where it stands in the stream changes nothing else.

`stream_records` builds each record from its typed columns (two queries, no JSON parsed) except a
record the importer flagged for a value its column could not hold as written (overlong, past i64, a
NUL replaced): that one is handed back as its raw line, which the rules parse as upstream does.
"""

from __future__ import annotations

from collections.abc import Iterator

from introspect.models import DecisionOutcome, DecisionRecord, Quarantine, SourceFile
from introspect.rules.decision_records import (
    BAD_FIELD,
    MALFORMED,
    MISSING_KIND,
    UNKNOWN_KIND,
    Judge,
    Outcome,
    Pull,
    Scan,
)

# The quarantine reasons of a line upstream reads and skips: its own reasons, and a line too long to
# keep (upstream reads it whole and cannot parse the rest the importer kept either). A damaged gzip
# member is not one: upstream's reader recovers from it without counting a line.
SKIPPED = (MALFORMED, MISSING_KIND, UNKNOWN_KIND, BAD_FIELD, "too_long")
STREAM_ORDER = ("order_rank", "order_generation", "order_offset", "order_index")


def present() -> bool:
    """Whether there is a decision log at all (upstream's `"present": false` when there is none)."""
    return SourceFile.objects.filter(kind__in=SourceFile.DECISION_KINDS).exists()


# The columns a record is rebuilt from (Scan's and Pull's fields), and an outcome's (Outcome's).
SCAN_COLUMNS = (
    "ts_raw",
    "scan_id",
    "session_key",
    "agent",
    "epoch",
    "turn_start",
    "token_position",
    "surface",
    "hook_event",
    "scope",
    "project",
    "lane",
    "basis",
    "sidecar",
)
PULL_COLUMNS = (
    "ts_raw",
    "session_key",
    "agent",
    "epoch",
    "token_position",
    "way",
    "window",
    "out_of_band",
    "stamped",
    "reason",
    "scan_id",
)
JUDGE_COLUMNS = ("judge_status", "judge_reason", "judge_engine", "judge_model", "judge_ms", "judge_capped")
COLUMNS = tuple(dict.fromkeys(("pk", "kind", "flags", "raw", *SCAN_COLUMNS, *PULL_COLUMNS, *JUDGE_COLUMNS)))
OUTCOME_FIELDS = tuple(Outcome.__slots__)  # type: ignore[attr-defined]


def as_written(flags: list[str]) -> bool:
    """Whether the columns hold the values as the line wrote them (a NUL prefix is no value)."""
    return all(flag.startswith("nul_prefix=") for flag in flags)


def stream_records() -> Iterator[Scan | Pull | str | bytes]:
    """Every record the rules read, in stream order, then each distinct skipped line: a record typed
    as the rules would parse it from its line.

    A record's candidates are left out: no reader of the whole stream (the stats, the turns) uses them."""
    at = {name: index for index, name in enumerate(COLUMNS)}
    records = DecisionRecord.objects.order_by(*STREAM_ORDER, "pk").values_list(*COLUMNS)
    outcomes = (
        DecisionOutcome.objects.order_by(
            *(f"record__{name}" for name in STREAM_ORDER), "record_id", "position"
        )
        .values_list("record_id", *OUTCOME_FIELDS)
        .iterator(chunk_size=5000)
    )
    pending = next(outcomes, None)
    for row in records.iterator(chunk_size=2000):
        pk = row[0]
        own: list[Outcome] = []
        while pending is not None and pending[0] == pk:
            own.append(Outcome(*pending[1:]))
            pending = next(outcomes, None)
        if not as_written(row[at["flags"]]):
            yield row[at["raw"]]
        elif row[at["kind"]] == DecisionRecord.Kind.PULL:
            yield Pull(*(row[at[name]] for name in PULL_COLUMNS))
        else:
            judged = row[at["judge_status"]] is not None
            judge = Judge(*(row[at[name]] for name in JUDGE_COLUMNS)) if judged else None
            yield Scan(*(row[at[name]] for name in SCAN_COLUMNS), outcomes=own, judge=judge)
    yield from skipped_lines()


def skipped_lines() -> Iterator[bytes]:
    """Each distinct line upstream skips, as its bytes."""
    skipped = Quarantine.objects.filter(
        source__kind__in=SourceFile.DECISION_KINDS, reason__in=SKIPPED
    ).values_list("sha256", "raw")
    seen: set[str] = set()
    for sha, raw in skipped.iterator(chunk_size=500):
        if sha not in seen:
            seen.add(sha)
            yield bytes(raw)
