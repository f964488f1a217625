"""agent-ways events-log records as WaysEvent rows: the events store (importer/stores.py).

Events are de-duplicated by the sha256 of their line: the same bytes in another file (an archive,
a legacy log, a rewritten live file) are one event, placed at its earliest position in event order.
The key is its first 8 bytes (`digest`, models.WaysEvent), the full hash compared: a line whose
digest another line's event holds is stored with none (`settle`).

Speed (issue 29: a million event lines in one cold pass): a new event's row is built as a list in
`EVENT_NAMES` order straight from the line's own keys (`event_row`), without the dict of every
field, the separate pass of column_fit over it, or a model instance for an event already stored.
A line the plain reading does not take as it is (event_fields.NeedsModel) or with a value longer than
its column goes the general way (`event_values`), which decides the rare cases; the two give the
same row (tests/introspect/importer/test_event_rows.py). The digest comes with the record, found
by the worker (event_prep.sort_lines), and a batch's events are inserted first: stored events are
looked up only for a batch some of whose lines the insert found stored (`store_events`). A batch
of lines nearly all stored (a source read again, an archive of lines imported from the live file)
pays for that an insert that stores nothing before its look-up.
"""

from __future__ import annotations

import dataclasses
import json
from itertools import batched

from django.db import transaction

from introspect.importer import event_prep, event_repeats, parser, secret_rows, stores, tailer
from introspect.models import Session, SourceFile, WaysEvent
from introspect.rules import event_fields, timestamps
from lib import bulk, column_fit, hashing

EVENT_NAMES = tuple(f.attname for f in WaysEvent._meta.concrete_fields if not f.primary_key)
AT = {name: i for i, name in enumerate(EVENT_NAMES)}  # attname → its place in a row
# What store_events needs of an event already stored (never its raw line).
EVENT_KNOWN = (
    "id",
    "source_id",
    "occurrences",
    "order_rank",
    "order_generation",
    "order_offset",
    "order_index",
    "session_key",
    "sha256",
)


class Known:
    """An event already stored, as far as a later copy of its line may change it."""

    __slots__ = ("occurrences", "pk", "position", "session_key", "source_id")

    def __init__(self, pk, source_id, occurrences, rank, generation, offset, index, session_key, _sha):
        self.pk, self.source_id, self.occurrences = pk, source_id, occurrences
        # Where the event sits in its best source: rank, generation, offset, index (event order).
        self.position = (rank, generation, offset, index)
        self.session_key = session_key


OCCURRENCES, SESSION_KEY, SESSION_ID = AT["occurrences"], AT["session_key"], AT["session_id"]
SHA256, DIGEST = AT["sha256"], AT["digest"]


def stored_events(names: tuple[str, ...], shas: set[str]) -> tuple[list[tuple], set[int]]:
    """The `names` columns (sha256 last) of the events of these lines, found by their digest, the
    full hash compared, and by sha256 among the events stored without one (a collision: an empty
    partial index, asked only when it holds any); and the digests held by other lines' events."""
    found, taken = [], set()
    for values in bulk.select_in(
        WaysEvent, (*names, "digest"), "digest", {hashing.digest64(sha) for sha in shas}
    ):
        if values[-2] in shas:
            found.append(values[:-1])
        else:
            taken.add(values[-1])
    collided = WaysEvent.objects.filter(digest__isnull=True)
    if collided.exists():
        found.extend(map(tuple, bulk.chunked_in(collided.values_list(*names), "sha256", shas)))
    return found, taken


def store_events(row: SourceFile, lines: stores.NewLines, sessions: set[str]) -> bulk.Rows:
    """Store the batch's new events; for lines already known, count a genuine repeat or keep the
    lowest order. `lines.prepared`: the chunk's records as event_prep.sort_lines made them (here or in
    the worker, each with its digest), so that per record this does only what needs the database.

    Each distinct line's event is inserted as new (ON CONFLICT DO NOTHING), for nearly every line of
    a cold load is: the batch's events are looked up only when fewer went in than were given, and
    the lines found stored then settled as copies (`settle`), whoever stored them (an earlier batch,
    another importer racing this one). Returns the new events' secret findings, for the store's write."""
    records, outcomes = lines.prepared, lines.outcomes
    fresh: dict[str, list] = {}  # sha256 → its event's row (EVENT_NAMES order): new unless found stored
    places: dict[str, tuple[int, int]] = {}  # sha256 → where its event was read
    placed: dict[str, tuple[int, int]] = {}  # sha256 → the line its event stands for
    keys: set[str] = set()
    as_text = bulk.stores_utc_text(WaysEvent)  # how event_prep.sort_lines holds the stamps (prep_config)
    stamps = None  # a general-way row's (rare): the batch's stamps read as the rows hold them
    source_id, rank, generation = row.pk, row.rank, row.generation
    seen = event_repeats.SEEN  # a cold load without the digest key: its repeats settled after it
    clean: set[str] = set()  # the rows whose raw line holds no secret's anchor (event_prep.Sorted)
    for key, _, sha, digest, values, whole, unanchored in records:
        new = fresh.get(sha)
        if new is not None:
            # The same bytes twice in this batch of one source: a genuinely repeated line (×N).
            new[OCCURRENCES] += 1
            continue
        if type(values) is not list:  # (line, record): the plain reading did not take it
            if stamps is None:
                stamps = event_prep.Stamps(as_text=as_text)
            values = event_row(row, *values, sha, stamps)
        values[SOURCE_ID], values[ORDER_RANK], values[ORDER_GENERATION] = source_id, rank, generation
        values[DIGEST] = digest
        fresh[sha], places[sha] = values, key
        if unanchored:
            clean.add(sha)
        if seen is not None and seen.add(digest):
            whole = False  # may repeat an event of this load: its line keeps its RawLine row
        if whole:
            placed[sha] = key  # the event's row stands for the line (models.PhysicalLine)
        if values[SESSION_KEY]:
            keys.add(values[SESSION_KEY])
    # A line found stored below names a session its event created already: none is made for it.
    ids = stores.ensure_sessions(keys)
    for values in fresh.values():
        values[SESSION_ID] = ids.get(values[SESSION_KEY])
    # The secrets in the events' texts, masked in team mode before the row is stored; the findings
    # are written for the events that turn out new. Found here, not by the worker: with the digest
    # key out of a cold load the writer waited for the worker 11 of the load's 26 s, 2 with this
    # scan its own (bench/results/2026-12-05-stop51.txt). But the raw line, nearly all of the bytes
    # scanned, is skipped where the worker found no anchor in it (`clean`): no secret begins there.
    noted: dict[str, list[tuple]] = {}
    scan = secret_rows.DocumentScan()
    for sha, values in fresh.items():
        found: list[tuple] = []
        texts = LAYOUT.texts_but_raw if sha in clean else LAYOUT.texts
        secret_rows.event_row(values, texts, (source_id, *places[sha], values[SESSION_ID]), found, scan)
        if found:
            noted[sha] = found
    rows = bulk.Rows(
        WaysEvent, EVENT_NAMES, list(fresh.values()), event_prep.STORED if as_text else frozenset()
    )
    # Inserted as new inside a savepoint. Where the insert finds lines stored, it is undone (with the
    # ids it spent: SQLite's AUTOINCREMENT counts a row ON CONFLICT dropped) and the batch stored as
    # a look-up first stores it (`settle`): the same rows, with the same ids, either way. A source
    # whose last batch held stored lines (a copy read again) is looked up first until one holds none.
    copies = row.pk in COPIES and seen is None  # without the key nothing is found by it
    if not copies:
        point = transaction.savepoint_create()
        if bulk.insert_rows(rows) == len(rows):
            transaction.savepoint_commit(point)
        else:
            transaction.savepoint_rollback(point)
            copies = True
    if copies:
        stored = settle(row, lines, rows, places, sessions)
        for sha in stored:
            del places[sha]
            placed.pop(sha, None)
            noted.pop(sha, None)
        keys = {fresh[sha][SESSION_KEY] for sha in places} - {None, ""}
        if stored:
            COPIES.add(row.pk)
        else:
            COPIES.discard(row.pk)
    sessions |= keys
    for key in places.values():
        outcomes[key] = "imported"
    lines.placed.update(placed.values())
    return secret_rows.finding_rows([finding for found in noted.values() for finding in found])


# The sources (SourceFile pks) whose last batch held lines stored already: their next batch is
# looked up first, so a source of copies pays no insert that stores nothing (only its first batch).
COPIES: set[int] = set()


def settle(
    row: SourceFile, lines: stores.NewLines, rows: bulk.Rows, places: dict, sessions: set[str]
) -> set[str]:
    """Store the batch's events `rows` (one a distinct line, read at `places`), some of which are
    stored already: those looked up first, the others inserted; each copy in the batch of a stored
    event counted as a genuine repeat or moved to the lowest order. Returns the stored ones' sha256s.
    A line whose digest another line's event holds (a collision) is stored without one, and one
    another importer stored meanwhile (PostgreSQL) settled as one stored before: nothing is lost."""
    source_id = row.pk
    fresh = {values[SHA256]: values for values in rows.values}
    stored, taken = stored_events(EVENT_KNOWN, set(fresh))
    existing = {values[-1]: Known(*values) for values in stored}  # sha256 → its event, stored
    missing = [sha for sha in fresh if sha not in existing]
    for sha in missing:
        if fresh[sha][DIGEST] in taken:
            fresh[sha][DIGEST] = None  # another line's event holds it
    while missing:
        inserted = bulk.insert_rows(dataclasses.replace(rows, values=[fresh[sha] for sha in missing]))
        if inserted == len(missing):
            break
        # Some went not in: stored by another importer since the look-up, or a digest another line
        # of this batch holds (its row went in: it holds this very line's place).
        ours = set()
        for values in stored_events(EVENT_KNOWN, set(missing))[0]:
            sha = values[-1]
            if values[1] == source_id and values[5:7] == places[sha]:
                ours.add(sha)
            else:
                existing[sha] = Known(*values)
        missing = [sha for sha in missing if sha not in ours and sha not in existing]
        if any(fresh[sha][DIGEST] is None for sha in missing):
            raise RuntimeError(f"events of {row.path} neither stored nor found: {missing[:3]}")
        for sha in missing:
            fresh[sha][DIGEST] = None
    # The same bytes again: a copy from another source (archive, legacy, rewritten live file)
    # or, inside one source generation, a genuinely repeated line (shown as ×N, never guessed).
    # An event from this very generation was read from it before at another place (a replay of the
    # same place never gets here: committed_lines drops it), so these bytes are in it twice.
    moved: list[Known] = []
    repeated: list[Known] = []
    rank, generation = row.rank, row.generation
    for key, length, sha, *_ in lines.prepared:
        known = existing.get(sha)
        if known is None:
            continue
        position = (rank, generation, *key)
        if known.source_id == source_id:
            known.occurrences += 1
            repeated.append(known)
        elif position < known.position:
            # The place it leaves is a line read all the same: its RawLine row now (ignored where
            # it has one: a copy, or a line of an older database).
            _, _, offset, index = known.position
            lines.vacated.append((known.source_id, offset, index, sha, length, "imported"))
            known.source_id, known.position = source_id, position
            moved.append(known)
        if known.session_key:
            sessions.add(known.session_key)
    changed = list({id(e): e for e in moved + repeated}.values())
    bulk.update_values(
        WaysEvent,
        ("source_id", "occurrences", "order_rank", "order_generation", "order_offset", "order_index"),
        ((event.source_id, event.occurrences, *event.position, event.pk) for event in changed),
    )
    # An older event counted again or moved in event order: its session cannot just be extended.
    for keys in batched(sorted({event.session_key for event in changed if event.session_key}), 500):
        Session.objects.filter(sid__in=keys).update(derived_version=0)
    return set(existing)


# WaysEvent's row as plain values, for event_prep here and in the worker (importer/prefetch.py).
LAYOUT = event_prep.Layout(
    EVENT_NAMES,
    {name: length for name, (length, _) in column_fit.limits(WaysEvent).items()},
    secret_rows.EVENT_TEXTS,
)
SOURCE_ID, ORDER_RANK, ORDER_GENERATION = (AT[name] for name in event_prep.SOURCE_SET[:3])


def prep_config() -> event_prep.Config:
    """How the worker prepares events lines: the row's layout, and how its stamps are held."""
    return event_prep.Config(LAYOUT, stamps_as_text=bulk.stores_utc_text(WaysEvent))


def sort_lines(lines: list[tailer.Line], parse) -> event_prep.Sorted:
    """The events store's `prepare` (stores.Store): a chunk read in process sorted as the worker sorts
    the chunks it reads (event_prep.sort_lines), so that both land the same way."""
    return event_prep.sort_lines(lines, prep_config(), parse)


def event_row(
    row: SourceFile,
    line: tailer.Line,
    record: parser.Record,
    sha: str,
    stamps: event_prep.Stamps | None = None,
) -> list:
    """The new event's row (EVENT_NAMES order) for one events-log record (event_prep.values_of; a line
    the plain reading does not take goes the general way, `event_values`). `stamps`: stamps already
    read (the batch's; its `as_text` says how the row holds `ts` and its JSON columns)."""
    values = event_prep.values_of(LAYOUT, line, record, sha, stamps)
    if values is None:
        fields = event_values(row, line, record, sha)
        if stamps is not None and stamps.as_text:
            stored(fields)
        return [fields[name] for name in EVENT_NAMES]
    values[SOURCE_ID], values[ORDER_RANK], values[ORDER_GENERATION] = row.pk, row.rank, row.generation
    return values


def stored(fields: dict) -> None:
    """`event_values`' fields as a row of Stamps(as_text=True) holds them (event_prep.STORED): the
    stamp and the JSON columns as the text SQLite stores (lib/bulk.py's conversions)."""
    if fields["ts"] is not None:
        fields["ts"] = str(fields["ts"].replace(tzinfo=None))
    fields["flags"] = json.dumps(fields["flags"])


def event_values(row: SourceFile, line: tailer.Line, record: parser.Record, sha: str) -> dict:
    """The new event's column values (attname → value) for one events-log record: every line the
    direct row (`event_row`) does not take, and the specification it meets."""
    fields, flags = event_fields.event_fields(record.obj)
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
    for name in (*event_fields.UNSTORED, "schema_gen"):
        del fields[name]  # read for its flag, kept in the raw line only
    overlong = column_fit.fit(WaysEvent, fields)
    if "overlong:ts_raw" in overlong:
        ts = None  # the raw line keeps the stamp; the row is placed as a line without one
    fields.update(
        sha256=sha,
        digest=None,  # store_events decides it (whether another line's event holds it)
        source_id=row.pk,
        occurrences=1,
        order_rank=row.rank,
        order_generation=row.generation,
        order_offset=line.offset,
        order_index=line.index,
        raw=record.data.decode("utf-8", "replace"),
        flags=[*all_flags, *overlong],
        ts=ts,
        session_id=None,
    )
    return fields
