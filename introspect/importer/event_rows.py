"""agent-ways events-log records as WaysEvent rows: the events store (importer/stores.py).

Events are de-duplicated by the sha256 of their line: the same bytes in another file (an archive,
a legacy log, a rewritten live file) are one event, placed at its earliest position in event order.
The key is its first 8 bytes (`digest`, models.WaysEvent), the full hash compared: a line whose
digest another line's event holds is stored with none (`known_events`, `write_events`).

Speed (issue 29: a million event lines in one cold pass): a new event's row is built as a list in
`EVENT_NAMES` order straight from the line's own keys (`event_row`), without the dict of every
field, the separate pass of column_fit over it, or a model instance for an event already stored.
A line the plain reading does not take as it is (schema.NeedsModel) or with a value longer than
its column goes the general way (`event_values`), which decides the rare cases; the two give the
same row (tests/introspect/importer/test_event_rows.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import batched

from django.conf import settings

from introspect.importer import event_prep, parser, schema, secret_rows, stores, tailer
from introspect.models import Session, SourceFile, WaysEvent
from introspect.rules import timestamps
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
HELD = ("source_id", "order_offset", "order_index", "sha256")  # where a line's event is stored


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
    """Build new events; for lines already known, count a genuine repeat or keep the lowest order.
    `lines.prepared`: the chunk's records as event_prep.sort_lines made them (here or in the worker),
    so that per record this does only what needs the database: is it stored, and its session."""
    records, outcomes = lines.prepared, lines.outcomes
    stored, taken = stored_events(EVENT_KNOWN, {record[2] for record in records})
    existing = {values[-1]: Known(*values) for values in stored}
    fresh: dict[str, list] = {}  # sha256 → the new event's row, in EVENT_NAMES order
    places: dict[str, tuple[int, int]] = {}  # sha256 → where the new event was read
    placed: dict[str, tuple[int, int]] = {}  # sha256 → the line the new event stands for
    scanned: dict[str, list] = {}  # sha256 → the secrets found in the new event's texts (when scanned)
    moved: list[Known] = []
    repeated: list[Known] = []
    keys: set[str] = set()
    as_text = bulk.stores_utc_text(WaysEvent)  # how event_prep.sort_lines holds the stamps (prep_config)
    stamps = None  # a general-way row's (rare): the batch's stamps read as the rows hold them
    source_id, rank, generation = row.pk, row.rank, row.generation
    for key, length, sha, values, found, whole in records:
        new = fresh.get(sha)
        if new is not None:
            # The same bytes twice in this batch of one source: a genuinely repeated line (×N).
            new[OCCURRENCES] += 1
            if new[SESSION_KEY]:
                sessions.add(new[SESSION_KEY])
            continue
        known = existing.get(sha)
        if known is None:
            if type(values) is not list:  # (line, record): the plain reading did not take it
                if stamps is None:
                    stamps = event_prep.Stamps(as_text=as_text)
                values = event_row(row, *values, sha, stamps)
            values[SOURCE_ID], values[ORDER_RANK], values[ORDER_GENERATION] = source_id, rank, generation
            digest = hashing.digest64(sha)
            values[DIGEST] = None if digest in taken else digest  # another line's event holds it
            fresh[sha], places[sha] = values, key
            if found != []:
                scanned[sha] = found
            outcomes[key] = "imported"
            if whole:
                placed[sha] = key  # the event's row stands for the line (models.PhysicalLine)
            if values[SESSION_KEY]:
                keys.add(values[SESSION_KEY])
            continue
        # The same bytes again: a copy from another source (archive, legacy, rewritten live file)
        # or, inside one source generation, a genuinely repeated line (shown as ×N, never guessed).
        # An event from this very generation was read from it before at another place (a replay of the
        # same place never gets here: committed_lines drops it), so these bytes are in it twice.
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
    ids = stores.ensure_sessions(keys)
    sessions |= keys
    changed = list({id(e): e for e in moved + repeated}.values())
    bulk.update_values(
        WaysEvent,
        ("source_id", "occurrences", "order_rank", "order_generation", "order_offset", "order_index"),
        ((event.source_id, event.occurrences, *event.position, event.pk) for event in changed),
    )
    # An older event counted again or moved in event order: its session cannot just be extended.
    for keys in batched(sorted({event.session_key for event in changed if event.session_key}), 500):
        Session.objects.filter(sid__in=keys).update(derived_version=0)
    for values in fresh.values():
        values[SESSION_ID] = ids.get(values[SESSION_KEY])
    findings: list[tuple] = []
    scan = secret_rows.DocumentScan()
    # Found nothing (nearly every event) or scanned by the writer (team mode masks: secret_rows).
    for sha, found in scanned.items():
        values = fresh[sha]
        place = (source_id, *places[sha], values[SESSION_ID])
        if found is None:
            secret_rows.event_row(values, LAYOUT.texts, place, findings, scan)
        else:
            secret_rows.noted(place, found, findings)
    lines.placed.update(placed.values())
    return EventRows(
        WaysEvent,
        EVENT_NAMES,
        list(fresh.values()),
        ready=event_prep.STORED if as_text else frozenset(),
        findings=secret_rows.finding_rows(findings) if findings else None,
        placed=placed,
    )


@dataclass
class EventRows(secret_rows.ScannedRows):
    """A batch's new events, and the lines each stands for (sha256 → (offset, index))."""

    placed: dict[str, tuple[int, int]] = field(default_factory=dict)


def places_of(shas: set[str]) -> dict[str, tuple]:
    """Where the events of these lines are stored: sha256 → (source_id, order_offset, order_index)."""
    return {values[-1]: values[:-1] for values in stored_events(HELD, shas)[0]}


def write_events(row: SourceFile, rows: EventRows) -> set[tuple[int, int]]:
    """Insert the new events; returns the lines of those another importer stored first (between
    this batch's look-up and its insert: ON CONFLICT kept theirs), whose RawLine rows the batch
    then writes, as copies (stores.py). An event whose digest the conflict found held by another
    line's (of this batch, or stored meanwhile) goes in again without one: nothing is lost."""
    inserted = bulk.insert_rows(rows)
    if rows.findings:
        bulk.insert_rows(rows.findings)
    if inserted == len(rows):
        return set()
    held = places_of({values[SHA256] for values in rows.values})
    if missing := [values for values in rows.values if values[SHA256] not in held]:
        for values in missing:
            values[DIGEST] = None
        bulk.insert_rows(bulk.Rows(rows.model, rows.names, missing, rows.ready))
        held |= places_of({values[SHA256] for values in missing})
    ours = {sha: (row.pk, *key) for sha, key in rows.placed.items()}
    return {ours[sha][1:] for sha in ours if held.get(sha) != ours[sha]}


# WaysEvent's row as plain values, for event_prep here and in the worker (importer/prefetch.py).
LAYOUT = event_prep.Layout(
    EVENT_NAMES,
    {name: length for name, (length, _) in column_fit.limits(WaysEvent).items()},
    secret_rows.EVENT_TEXTS,
)
SOURCE_ID, ORDER_RANK, ORDER_GENERATION = (AT[name] for name in event_prep.SOURCE_SET[:3])


def prep_config() -> event_prep.Config:
    """How the worker prepares events lines: the row's layout, and the secret scan when it only
    notes what it finds (in team mode the writer scans, as it masks with the database's exceptions)."""
    return event_prep.Config(
        LAYOUT,
        settings.WAYSWEB_SECRET_SCAN and not settings.WAYSWEB_SECRETS_MASKED_ONLY,
        stamps_as_text=bulk.stores_utc_text(WaysEvent),
    )


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
    fields["flags"], fields["empty_fields"] = json.dumps(fields["flags"]), json.dumps(fields["empty_fields"])


def event_values(row: SourceFile, line: tailer.Line, record: parser.Record, sha: str) -> dict:
    """The new event's column values (attname → value) for one events-log record: every line the
    direct row (`event_row`) does not take, and the specification it meets."""
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
        digest=None,  # store_events decides it (whether another line's event holds it)
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
