"""An events-log line made ready to store, as far as that needs no database: its row's values, its
hash and key. No Django app (importer/prefetch.py runs it in a worker process, as it runs
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

from introspect.importer import entry_prep, parser, tailer
from introspect.rules import event_fields, secrets, timestamps
from lib import hashing
from lib.hashing import sha256

# A line's key → the column it is stored in, where the two differ.
COLUMN_OF = {"ts": "ts_raw", "session": "session_key"}
# The values the writer sets, once it knows the source the line is read from.
SOURCE_SET = ("source_id", "order_rank", "order_generation", "session_id")


class Layout:
    """WaysEvent's row as plain values (a worker has no app registry): each column's place in a
    row, how each key of a line is read into it, the row of a line not read yet."""

    def __init__(self, names: tuple[str, ...], lengths: dict[str, int], texts: tuple[str, ...]) -> None:
        self.names = names
        self.at = at = {name: i for i, name in enumerate(names)}
        # A line's key → (its column's place in a row, how its value is read, the longest text its
        # column takes or 0): event_fields.read_plain's places. A field the row does not hold
        # (event_fields.UNSTORED) has no place: its value is read, so that a line is flagged as
        # before, and left in the raw line.
        self.places = {
            key: (at.get(COLUMN_OF.get(key, key)), how, lengths.get(COLUMN_OF.get(key, key), 0))
            for key, how in event_fields.READ_AS.items()
        }
        self.plans: dict[tuple[str, ...], Plan] = {}  # a line's keys → how such lines are read
        self.occurrences = at["occurrences"]
        self.ts, self.ts_raw, self.event = at["ts"], at["ts_raw"], at["event"]
        self.blank = [None] * len(names)
        self.blank[at["occurrences"]] = 1
        self.read_at = tuple(at[name] for name in ("sha256", "order_offset", "order_index", "raw"))
        self.flags = at["flags"]
        self.texts = tuple(at[name] for name in texts)  # the texts the writer's secret scan reads
        self.raw = at["raw"]
        # Those of a row whose raw line holds no secret's anchor (Sorted.records' `clean`).
        self.texts_but_raw = tuple(at[name] for name in texts if name != "raw")
        # The columns of a line's keys that nothing reads between the line and its insert (the
        # writer reads a row's session key, the stamp and event type are read here, the secret scan
        # reads its texts): a line without such a key may hold UNSET there in a stored row.
        read = {self.event, self.ts_raw, at["session_key"], *self.texts}
        self.unread = frozenset(place for place, _, _ in self.places.values() if place is not None) - read

    def __getstate__(self) -> dict:
        # A worker finds its own plans (and a Plan's getters are no pickles).
        return {**vars(self), "plans": {}}


# How a value is read (event_fields.read_plain's `how`), and the kinds a Plan sorts a line's keys into.
KINDS = ("str", "num", "u64")
EMPTY_JSON = json.dumps([])


class Unset(float):
    """UNSET as the worker pickles it: a message holds it once and refers to it everywhere else (the
    pickler keeps what it reduced), and the writer unpickles one plain NaN, which the driver binds at
    C speed. A plain NaN pickled each time came back as a float a field: 15 MB more at the peak."""

    def __reduce__(self):
        return float, ("nan",)


# What a row built as SQLite stores it (Stamps.as_text) holds for a field its line lacks: SQLite
# stores a NaN bound as NULL, and the driver binds a float at C speed, where a None goes through its
# adaptation protocol (a registry look-up, two attribute look-ups): on a million events, the writer's
# insert 12.4 -> 10.8 s (bench/results/2026-12-05-stop48.txt, issue 29). Never for PostgreSQL, which
# keeps a NaN as a number.
UNSET = Unset("nan")
# Distinct key tuples planned at most (a log's lines share a few dozen; odd lines are not planned).
MOST_PLANS = 4096


class Plan:
    """How the lines with one tuple of keys (`tuple(obj)`: the lines of an event type share their keys
    and their order) are read into a row: found once, then each such line's values taken at C speed
    (one itemgetter for the line's values, one for the row's twenty-seven columns), its texts' types and
    lengths checked together. A line whose values are not all plain (a None, a number in a text's
    place, a text past its column: rare) is read by event_fields.read_plain, which decides it."""

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
        # Each column's place in the values read (`taken`, then None, the occurrences' 1 and UNSET); a
        # value read for a field with no column is checked and left out.
        source = {
            layout.places[key][0]: i for i, key in enumerate(taken) if layout.places[key][0] is not None
        }
        absent, one, unset = len(taken), len(taken) + 1, len(taken) + 2
        places = [
            source.get(at, one if at == layout.occurrences else absent) for at in range(len(layout.names))
        ]
        self.spread = operator.itemgetter(*places)
        # The row as SQLite stores it: UNSET for the absent keys' columns no one reads before the insert.
        self.spread_stored = operator.itemgetter(
            *(unset if place == absent and at in layout.unread else place for at, place in enumerate(places))
        )

    def row(self, obj: dict, stored: bool = False, shared: dict[str, str] | None = None) -> list | None:
        """The row's columns read from the line's values; None: a value the plan does not take.
        `stored`: as SQLite stores it (UNSET for the absent fields nothing reads). `shared`: the
        chunk's texts (Stamps.texts), each equal text one object."""
        values = self.take(obj)
        texts = values[: self.texts] if self.numbers or self.u64s else values
        if not all(map(operator.is_, map(type, texts), self.strs)):
            return None
        if not all(map(operator.ge, self.lengths, map(len, texts))):
            return None
        if shared is not None:
            texts = tuple(map(shared.setdefault, texts, texts))
        if self.numbers or self.u64s:
            try:
                numbers = tuple(map(event_fields.plain_number, self.numbers, values[self.texts :]))
                u64s = tuple(map(event_fields.plain_u64, self.u64s, values[self.texts + len(numbers) :]))
            except event_fields.NeedsModel:
                return None
            values = (*texts, *numbers, *u64s)
        else:
            values = texts
        return list((self.spread_stored if stored else self.spread)((*values, None, 1, UNSET)))


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
    columns as their JSON text, so that bulk.insert_rows converts nothing (`STORED`), and a field its
    line lacks as UNSET where nothing reads it (Layout.unread).

    Most of a batch's stamps are distinct seconds of a few hours: a whole-second stamp is read as its
    hour (read once, `hours`) plus its minute and second, which cannot move it across the calendar's
    ends (EARLIEST and LATEST are whole hours); any other stamp is read by timestamps.utc_second."""

    def __init__(self, *, as_text: bool = False) -> None:
        super().__init__()
        self.as_text = as_text
        # The chunk's texts (event types, way ids, sessions, projects: a few hundred distinct in
        # thousands of lines), each one object: the worker's pickle names a repeat by reference, and
        # the writer makes one string where it made one a line.
        self.texts: dict[str, str] = {}
        self.hours: dict[str, tuple[datetime, str | None] | None] = {}  # "YYYY-MM-DDTHH" → (hour, flag)

    def __missing__(self, ts_raw: str) -> tuple[datetime | str | None, str | None]:
        read = self.in_hour(ts_raw) if len(ts_raw) == 20 else None
        if read is None:
            read = self.read(ts_raw)
        self[ts_raw] = read
        return read

    def in_hour(self, ts_raw: str) -> tuple[datetime | str, str | None] | None:
        """A valid whole-second stamp's reading by its hour; None: any other (`read` decides it)."""
        if not (ts_raw[13] == ":" == ts_raw[16] and ts_raw[19] == "Z"):
            return None
        minute, second = ts_raw[14:16], ts_raw[17:19]
        if not (
            (digits := minute + second).isdigit() and digits.isascii() and minute < "60" and second < "60"
        ):
            return None
        prefix = ts_raw[:13]
        hour = self.hours.get(prefix, ())
        if hour == ():
            start = timestamps.utc_second(f"{prefix}:00:00Z")
            hour = self.hours[prefix] = None if start is None else (start, self.flag(start))
        if hour is None:
            return None
        start, flag = hour
        if self.as_text:
            return f"{ts_raw[:10]} {ts_raw[11:19]}", flag
        return start.replace(minute=int(minute), second=int(second)), flag

    def read(self, ts_raw: str) -> tuple[datetime | str | None, str | None]:
        ts = timestamps.utc_second(ts_raw)
        read = (None, "ts_invalid") if ts is None else (ts, self.flag(ts))
        if self.as_text and ts is not None:
            # str() of the naive stamp; a whole second (utc_second read it by its places) is that text
            # already, but for its "T".
            text = f"{ts_raw[:10]} {ts_raw[11:19]}" if len(ts_raw) == 20 else str(ts.replace(tzinfo=None))
            read = (text, read[1])
        return read

    @staticmethod
    def flag(ts: datetime) -> str | None:
        # Out of range: kept and placed by it; never joined by time.
        return None if timestamps.in_range(ts) else timestamps.OUT_OF_RANGE


# The columns a row of Stamps(as_text=True) holds as stored (bulk.Rows.ready).
STORED = frozenset({"ts", "flags"})


def values_of(
    layout: Layout,
    line: tailer.Line,
    record: parser.Record,
    sha: str,
    stamps: Stamps | None = None,
) -> list | None:
    """The new event's row for one events-log record, read from the line's own keys (a handful, of
    the model's twenty-seven columns), but for the values of SOURCE_SET (left None); None for a line the plain
    reading does not take (the writer's event_rows.event_values decides it): a value that is not
    text, a number or a numeric text, absent or "" (event_fields.NeedsModel), or a text longer than its
    column. `stamps`: the batch's Stamps (None: a Stamps of datetimes, for this line alone)."""
    return row_of(
        layout, record.obj, line, record.data, record.flags, sha, Stamps() if stamps is None else stamps
    )


def plan_of(layout: Layout, obj: dict) -> Plan:
    keys = tuple(obj)
    plan = layout.plans.get(keys)
    if plan is None:
        plan = Plan(layout, keys)
        if len(layout.plans) < MOST_PLANS:
            layout.plans[keys] = plan
    return plan


def row_of(
    layout: Layout,
    obj: dict,
    line: tailer.Line,
    data: bytes,
    read_flags: tuple[str, ...],
    sha: str,
    stamps: Stamps,
) -> list | None:
    """`values_of` for a record's object, bytes and parser flags (a plain line's: its own bytes, no
    flags, no Record made: sort_lines)."""
    plan = plan_of(layout, obj)
    values = plan.row(obj, stamps.as_text, stamps.texts)
    if values is None:
        values = layout.blank.copy()
        try:
            event_fields.read_plain(obj, layout.places, values)
        except (event_fields.NeedsModel, event_fields.Overlong):
            return None
    flags = [*read_flags] if read_flags else []
    if values[layout.event] not in event_fields.KNOWN_EVENTS:
        flags.append("unknown_type")
    if line.nul_prefix:
        flags.append(f"nul_prefix={line.nul_prefix}")
    ts_raw = values[layout.ts_raw]
    if ts_raw is not None:
        values[layout.ts], flag = stamps[ts_raw]
        if flag is not None:
            flags.append(flag)
    sha_at, offset_at, index_at, raw_at = layout.read_at
    values[sha_at], values[offset_at], values[index_at] = sha, line.offset, line.index
    values[raw_at] = data.decode("utf-8", "replace")
    if stamps.as_text:
        values[layout.flags] = json.dumps(flags) if flags else EMPTY_JSON
    else:
        values[layout.flags] = flags
    return values


@dataclass(frozen=True)
class Config:
    """What the worker needs of the writer's settings and model, as values."""

    layout: Layout
    stamps_as_text: bool = False  # Stamps.as_text: the writer's database takes the stored text


class Sorted(NamedTuple):
    """A chunk's events-log lines sorted out as far as that needs no database, in plain values (one
    object a chunk: the worker's pickle is lists of tuples, strings and numbers, no object a line).
    importer/batch.py lands it (`landed`) and event_rows.store_events stores its records.

    keys: each line's (offset, index), in the chunk's order. outcomes: each line's outcome so far
    ("duplicate" for a line with records, until one of them turns out new; "inert", "quarantined").
    raw: each line's RawLine row but its source (batch.RAW_NAMES: offset, index, sha256, length, "").
    records: (key, length, sha256, digest, row, whole, clean) a record: its `digest` (hashing.digest64
    of its sha256: the event's key, models.WaysEvent.digest), its row in EVENT_NAMES order but for
    SOURCE_SET, or (line, record) where the plain reading does not take it (the writer decides it,
    event_rows.event_values); `whole` whether the record is its whole line (its row may stand for the
    line: models.PhysicalLine). The secrets in its texts are the writer's to find (store_events);
    `clean` says its row's raw line holds no anchor any secret begins at (rules/secrets.anchor_hits),
    so that the writer's scan, which would find nothing there, reads the row's other texts only.
    quarantined: (line with its bytes, reason, detail, sha256) for a quarantined line or part."""

    keys: list[tuple[int, int]]
    outcomes: list[str]
    raw: list[tuple]
    records: list[tuple]
    quarantined: list[tuple]


def sort_lines(lines: list[tailer.Line], config: Config, parse=parser.parse_line) -> Sorted:
    """The lines of a chunk as the writer lands them (importer/batch.py: what `sort_lines` makes of a
    chunk it reads itself). `parse`: the store's (read when called, as the resilience tests replace it).

    A line that is a plain JSON object (parser.plain_object: nearly every line of a log) is read
    straight from its object: what parse_line would make of it is known (one record of the whole
    line, no flags, nothing quarantined), so no Parsed or Record is built for it. Any other line, and
    every line when `parse` is not parse_line, goes the general way (`sort_line`)."""
    stamps = Stamps(as_text=config.stamps_as_text)  # a chunk's lines share their stamps' seconds
    layout = config.layout
    plain = parser.plain_object if parse is parser.parse_line else None
    keys, outcomes, raw, records, quarantined = [], [], [], [], []
    sorted_ = Sorted(keys, outcomes, raw, records, quarantined)
    for line in lines:
        key = (line.offset, line.index)
        keys.append(key)
        if line.too_long:
            outcomes.append("quarantined")
            raw.append((*key, line.too_long_sha256, line.length, ""))
            quarantined.append((line, "too_long", f"{line.length} bytes", line.too_long_sha256))
            continue
        data = line.data
        obj = None if plain is None else plain(data)
        if obj is None:
            sort_line(line, key, sorted_, layout, stamps, parse)
            continue
        sha = sha256(data)
        raw.append((*key, sha, line.length, ""))
        outcomes.append("duplicate")  # until its record turns out new
        values = row_of(layout, obj, line, data, (), sha, stamps)
        if values is None:
            values = (line, parser.Record(obj=obj, data=data))
        records.append(record_of(key, line, sha, values, not line.nul_prefix, layout, data))
    return sorted_


def sort_line(
    line: tailer.Line,
    key: tuple[int, int],
    sorted_: Sorted,
    layout: Layout,
    stamps: Stamps,
    parse,
) -> None:
    """One line sorted the general way: parsed by `parse`, its records read from the Record each."""
    sha, parsed, shas = entry_prep.read_line(line, parse)
    sorted_.raw.append((*key, sha, line.length, ""))
    if parsed.quarantine is not None:
        sorted_.quarantined.append((line, *parsed.quarantine, sha))
    if not parsed.records:
        sorted_.outcomes.append("inert" if parsed.inert else "quarantined")
        return
    sorted_.outcomes.append("duplicate")  # until one of its records turns out new
    whole = len(shas) == 1 and shas[0] == sha and not line.nul_prefix and parsed.quarantine is None
    for record, rsha in zip(parsed.records, shas, strict=True):
        values = row_of(layout, record.obj, line, record.data, record.flags, rsha, stamps)
        if values is None:
            values = (line, record)
        sorted_.records.append(record_of(key, line, rsha, values, whole, layout, record.data))


def record_of(
    key: tuple[int, int],
    line: tailer.Line,
    sha: str,
    values: list | tuple,
    whole: bool,
    layout: Layout,
    data: bytes,
) -> tuple:
    """A record of Sorted.records: its row (a list) or (line, record) for the writer to read. `data`:
    the record's bytes, which its row's raw line decodes (the same characters where they are ASCII)."""
    # The event's key and whether its raw line is clean of anchors, found here once (not by the writer).
    clean = type(values) is list and not secrets.anchor_hits(values[layout.raw], data)
    return (key, line.length, sha, hashing.digest64(sha), values, whole, clean)


def prepare_chunk(chunk: tailer.Chunk, config: Config) -> tailer.Chunk:
    """The chunk as the worker hands it over: its lines sorted (`Chunk.prepared`, a Sorted), the lines
    themselves left behind (Sorted holds the bytes of those the writer still needs)."""
    return dataclasses.replace(chunk, lines=[], prepared=sort_lines(chunk.lines, config))
