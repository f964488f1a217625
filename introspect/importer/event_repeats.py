"""The repeated lines of a cold load that leaves the events' digest key out: noted while the load
writes, settled into one event each before the key is built again (deferred_indexes.restore).

The digest key (models.WaysEvent) is the dearest index of the events: each new row goes in at a
random place of a B-tree as large as the events are many, and each commit writes most of its pages
again. It was 8.1 s of a million events' 19.4 s at the writer's floor
(bench/results/2026-12-05-stop50-row-floor.txt). Without it a cold load inserts every line's event
as new, and a line whose bytes an event of the same load holds already (an archive overlapping the
live log, a genuinely repeated line) adds one row more. `settle` then makes of those rows what
event_rows.settle makes of each such line as it reads it with the key there: taken in the order they
went in (their ids), each later copy is counted as a genuine repeat inside its source, or moves the
event to its lower place in event order, and the line it was read from counts as a duplicate, with
its own RawLine row. The same rows either way (tests/introspect/importer/test_event_repeats.py).

That RawLine row needs the line's length, which an event's row does not keep. So while the key is
out the writer notes each new event's digest in a Bloom filter (`Seen`). A line whose digest the
filter may have seen is not placed (stores.NewLines.placed) and keeps its RawLine row. These are the
repeats, and about one false alarm in a thousand lines. No repeat is missed: a Bloom filter has no
false negatives.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from itertools import batched

from django.db import connection

from introspect.models import RawLine, SecretFinding, SourceFile, WaysEvent

# The filter's size: 2**BITS bits (4 MiB, on the importer's peak RSS while the load runs), probed
# twice, each probe a slice of the 64-bit digest (a hash already). Over a million events it raises
# about 1,100 false alarms, over two million 8,700: each a RawLine row written where none was
# needed and a digest looked for in vain. By about 2.6 million they are a part's worth (`many`) and
# the key comes back.
BITS = 25
MASK = (1 << BITS) - 1


class Seen:
    """The digests of the events a load inserted while the key is out (a Bloom filter), and those it
    may have seen before: the only digests `settle` has to look for."""

    __slots__ = ("bits", "suspects")

    def __init__(self) -> None:
        self.bits = bytearray(1 << (BITS - 3))
        self.suspects: list[int] = []

    def add(self, digest: int) -> bool:
        """Note `digest`; whether it may have been noted before (False: it certainly was not)."""
        bits, low, high = self.bits, digest & MASK, (digest >> BITS) & MASK
        if bits[low >> 3] >> (low & 7) & bits[high >> 3] >> (high & 7) & 1:
            self.suspects.append(digest)
            return True
        bits[low >> 3] |= 1 << (low & 7)
        bits[high >> 3] |= 1 << (high & 7)
        return False


# The filter of the load this process runs while the key is out (deferred_indexes.defer); None when
# the key is there, or left out by a load another process ran.
SEEN: Seen | None = None


def watch() -> None:
    global SEEN
    SEEN = Seen()


def many() -> bool:
    """Whether the load noted a part's worth of suspects (PART): a load of many repeats (a history in
    two files) is better off with its key from there, as settling every repeat after it cost more
    than the key saves (bench/results/2026-12-05-stop51.txt). False once the key is back."""
    return SEEN is not None and len(SEEN.suspects) >= PART


def forget() -> None:
    global SEEN
    SEEN = None


@dataclass(slots=True)
class Copy:
    """One row of an event its load stored more than once."""

    pk: int
    sha256: str
    digest: int
    source_id: int
    occurrences: int
    position: tuple[int, int, int, int]  # order_rank, order_generation, order_offset, order_index

    @property
    def place(self) -> tuple[int, int, int]:
        return (self.source_id, self.position[2], self.position[3])


COLUMNS = (
    "id, sha256, digest, source_id, occurrences, order_rank, order_generation, order_offset, order_index"
)


# The digests settled at a time: each part is a scan of the table, and its rows are all that is held
# (a history whose every line is in two files settles in parts of at most about twice this many rows).
PART = 20_000


def settle(suspects: list[int] | None = None) -> int:
    """Make one event of each line's rows a load stored more than once; the number of lines that
    turned out to be duplicates. `suspects`: the digests that may repeat (the load's `Seen`, when
    this process ran it), else the digests two rows hold, counted. Run inside the transaction that
    builds the key, once the events' other indexes are back (a place is looked up by
    event_source_place)."""
    table = connection.ops.quote_name(WaysEvent._meta.db_table)
    if suspects is None:
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT digest FROM {table} WHERE digest IS NOT NULL GROUP BY digest HAVING count(*) > 1"
            )
            suspects = [digest for (digest,) in cursor.fetchall()]
    # A line's rows all hold its digest, so each part settles whole lines (and whole collisions).
    return sum(settle_part(part) for part in batched(sorted(set(suspects)), PART))


def settle_part(digests: tuple[int, ...]) -> int:
    """`settle` for the rows that hold one of these digests (one scan of the table, the digests in a
    lookup of their own)."""
    table = connection.ops.quote_name(WaysEvent._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {COLUMNS} FROM {table} WHERE digest IN (SELECT value FROM json_each(%s)) ORDER BY id",
            [json.dumps(digests)],
        )
        found = [Copy(*row[:5], tuple(row[5:])) for row in cursor.fetchall()]
    by_sha: dict[str, list[Copy]] = defaultdict(list)
    for copy in found:
        by_sha[copy.sha256].append(copy)
    keyed: dict[int, str] = {}  # digest → the line whose event keeps it (the first stored)
    changed: list[Copy] = []
    unkeyed: list[int] = []  # events of a line whose digest another line's event keeps
    gone: list[Copy] = []
    vacated: list[tuple[tuple[int, int, int], Copy]] = []  # a place an event left, with the copy it went to
    for sha, copies in by_sha.items():
        event = copies[0]
        if keyed.setdefault(event.digest, sha) != sha:
            unkeyed.append(event.pk)
        if len(copies) == 1:
            continue  # its digest is another line's: stored without one, as event_rows.settle stores it
        for copy in copies[1:]:
            if copy.source_id == event.source_id:
                event.occurrences += copy.occurrences  # each line of it a genuine repeat
            elif copy.position < event.position:
                vacated.append((event.place, copy))
                event.source_id, event.position = copy.source_id, copy.position
                event.occurrences += copy.occurrences - 1  # its batch's other lines repeat it there
            gone.append(copy)
        changed.append(event)
    duplicates = lines_left(gone)
    raw = raw_lengths([copy.place for copy in gone])
    write(changed, unkeyed, gone, duplicates, vacated, raw)
    return len(duplicates)


def lines_left(gone: list[Copy]) -> list[tuple[int, int, int]]:
    """The places of the copies whose line no event read from it is left of (a line of several
    records is imported still while one of them is new); each line once."""
    places = {copy.place for copy in gone}
    gone_pks = {copy.pk for copy in gone}
    found = rows_at(WaysEvent, ("order_offset", "order_index"), "id", places)
    kept = {place for place, pk in found if pk not in gone_pks}
    return sorted(places - kept)


def raw_lengths(places: list[tuple[int, int, int]]) -> dict[tuple[int, int, int], int]:
    """The RawLine rows at these places (each line the writer did not place: `Seen`), by place: their
    lengths."""
    return dict(rows_at(RawLine, ("offset", "index"), "length", places))


def rows_at(model, at: tuple[str, str], column: str, places) -> list[tuple[tuple[int, int, int], object]]:
    """(place, `column`) of `model`'s rows at these places (source id, then the `at` columns: offset
    and index), each looked up by its own place in the index that starts with them: every line of a
    gzip member shares its offset, so a look-up by offset would read the whole member."""
    q = connection.ops.quote_name
    offset, index = map(q, at)
    part = ", ".join(f"json_extract(p.value, '$[{i}]')" for i in range(3))
    sql = (
        f"SELECT {part}, t.{q(column)} FROM json_each(%s) AS p CROSS JOIN {q(model._meta.db_table)} AS t "
        f"WHERE t.source_id = json_extract(p.value, '$[0]') AND t.{offset} = json_extract(p.value, '$[1]') "
        f"AND t.{index} = json_extract(p.value, '$[2]')"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [json.dumps(sorted(places))])
        return [(tuple(row[:3]), row[3]) for row in cursor.fetchall()]


def length_of(place: tuple[int, int, int], raw: dict, pk: int) -> int:
    """A line's length from its RawLine row; where it has none (a line placed by a second importer that
    ran without the lock and noted nothing: lock.py), the bytes of the event's line, which its row
    keeps but for a CRLF file's CR."""
    if place in raw:
        return raw[place]
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT length(CAST(raw AS BLOB)) FROM {connection.ops.quote_name(WaysEvent._meta.db_table)} "
            "WHERE id = %s",
            [pk],
        )
        return cursor.fetchone()[0]


def write(
    changed: list[Copy],
    unkeyed: list[int],
    gone: list[Copy],
    duplicates: list[tuple[int, int, int]],
    vacated: list[tuple[tuple[int, int, int], Copy]],
    raw: dict[tuple[int, int, int], int],
) -> None:
    """The settled rows: the events kept moved or counted again, the copies deleted with their secret
    findings, their lines' RawLine rows and their sources' counts made those of duplicates."""
    q = connection.ops.quote_name
    events, lines = q(WaysEvent._meta.db_table), q(RawLine._meta.db_table)
    findings, sources = q(SecretFinding._meta.db_table), q(SourceFile._meta.db_table)
    by_pk = {copy.pk: copy for copy in gone}
    length = {copy.place: length_of(copy.place, raw, copy.pk) for copy in gone}
    with connection.cursor() as cursor:
        cursor.executemany(
            f"UPDATE {events} SET source_id = %s, occurrences = %s, order_rank = %s, order_generation = %s, "
            "order_offset = %s, order_index = %s WHERE id = %s",
            [(e.source_id, e.occurrences, *e.position, e.pk) for e in changed],
        )
        cursor.executemany(f"UPDATE {events} SET digest = NULL WHERE id = %s", [(pk,) for pk in unkeyed])
        # The place an event left is a line read all the same: its RawLine row now (none written where
        # it has one), of the copy's length, as event_rows.settle writes it.
        cursor.executemany(
            f'INSERT INTO {lines} (source_id, "offset", "index", sha256, length, outcome) '
            "VALUES (%s, %s, %s, %s, %s, 'imported') ON CONFLICT DO NOTHING",
            [(*place, copy.sha256, length[copy.place]) for place, copy in vacated],
        )
        cursor.executemany(f"DELETE FROM {events} WHERE id = %s", [(pk,) for pk in by_pk])
        sha_at = {copy.place: copy.sha256 for copy in gone}
        cursor.executemany(
            f'INSERT INTO {lines} (source_id, "offset", "index", sha256, length, outcome) '
            "VALUES (%s, %s, %s, %s, %s, 'duplicate') "
            'ON CONFLICT (source_id, "offset", "index") DO UPDATE SET outcome = \'duplicate\'',
            [(*place, sha_at[place], length[place]) for place in duplicates],
        )
        cursor.executemany(
            f'DELETE FROM {findings} WHERE place = %s AND source_id = %s AND "offset" = %s AND "index" = %s',
            [(SecretFinding.Place.EVENT, *place) for place in duplicates],
        )
        per_source: dict[int, int] = defaultdict(int)
        for source_id, _, _ in duplicates:
            per_source[source_id] += 1
        cursor.executemany(
            f"UPDATE {sources} SET imported = imported - %s, duplicate = duplicate + %s WHERE id = %s",
            [(n, n, source_id) for source_id, n in per_source.items()],
        )
