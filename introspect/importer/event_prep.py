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
import operator
import sys
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from introspect.importer import entry_prep, parser, schema, tailer
from introspect.rules import secrets, timestamps
from lib import hashing

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
        # A line's key → (its column's place in a row, how its value is read, the longest text its
        # column takes or 0): schema.read_plain's places.
        self.places = {
            key: (at[COLUMN_OF.get(key, key)], how, lengths.get(COLUMN_OF.get(key, key), 0))
            for key, how in schema.READ_AS.items()
        }
        self.plans: dict[tuple[str, ...], Plan] = {}  # a line's keys → how such lines are read
        self.occurrences = at["occurrences"]
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

    def __getstate__(self) -> dict:
        # A worker finds its own plans (and a Plan's getters are no pickles).
        return {**vars(self), "plans": {}}


# How a value is read (schema.read_plain's `how`), and the kinds a Plan sorts a line's keys into.
KINDS = ("str", "num", "u64")
CALIBRATED = frozenset(schema.CALIBRATED_FIELDS)
RAW_SCORE = frozenset(schema.RAW_SCORE_FIELDS)
EMPTY_JSON = json.dumps([])
# Distinct key tuples planned at most (a log's lines share a few dozen; odd lines are not planned).
MOST_PLANS = 4096


class Plan:
    """How the lines with one tuple of keys (`tuple(obj)`: the lines of an event type share their keys
    and their order) are read into a row: found once, then each such line's values taken at C speed
    (one itemgetter for the line's values, one for the row's fifty columns), its texts' types and
    lengths checked together. A line whose values are not all plain (a None, a number in a text's
    place, a text past its column: rare) is read by schema.read_plain, which decides it."""

    def __init__(self, layout: Layout, keys: tuple[str, ...]) -> None:
        by_kind = {
            how: [key for key in keys if layout.places.get(key, (0, None, 0))[1] == how] for how in KINDS
        }
        texts, numbers, u64s = (by_kind[how] for how in KINDS)
        taken = (*texts, *numbers, *u64s)
        self.take = getter(taken)
        self.texts, self.numbers, self.u64s = len(texts), tuple(numbers), tuple(u64s)
        self.strs = (str,) * len(texts)
        self.lengths = tuple(layout.places[key][2] or sys.maxsize for key in texts)
        # Each column's place in the values read (`taken`, then None and the occurrences' 1).
        source = {layout.places[key][0]: i for i, key in enumerate(taken)}
        absent, one = len(taken), len(taken) + 1
        self.spread = operator.itemgetter(
            *(source.get(at, one if at == layout.occurrences else absent) for at in range(len(layout.names)))
        )

    def row(self, obj: dict) -> list | None:
        """The row's columns read from the line's values; None: a value the plan does not take."""
        values = self.take(obj)
        texts = values[: self.texts] if self.numbers or self.u64s else values
        if not all(map(operator.is_, map(type, texts), self.strs)):
            return None
        if not all(map(operator.ge, self.lengths, map(len, texts))):
            return None
        if self.numbers or self.u64s:
            try:
                numbers = tuple(map(schema.plain_number, self.numbers, values[self.texts :]))
                u64s = tuple(map(schema.plain_u64, self.u64s, values[self.texts + len(numbers) :]))
            except schema.NeedsModel:
                return None
            values = (*texts, *numbers, *u64s)
        return list(self.spread((*values, None, 1)))


def getter(keys: tuple[str, ...]):
    """`obj` → the values of `keys` in it, as a tuple (itemgetter gives a lone value as it is)."""
    if len(keys) == 1:
        key = keys[0]
        return lambda obj: (obj[key],)
    if not keys:
        return lambda obj: ()
    return operator.itemgetter(*keys)


class Stamps(dict):
    """A batch's stamps read (its lines share their seconds): `ts_raw` → (the row's `ts`, the flag
    it gives or None), each distinct stamp read once. `as_text`: `ts` as the text SQLite stores for
    it (Django's adapt_datetimefield_value, naive UTC: bulk.sqlite_stamps) and the row's JSON
    columns as their JSON text, so that bulk.insert_rows converts nothing (`STORED`)."""

    def __init__(self, *, as_text: bool = False) -> None:
        super().__init__()
        self.as_text = as_text

    def __missing__(self, ts_raw: str) -> tuple[datetime | str | None, str | None]:
        ts = timestamps.utc_second(ts_raw)
        if ts is None:
            read = (None, "ts_invalid")
        elif not timestamps.in_range(ts):
            read = (ts, timestamps.OUT_OF_RANGE)  # kept and placed by it; never joined by time
        else:
            read = (ts, None)
        if self.as_text and ts is not None:
            # str() of the naive stamp; a whole second (utc_second read it by its places) is that text
            # already, but for its "T".
            text = f"{ts_raw[:10]} {ts_raw[11:19]}" if len(ts_raw) == 20 else str(ts.replace(tzinfo=None))
            read = (text, read[1])
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
    keys = tuple(obj)
    plan = layout.plans.get(keys)
    if plan is None:
        plan = Plan(layout, keys)
        if len(layout.plans) < MOST_PLANS:
            layout.plans[keys] = plan
    values = plan.row(obj)
    if values is None:
        values = layout.blank.copy()
        try:
            schema.read_plain(obj, layout.places, values)
        except (schema.NeedsModel, schema.Overlong):
            return None
    # The score fields' generation, decided on the row however it was read (plan or read_plain).
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


class Sorted(NamedTuple):
    """A chunk's events-log lines sorted out as far as that needs no database, in plain values (one
    object a chunk: the worker's pickle is lists of tuples, strings and numbers, no object a line).
    importer/batch.py lands it (`landed`) and event_rows.store_events stores its records.

    keys: each line's (offset, index), in the chunk's order. outcomes: each line's outcome so far
    ("duplicate" for a line with records, until one of them turns out new; "inert", "quarantined").
    raw: each line's RawLine row but its source (batch.RAW_NAMES: offset, index, sha256, length, "").
    records: (key, length, sha256, digest, row, found, whole) a record: its `digest` (hashing.digest64
    of its sha256: the event's key, models.WaysEvent.digest), its row in EVENT_NAMES order but for
    SOURCE_SET, or (line, record) where the plain reading does not take it (the writer decides it,
    event_rows.event_values); `found` the secrets in its texts (None: not scanned); `whole` whether
    the record is its whole line (its row may stand for the line: models.PhysicalLine).
    quarantined: (line with its bytes, reason, detail, sha256) for a quarantined line or part."""

    keys: list[tuple[int, int]]
    outcomes: list[str]
    raw: list[tuple]
    records: list[tuple]
    quarantined: list[tuple]


def sort_lines(lines: list[tailer.Line], config: Config, parse=parser.parse_line) -> Sorted:
    """The lines of a chunk as the writer lands them (importer/batch.py: what `sort_lines` makes of a
    chunk it reads itself). `parse`: the store's (read when called, as the resilience tests replace it)."""
    stamps = Stamps(as_text=config.stamps_as_text)  # a chunk's lines share their stamps' seconds
    layout, scan = config.layout, config.scan
    keys, outcomes, raw, records, quarantined = [], [], [], [], []
    for line in lines:
        key = (line.offset, line.index)
        keys.append(key)
        if line.too_long:
            outcomes.append("quarantined")
            raw.append((*key, line.too_long_sha256, line.length, ""))
            quarantined.append((line, "too_long", f"{line.length} bytes", line.too_long_sha256))
            continue
        sha, parsed, shas = entry_prep.read_line(line, parse)
        raw.append((*key, sha, line.length, ""))
        if parsed.quarantine is not None:
            quarantined.append((line, *parsed.quarantine, sha))
        if not parsed.records:
            outcomes.append("inert" if parsed.inert else "quarantined")
            continue
        outcomes.append("duplicate")  # until one of its records turns out new
        whole = len(shas) == 1 and shas[0] == sha and not line.nul_prefix and parsed.quarantine is None
        for record, rsha in zip(parsed.records, shas, strict=True):
            digest = hashing.digest64(rsha)  # the event's key, found here once (not by the writer)
            values = values_of(layout, line, record, rsha, stamps)
            if values is None:
                records.append((key, line.length, rsha, digest, (line, record), None, whole))
            else:
                found = found_in(layout, values) if scan else None
                records.append((key, line.length, rsha, digest, values, found, whole))
    return Sorted(keys, outcomes, raw, records, quarantined)


def prepare_chunk(chunk: tailer.Chunk, config: Config) -> tailer.Chunk:
    """The chunk as the worker hands it over: its lines sorted (`Chunk.prepared`, a Sorted), the lines
    themselves left behind (Sorted holds the bytes of those the writer still needs)."""
    return dataclasses.replace(chunk, lines=[], prepared=sort_lines(chunk.lines, config))
