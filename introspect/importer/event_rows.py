"""agent-ways events-log records as WaysEvent rows: the events store (importer/stores.py).

Events are de-duplicated by the sha256 of their line: the same bytes in another file (an archive,
a legacy log, a rewritten live file) are one event, placed at its earliest position in event order.
"""

from __future__ import annotations

import operator
from itertools import batched

from introspect.importer import parser, schema, secret_rows, stores, tailer
from introspect.models import Session, SourceFile, WaysEvent
from introspect.rules import timestamps
from lib import bulk, column_fit


def source_position(event: WaysEvent) -> tuple[int, int, int, int]:
    """Where the event sits in its best source: rank, generation, offset, index (its place in event order)."""
    return (event.order_rank, event.order_generation, event.order_offset, event.order_index)


EVENT_NAMES = tuple(f.attname for f in WaysEvent._meta.concrete_fields if not f.primary_key)
event_row = operator.itemgetter(*EVENT_NAMES)  # values dict → the row tuple, in EVENT_NAMES order
# What store_events needs of an event already stored (never its raw line).
EVENT_KNOWN = (
    "pk",
    "sha256",
    "source_id",
    "occurrences",
    "order_rank",
    "order_generation",
    "order_offset",
    "order_index",
    "session_key",
)


def store_events(row: SourceFile, lines: stores.NewLines, sessions: set[str]) -> bulk.Rows:
    """Build new events; for lines already known, count a genuine repeat or keep the lowest order."""
    candidates, shas, outcomes = lines.candidates, lines.shas, lines.outcomes
    existing = {
        event.sha256: event
        for event in bulk.chunked_in(WaysEvent.objects.only(*EVENT_KNOWN), "sha256", set(shas))
    }
    fresh: dict[str, dict] = {}  # sha256 → the new event's values, by EVENT_NAMES
    places: dict[str, tuple[int, int, int]] = {}  # sha256 → where the new event was read
    moved: list[WaysEvent] = []
    repeated: list[WaysEvent] = []
    keys: set[str] = set()
    for (line, record), sha in zip(candidates, shas, strict=True):
        new = fresh.get(sha)
        if new is not None:
            # The same bytes twice in this batch of one source: a genuinely repeated line (×N).
            new["occurrences"] += 1
            if new["session_key"]:
                sessions.add(new["session_key"])
            continue
        known = existing.get(sha)
        if known is None:
            values = event_values(row, line, record, sha)
            fresh[sha], places[sha] = values, (row.pk, line.offset, line.index)
            outcomes[(line.offset, line.index)] = "imported"
            if values["session_key"]:
                keys.add(values["session_key"])
            continue
        # The same bytes again: a copy from another source (archive, legacy, rewritten live file)
        # or, inside one source generation, a genuinely repeated line (shown as ×N, never guessed).
        # An event from this very generation was read from it before at another place (a replay of the
        # same place never gets here: committed_lines drops it), so these bytes are in it twice.
        position = (row.rank, row.generation, line.offset, line.index)
        if known.source_id == row.pk:
            known.occurrences += 1
            repeated.append(known)
        elif position < source_position(known):
            known.order_rank, known.order_generation, known.order_offset, known.order_index = position
            moved.append(known)
        if known.session_key:
            sessions.add(known.session_key)
    ids = stores.ensure_sessions(keys)
    sessions |= keys
    changed = list({id(e): e for e in moved + repeated}.values())
    for event in changed:
        WaysEvent.objects.filter(pk=event.pk).update(
            occurrences=event.occurrences,
            order_rank=event.order_rank,
            order_generation=event.order_generation,
            order_offset=event.order_offset,
            order_index=event.order_index,
        )
    # An older event counted again or moved in event order: its session cannot just be extended.
    for keys in batched(sorted({event.session_key for event in changed if event.session_key}), 500):
        Session.objects.filter(sid__in=keys).update(derived_version=0)
    findings: list[tuple] = []
    scan = secret_rows.DocumentScan()
    for sha, values in fresh.items():
        values["session_id"] = ids.get(values["session_key"])
        secret_rows.event_line(values, (*places[sha], values["session_id"]), findings, scan)
    return secret_rows.ScannedRows(
        WaysEvent,
        EVENT_NAMES,
        [event_row(values) for values in fresh.values()],
        findings=secret_rows.finding_rows(findings) if findings else None,
    )


def event_values(row: SourceFile, line: tailer.Line, record: parser.Record, sha: str) -> dict:
    """The new event's column values (attname → value) for one events-log record."""
    fields, flags = schema.event_fields(record.obj)
    all_flags = [*record.flags, *flags]
    if line.nul_prefix:
        all_flags.append(f"nul_prefix={line.nul_prefix}")
    ts_raw = fields.pop("ts")
    ts = timestamps.utc_second(ts_raw)
    if ts_raw is not None and ts is None:
        all_flags.append("ts_invalid")
    elif ts is not None and not timestamps.in_range(ts):
        all_flags.append(timestamps.OUT_OF_RANGE)  # kept and placed by it; never joined by time
    fields["ts_raw"] = ts_raw
    fields["session_key"] = fields.pop("session")
    fields["check_id"] = fields.pop("check")
    overlong = column_fit.fit(WaysEvent, fields)
    if "overlong:ts_raw" in overlong:
        ts = None  # the raw line keeps the stamp; the row is placed as a line without one
    fields.update(
        sha256=sha,
        source_id=row.pk,
        occurrences=1,
        order_rank=row.rank,
        order_generation=row.generation,
        order_offset=line.offset,
        order_index=line.index,
        raw=record.data.decode("utf-8", "replace"),
        flags=[*all_flags, *overlong],
        empty_fields=schema.empty_fields(record.obj),
        ts=ts,
        session_id=None,
    )
    return fields
