"""An events-log line made ready to store, as far as that needs no database: its row's values, the
secrets in its texts. No Django app (importer/prefetch.py runs it in a worker process, as it runs
entry_prep for transcripts).

The writer (event_rows.store_events) adds what only the database knows: whether the event is
stored already, the source it is read from, its session. Both the in-process path and the worker
build a new event's values here (`values_of`), so both store the same rows.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from introspect.importer import entry_prep, parser, schema, tailer
from introspect.rules import secrets, timestamps

# A line's key → the column it is stored in, where the two differ.
COLUMN_OF = {"ts": "ts_raw", "session": "session_key", "check": "check_id"}
# The values the writer sets, once it knows the source the line is read from.
SOURCE_SET = ("source_id", "order_rank", "order_generation", "session_id")


class Layout:
    """WaysEvent's row as plain values (a worker has no app registry): each column's place in a
    row, how each key of a line is read into it, the row of a line not read yet."""

    def __init__(self, names: tuple[str, ...], lengths: dict[str, int], texts: tuple[str, ...]) -> None:
        self.names = names
        self.at = at = {name: i for i, name in enumerate(names)}
        # A line's key → (its column's place in a row, how its value is read, the column's length or 0).
        self.keys = {
            key: (at[COLUMN_OF.get(key, key)], how, lengths.get(COLUMN_OF.get(key, key), 0))
            for key, how in schema.READ_AS.items()
        }
        self.ts, self.ts_raw, self.event, self.schema_gen = (
            at["ts"],
            at["ts_raw"],
            at["event"],
            at["schema_gen"],
        )
        self.calibrated_at = tuple(at[name] for name in schema.CALIBRATED_FIELDS)
        self.raw_score_at = tuple(at[name] for name in schema.RAW_SCORE_FIELDS)
        self.blank = [None] * len(names)
        self.blank[at["occurrences"]] = 1
        self.read_at = tuple(at[name] for name in ("sha256", "order_offset", "order_index", "raw"))
        self.flags, self.empty = at["flags"], at["empty_fields"]
        self.texts = tuple(at[name] for name in texts)  # the texts the secret scan reads


CALIBRATED = frozenset(schema.CALIBRATED_FIELDS)
RAW_SCORE = frozenset(schema.RAW_SCORE_FIELDS)


def plain_row(layout: Layout, obj: dict) -> list:
    """schema.plain_fields as a row: the line's typed values in their columns, its schema
    generation; schema.Overlong when a text is longer than its column (event_values empties and flags it)."""
    values = layout.blank.copy()
    schema.read_plain(obj, layout.keys, values)
    if not CALIBRATED.isdisjoint(obj) and any(values[at] is not None for at in layout.calibrated_at):
        values[layout.schema_gen] = "calibrated"
    elif not RAW_SCORE.isdisjoint(obj) and any(values[at] is not None for at in layout.raw_score_at):
        values[layout.schema_gen] = "raw_score"
    return values


def values_of(
    layout: Layout,
    line: tailer.Line,
    record: parser.Record,
    sha: str,
    stamps: dict[str, datetime | None] | None = None,
) -> list | None:
    """The new event's row for one events-log record, read from the line's own keys (a handful, of
    the model's fifty), but for the values of SOURCE_SET (left None); None for a line the plain
    reading does not take (the writer's event_rows.event_values decides it). `stamps`: stamps
    already read (a cache kept for a batch)."""
    obj = record.obj
    try:
        values = plain_row(layout, obj)
    except (schema.NeedsModel, schema.Overlong):
        return None
    flags = [*record.flags]
    if values[layout.event] not in schema.KNOWN_EVENTS:
        flags.append("unknown_type")
    if line.nul_prefix:
        flags.append(f"nul_prefix={line.nul_prefix}")
    ts_raw = values[layout.ts_raw]
    if ts_raw is not None:
        if stamps is None:
            ts = timestamps.utc_second(ts_raw)
        elif (ts := stamps.get(ts_raw, stamps)) is stamps:
            ts = stamps[ts_raw] = timestamps.utc_second(ts_raw)
        if ts is None:
            flags.append("ts_invalid")
        elif not timestamps.in_range(ts):
            flags.append(timestamps.OUT_OF_RANGE)  # kept and placed by it; never joined by time
        values[layout.ts] = ts
    sha_at, offset_at, index_at, raw_at = layout.read_at
    values[sha_at], values[offset_at], values[index_at] = sha, line.offset, line.index
    values[raw_at] = record.data.decode("utf-8", "replace")
    values[layout.flags] = flags
    values[layout.empty] = (
        sorted(key for key, value in obj.items() if value == "") if "" in obj.values() else []
    )
    return values


def found_in(layout: Layout, values: list) -> list[tuple[str, str]]:
    """The secrets in a row's texts as (kind, fingerprint), each once, in the order found: what
    secret_rows.event_row notes of it when nothing is masked."""
    found: dict[tuple[str, str], None] = {}
    for at in layout.texts:
        if text := values[at]:
            found.update(((span.kind, span.fingerprint), None) for span in secrets.find_secrets(text))
    return list(found)


@dataclass(frozen=True)
class Config:
    """What the worker needs of the writer's settings and model, as values."""

    layout: Layout
    scan: bool  # settings.WAYSWEB_SECRET_SCAN, when nothing is masked (team mode scans in the writer)


class Prepared(NamedTuple):
    """One record of an events-log line as the worker hands it over: its sha256 (`sha`, as
    entry_prep.Prepared's), its row but for SOURCE_SET, the secrets found in it (None: not scanned).
    `values` None: the plain reading did not take it, and `record` (the parsed record) goes along
    for the writer to decide it."""

    sha: str
    values: list | None
    found: list | None
    record: parser.Record | None


def prepare_line(line: tailer.Line, config: Config, stamps: dict) -> tuple[tailer.Line, tuple | None]:
    """A line as the worker hands it to the writer: (its sha256, its Parsed with Prepared records),
    None for a line over the cap (the writer quarantines it). The line's bytes go along only when
    the writer may need them (a quarantined part, a record read the general way)."""
    if line.too_long:
        return line, None
    sha, parsed, shas = entry_prep.read_line(line)
    records = []
    keep = parsed.quarantine is not None
    for record, rsha in zip(parsed.records, shas, strict=True):
        values = values_of(config.layout, line, record, rsha, stamps)
        if values is None:
            keep = True
            records.append(Prepared(rsha, None, None, record))
            continue
        records.append(Prepared(rsha, values, found_in(config.layout, values) if config.scan else None, None))
    if not keep:
        line = tailer.Line(line.offset, b"", line.length, line.index, line.nul_prefix)
    return line, (sha, parser.Parsed(records, parsed.quarantine, parsed.inert))


def prepare_chunk(chunk: tailer.Chunk, config: Config) -> tailer.Chunk:
    """The chunk as the writer lands it: each line with what preparing made of it (`Chunk.prepared`)."""
    stamps: dict[str, datetime | None] = {}  # a chunk's lines share their stamps' seconds
    pairs = [prepare_line(line, config, stamps) for line in chunk.lines]
    return dataclasses.replace(chunk, lines=[line for line, _ in pairs], prepared=tuple(p for _, p in pairs))
