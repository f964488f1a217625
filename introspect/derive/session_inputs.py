"""Which imported rows a session is derived from: its events in event order, its trunk transcript."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from functools import partial
from operator import add, itemgetter
from typing import NamedTuple

from django.db import connection
from django.db.models import Case, F, Max, QuerySet, TextField, Value, When

from introspect.models import Session, SourceFile, TranscriptEntry, WaysEvent
from introspect.rules import join
from lib import bulk, linepack, stamps

# formats-agent-ways.md §2.3 rule 4: ts, then the lowest (rank, generation, offset, index).
EVENT_ORDER = (
    F("ts_raw").asc(nulls_first=True),
    "order_rank",
    "order_generation",
    "order_offset",
    "order_index",
)


def events_in_order(session: Session) -> list[WaysEvent]:
    """The session's events in event order (formats-agent-ways.md §2.3 rule 4)."""
    return list(WaysEvent.objects.filter(session=session).order_by(*EVENT_ORDER))


class DeriveEvent(NamedTuple):
    """The columns of an event that the derivation reads (rules/turns.py, derive/fields.py), as a
    tuple: a 5,000-turn session's events are read in a tenth of the time model instances take."""

    pk: int
    event: str | None
    way: str | None
    trigger: str | None
    ts_raw: str | None
    ts: datetime | None
    fire_score: float | None
    matched_span: str | None
    token_position: int | None
    reason: str | None
    verdict: str | None
    p_yes: float | None
    threshold: float | None
    occurrences: int
    project: str | None
    model: str | None
    order_rank: int
    order_generation: int
    order_offset: int
    order_index: int
    raw: str  # only a way_judged event's (judge_fields reads it); '' for every other


TS_AT = DeriveEvent._fields.index("ts")
# A row of events_of: the session id, then DeriveEvent's columns (its stamp as read).
ROW_SESSION = itemgetter(0)
ROW_BEFORE_TS = itemgetter(slice(1, TS_AT + 1))
ROW_TS = itemgetter(TS_AT + 1)
ROW_AFTER_TS = itemgetter(slice(TS_AT + 2, None))


def derive_event_columns() -> tuple:
    """The columns of DeriveEvent, its stamp as the database reads it fastest (lib/stamps.py)."""
    return (
        "id",
        *(stamps.column(name) if name == "ts" else name for name in DeriveEvent._fields[1:-1]),
        Case(When(event="way_judged", then=F("raw")), default=Value(""), output_field=TextField()),
    )


def derive_event(row: Sequence, parse: Callable | None) -> DeriveEvent:
    """One row of `derive_event_columns` as a DeriveEvent, its stamp parsed where it was read as text."""
    if parse is None:
        return DeriveEvent._make(row)
    row = list(row)
    row[TS_AT] = parse(row[TS_AT])
    return DeriveEvent._make(row)


# Rows of any session stored after a session's last build, up to which its appended rows are found
# by the id range; past it, by the session's index (its ids are in it: an index-only read). A
# follower derives every session each pass touched, so what came after one's last build is the
# last few lines; the session's index reads every row the session has (20,000 events of a long
# session on every append; issue 29), but only its index, where the id range would read whole rows.
RECENT_ROWS = 20_000
# Appended rows read by their ids up to this many; more (a long tail, rare) by the session and the
# id bound, whatever the database's limit on bound parameters.
BY_IDS = 500
NEWEST = "SELECT MAX(id) FROM {table}"
APPENDED = "SELECT id FROM {table} WHERE id > %s AND {session} = %s ORDER BY id{limit}"


def appended_ids(model: type, session: Session, after: int, *, limit: int | None = None) -> list[int]:
    """The ids of the session's rows of `model` (WaysEvent, TranscriptEntry) above `after`, in id
    order, at most `limit`. Few rows after it: the id range (the unary plus keeps both databases
    off the session's index); many: the session's index."""
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(NEWEST.format(table=table))
        (newest,) = cursor.fetchone()
        if newest is None or newest <= after:
            return []
        cursor.execute(
            APPENDED.format(
                table=table,
                session="+session_id" if newest - after <= RECENT_ROWS else "session_id",
                limit="" if limit is None else f" LIMIT {int(limit)}",
            ),
            [after, session.pk],
        )
        return [pk for (pk,) in cursor.fetchall()]


def appended_rows(rows, ids: list[int], after: int):
    """`rows` (a queryset of one session's rows) narrowed to the appended ones `appended_ids` found."""
    return rows.filter(pk__in=ids) if len(ids) <= BY_IDS else rows.filter(pk__gt=after)


def derive_events(session: Session, *, after: int = 0) -> list[DeriveEvent]:
    """`events_in_order` as DeriveEvent tuples; with `after`, only those with a larger id."""
    rows = WaysEvent.objects.filter(session=session)
    if after:
        ids = appended_ids(WaysEvent, session, after)
        if not ids:
            return []
        rows = appended_rows(rows, ids, after)
    parse = stamps.reader()
    return [
        derive_event(row, parse) for row in rows.order_by(*EVENT_ORDER).values_list(*derive_event_columns())
    ]


class TrunkLine(NamedTuple):
    """The columns of a trunk line that the derivation reads (rules/join.py, derive/fields.py)."""

    pk: int
    type: str
    subtype: str
    uuid: str
    parent_uuid: str
    timestamp_raw: str
    ts: datetime | None
    version: str
    cwd: str
    model: str | None
    hook_event: str
    is_prompt: bool
    text: str  # only a prompt's; '' for every other line
    has_usage: bool
    input_tokens: int | None
    cache_read_input_tokens: int | None
    cache_creation_input_tokens: int | None
    raw: bytes  # only a compact_boundary's (compaction_marks reads its metadata); b'' otherwise
    raw_compressed: bool

    @property
    def line(self) -> bytes:
        return linepack.unpack(self.raw, self.raw_compressed)


def in_file_order(
    rows: QuerySet, columns: Sequence, size: int, *, after: tuple[int, int] | None = None
) -> Iterator[list[tuple]]:
    """`columns` of one file's `rows` in file order, `size` at a time, from position `after` on (itself
    included): a session of months holds hundreds of thousands of lines, never all held at once.
    The last two columns must be the line's offset and index: each page starts where the last ended,
    a range on the unique (source, offset, index) index."""
    rows = rows.order_by("offset", "index")
    page = (
        rows
        if after is None
        else rows.filter(offset__gte=after[0]).exclude(offset=after[0], index__lt=after[1])
    )
    while chunk := list(page.values_list(*columns)[:size]):
        yield chunk
        if len(chunk) < size:
            return  # the last chunk: no query to find nothing after it
        offset, index = chunk[-1][-2:]
        page = rows.filter(offset__gte=offset).exclude(offset=offset, index__lte=index)


def locate_trunk(sid: str, project: str) -> SourceFile | None:
    """introspection.md §4.1: the project's slug folder first, else the first folder holding the file.

    Like agent-ways, an id that would leave its folder when joined to a path (`/`, `..`) has none.
    """
    if not joinable(sid):
        return None
    rows = SourceFile.objects.filter(kind=SourceFile.Kind.TRANSCRIPT, session_key=sid).order_by("generation")
    return pick_trunk(sid, project, rows)


def joinable(sid: str) -> bool:
    return bool(sid) and "/" not in sid and "\\" not in sid and sid != ".."


def pick_trunk(sid: str, project: str, rows: Iterable[SourceFile]) -> SourceFile | None:
    """`locate_trunk` over the session's trunk files (kind transcript), read already, by generation."""
    if not joinable(sid):
        return None
    candidates = {}
    for row in rows:
        candidates[row.rel_path] = row  # the newest generation of each path
    if not candidates:
        return None
    if project:
        slug = join.project_slug(project)
        wanted = f"{slug}/{sid}.jsonl"
        if wanted in candidates:
            return candidates[wanted]
        if len(slug) > 200:
            prefixed = [path for path in candidates if path.startswith(slug[:200] + "-")]
            if len(prefixed) == 1:
                return candidates[prefixed[0]]
    first = min(candidates, key=lambda path: path.split("/")[0])
    return candidates[first]


def transcript_files_of(sids: Iterable[str]) -> dict[str, list[SourceFile]]:
    """Every transcript file (trunks and subagents, all generations, oldest first) of these
    sessions, by session id, in one query."""
    found: dict[str, list[SourceFile]] = {}
    rows = SourceFile.objects.filter(kind__in=SourceFile.TRANSCRIPT_KINDS).order_by("generation", "pk")
    for row in bulk.chunked_in(rows, "session_key", set(sids)):
        found.setdefault(row.session_key, []).append(row)
    for group in found.values():
        group.sort(key=lambda row: (row.generation, row.pk))  # chunks come back in any order
    return found


def events_of(session_ids: Sequence[int]) -> dict[int, list[DeriveEvent]]:
    """`derive_events` of many sessions, in one query, by session pk; each event's `raw` is ''
    (a rebuild reads no verdict's line: rules/turns.py attach_verdicts without `verdicts`).

    The rows come from the driver in one `fetchall` (lib/bulk.py fetch_rows) and become DeriveEvents
    in C (`map`, `itemgetter`, `zip`): no Python call an event, of the million a cold import's
    derive reads (issue 29)."""
    found: dict[int, list[DeriveEvent]] = {}
    if not session_ids:
        return found
    rows = bulk.fetch_rows(
        WaysEvent.objects.filter(session_id__in=list(session_ids))
        .order_by("session_id", *EVENT_ORDER)
        .values_list("session_id", *derive_event_columns()[:-1], Value("", output_field=TextField()))
    )
    if not rows:
        return found
    stamps_read = list(map(ROW_TS, rows))
    if stamps.reader() is not None:
        stamps_read = stamps.parse_all(stamps_read)
    # Each event the row's columns after the session id, its stamp in place of the text read.
    columns = map(add, map(add, map(ROW_BEFORE_TS, rows), zip(stamps_read)), map(ROW_AFTER_TS, rows))
    events = list(map(partial(tuple.__new__, DeriveEvent), columns))
    owners = list(map(ROW_SESSION, rows))  # in session order: the rows are sorted by it
    for session_id in dict.fromkeys(owners):
        found[session_id] = events[bisect_left(owners, session_id) : bisect_right(owners, session_id)]
    return found


def top_entry_ids(session_ids: Sequence[int]) -> dict[int, int]:
    """The largest transcript-line id of each of these sessions that has any, in one query."""
    return dict(
        TranscriptEntry.objects.filter(session_id__in=list(session_ids))
        .values("session_id")
        .annotate(top=Max("id"))
        .values_list("session_id", "top")
    )


def trunk_entries(trunk: SourceFile | None) -> list[TranscriptEntry]:
    """Every line of the trunk file in file order, without the columns the derivation never reads."""
    if trunk is None:
        return []
    return list(
        TranscriptEntry.objects.filter(source=trunk).order_by("offset", "index").defer("raw", "cwd", "flags")
    )


def subagent_entries(files: Iterable[SourceFile]) -> list[TranscriptEntry]:
    """The lines of subagent files in time order (a session folder with no trunk: they are all it has)."""
    return list(
        TranscriptEntry.objects.filter(source__in=list(files))
        .order_by(F("ts").asc(nulls_last=True), "source_id", "offset", "index")
        .only("type", "ts", "cwd", "is_prompt", "text", "model")
    )
