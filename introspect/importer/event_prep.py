"""An events-log line made ready to store, as far as that needs no database: its row's values, the
secrets in its texts. No Django app (importer/prefetch.py runs it in a worker process, as it runs
entry_prep for transcripts).

The writer (event_rows.store_events) adds what only the database knows: whether the event is
stored already, the source it is read from, its session. Both the in-process path and the worker
build a new event's values here (`values_of`), so both store the same rows.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
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
        # A line's key → (its column's place in a row, how its value is read: TEXT, NUMBER or U64, the
        # longest text its column takes). One lookup a key, the kind an int (values_of's loop).
        self.keys = {
            key: (
                at[COLUMN_OF.get(key, key)],
                KIND[how],
                lengths.get(COLUMN_OF.get(key, key), 0) or sys.maxsize,
            )
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


TEXT, NUMBER, U64 = 0, 1, 2
KIND = {"str": TEXT, "num": NUMBER, "u64": U64}
CALIBRATED = frozenset(schema.CALIBRATED_FIELDS)
RAW_SCORE = frozenset(schema.RAW_SCORE_FIELDS)
EMPTY_JSON = json.dumps([])
# The stamps timestamps.utc_second takes that have no fraction (ASCII digits, as its bytes pattern).
WHOLE_SECOND = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", re.ASCII)


class Stamps(dict):
    """A batch's stamps read (its lines share their seconds): `ts_raw` → (the row's `ts`, the flag
    it gives or None), each distinct stamp read once. `as_text`: `ts` as the text SQLite stores for
    it (Django's adapt_datetimefield_value, naive UTC: bulk.sqlite_stamps) and the row's JSON
    columns as their JSON text, so that bulk.insert_rows converts nothing (`STORED`)."""

    def __init__(self, *, as_text: bool = False) -> None:
        super().__init__()
        self.as_text = as_text

    def __missing__(self, ts_raw: str) -> tuple[datetime | str | None, str | None]:
        # Nearly every stamp is distinct (a line every few seconds) and whole seconds: those are read
        # by their places, as utc_second reads them, without its encoding and regular expression.
        if len(ts_raw) == 20 and WHOLE_SECOND.fullmatch(ts_raw) is not None:
            try:
                ts = datetime(
                    int(ts_raw[0:4]),
                    int(ts_raw[5:7]),
                    int(ts_raw[8:10]),
                    int(ts_raw[11:13]),
                    int(ts_raw[14:16]),
                    int(ts_raw[17:19]),
                    tzinfo=UTC,
                )
            except ValueError:
                ts = None
        else:
            ts = timestamps.utc_second(ts_raw)
        if ts is None:
            read = (None, "ts_invalid")
        elif not timestamps.in_range(ts):
            read = (ts, timestamps.OUT_OF_RANGE)  # kept and placed by it; never joined by time
        else:
            read = (ts, None)
        if self.as_text and ts is not None:
            read = (str(ts.replace(tzinfo=None)), read[1])
        self[ts_raw] = read
        return read


# The columns a row of Stamps(as_text=True) holds as stored (bulk.Rows.ready).
STORED = frozenset({"ts", "flags", "empty_fields"})


def values_of(
    layout: Layout,
    line: tailer.Line,
    record: parser.Record,
    sha: str,
    stamps: Stamps | None = None,
) -> list | None:
    """The new event's row for one events-log record, read from the line's own keys (a handful, of
    the model's fifty), but for the values of SOURCE_SET (left None); None for a line the plain
    reading does not take (the writer's event_rows.event_values decides it): a value that is not
    text, a number or a numeric text, absent or "" (schema.NeedsModel), or a text longer than its
    column. `stamps`: the batch's Stamps (None: a Stamps of datetimes, for this line alone)."""
    obj = record.obj
    values = layout.blank.copy()
    # schema.read_plain inlined: one lookup a key, the common case (a text) decided first.
    place_of = layout.keys.get
    for name, value in obj.items():
        place = place_of(name)
        if place is None or value is None:
            continue
        at, kind, length = place
        if kind == TEXT:
            if type(value) is not str or len(value) > length:
                return None
            values[at] = value
            continue
        try:
            values[at] = schema.plain_number(name, value) if kind == NUMBER else schema.plain_u64(name, value)
        except schema.NeedsModel:
            return None
    if not CALIBRATED.isdisjoint(obj) and any(values[at] is not None for at in layout.calibrated_at):
        values[layout.schema_gen] = "calibrated"
    elif not RAW_SCORE.isdisjoint(obj) and any(values[at] is not None for at in layout.raw_score_at):
        values[layout.schema_gen] = "raw_score"
    flags = [*record.flags] if record.flags else []
    if values[layout.event] not in schema.KNOWN_EVENTS:
        flags.append("unknown_type")
    if line.nul_prefix:
        flags.append(f"nul_prefix={line.nul_prefix}")
    ts_raw = values[layout.ts_raw]
    if stamps is None:
        stamps = Stamps()
    if ts_raw is not None:
        values[layout.ts], flag = stamps[ts_raw]
        if flag is not None:
            flags.append(flag)
    sha_at, offset_at, index_at, raw_at = layout.read_at
    values[sha_at], values[offset_at], values[index_at] = sha, line.offset, line.index
    values[raw_at] = record.data.decode("utf-8", "replace")
    empty = sorted(key for key, value in obj.items() if value == "") if "" in obj.values() else []
    if stamps.as_text:
        values[layout.flags] = json.dumps(flags) if flags else EMPTY_JSON
        values[layout.empty] = json.dumps(empty) if empty else EMPTY_JSON
    else:
        values[layout.flags], values[layout.empty] = flags, empty
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
    stamps_as_text: bool = False  # Stamps.as_text: the writer's database takes the stored text


class Prepared(NamedTuple):
    """One record of an events-log line as the worker hands it over: its sha256 (`sha`, as
    entry_prep.Prepared's), its row but for SOURCE_SET, the secrets found in it (None: not scanned).
    `values` None: the plain reading did not take it, and `record` (the parsed record) goes along
    for the writer to decide it."""

    sha: str
    values: list | None
    found: list | None
    record: parser.Record | None


def prepare_line(line: tailer.Line, config: Config, stamps: Stamps) -> tuple[tailer.Line, tuple | None]:
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
    stamps = Stamps(as_text=config.stamps_as_text)  # a chunk's lines share their stamps' seconds
    pairs = [prepare_line(line, config, stamps) for line in chunk.lines]
    return dataclasses.replace(chunk, lines=[line for line, _ in pairs], prepared=tuple(p for _, p in pairs))
