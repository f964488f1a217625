"""Turns and their `fired_ways` rows as written by a rebuild and by a tail extension alike."""

from __future__ import annotations

import functools
import operator
from bisect import bisect_right
from datetime import UTC, datetime
from operator import add, attrgetter, itemgetter, methodcaller

from django.db import connection
from django.db.models import Q

from introspect.models import Session, Turn, TurnWay
from introspect.rules import join
from introspect.rules import turns as turn_model
from lib import bulk

TURN_FIELDS = (
    "session_id",
    "epoch",
    "window",
    "ts_raw",
    "ts",
    "token_position",
    "join_confidence",
    "join_reason",
    "transcript_uuid",
    "prompt_entry_id",
    "context_entry_id",
    "nearest_prompt_id",
)
TURN_WAY_FIELDS = (
    "turn_id",
    "position",
    "event_id",
    "judge_event_id",
    "way_id",
    "trigger_channel",
    "gated",
    "suppressed",
    "redisclosed",
    "fire_score",
    "matched_span",
)


TS_AT = TURN_FIELDS.index("ts")
BEFORE_TS, AFTER_TS = itemgetter(slice(TS_AT)), itemgetter(slice(TS_AT + 1, None))
TZINFO = attrgetter("tzinfo")
NAIVE = methodcaller("replace", tzinfo=None)


def utc_text(value: datetime) -> str:
    """An aware datetime as SQLite stores it: its naive UTC text (bulk._sqlite_utc_converter's
    `str(value.replace(tzinfo=None))`; `isoformat` writes the same digits, then the offset)."""
    if value.tzinfo is UTC:
        return value.isoformat(" ")[:-6]
    return str(value.astimezone(UTC).replace(tzinfo=None))


def utc_texts(values: list[datetime]) -> list[str]:
    """`utc_text` of each value; when all are in UTC (every stamp read back is) in C, without a
    Python call a value: `str` of the naive value, as bulk._sqlite_utc_converter writes it."""
    if set(map(TZINFO, values)) <= {UTC}:
        return list(map(str, map(NAIVE, values)))
    return list(map(utc_text, values))


def with_stored_stamps(turns: list[tuple]) -> list[tuple]:
    """Turns (TURN_FIELDS values, as `turn_row` makes them) with their stamp as the database stores
    it where that is text (bulk.stores_utc_text: SQLite), in C. The planner converts its turns before
    handing them over (derive/planner.py): a text pickles in half the bytes of an aware datetime and
    the writer then converts nothing; turns converted already are returned as they are."""
    if not turns or type(turns[0][TS_AT]) is str or not bulk.stores_utc_text(Turn):
        return turns
    texts = utc_texts(list(map(itemgetter(TS_AT), turns)))
    return list(map(add, map(add, map(BEFORE_TS, turns), zip(texts)), map(AFTER_TS, turns)))


def pk_of(row) -> int | None:
    return row.pk if row is not None else None


def turn_row(
    session_id: int,
    epoch: int,
    window: int,
    turn: turn_model.TurnData,
    joined: join.Join,
    *,
    prompt_entry,
    nearest_prompt,
) -> tuple:
    """One turn's values, in TURN_FIELDS order."""
    injection = joined.injection
    return (
        session_id,
        epoch,
        window,
        turn.ts_raw,
        turn.ts,
        turn.token_position,
        joined.confidence,
        joined.reason,
        joined.user_uuid,
        None if prompt_entry is None else prompt_entry.pk,
        None if injection is None else injection.pk,
        None if nearest_prompt is None else nearest_prompt.pk,
    )


def write_turns(session: Session, turns: list[tuple], built: list[turn_model.TurnData]) -> None:
    """Insert turns (values of TURN_FIELDS, in epoch order) and each one's `fired_ways` rows."""
    write_turns_of([(session, turns, built)])


def write_turns_of(groups: list[tuple[Session, list[tuple], list[turn_model.TurnData]]]) -> None:
    """`write_turns` for many sessions."""
    write_planned([(session, turns, way_values(built)) for session, turns, built in groups])


def way_values(built: list[turn_model.TurnData]) -> list[list[tuple]]:
    """Each turn's `fired_ways` rows as TURN_WAY_FIELDS values without the turn: plain values, which
    a derive planned in another process (derive/planner.py) hands over as they are. A way's id and
    channel are one object each across the rows: the planner's pickle then names a repeat by
    reference (a session's 600,000 rows have a few hundred distinct ids), and the writer makes one
    string where it made one a row."""
    names: dict[str, str] = {}
    one = names.setdefault
    return [
        [
            (
                position,
                row.event.pk,
                None if row.judge_event is None else row.judge_event.pk,
                one(row.way_id, row.way_id),
                one(row.trigger_channel, row.trigger_channel),
                row.gated,
                row.suppressed,
                row.redisclosed,
                row.fire_score,
                row.matched_span,
            )
            for position, row in enumerate(turn.rows, start=1)
        ]
        for turn in built
    ]


def write_planned(groups: list[tuple[Session, list[tuple], list[list[tuple]]]]) -> None:
    """Many sessions' turns (values of TURN_FIELDS, in epoch order) and each turn's `fired_ways` rows
    (`way_values`): one insert of every turn, one read of their ids, one insert of every row."""
    groups = [group for group in groups if group[1]]
    if not groups:
        return
    # Plain tuples through bulk.insert_rows: only the stamp is converted (the per-value conversion of
    # insert_values cost more than the rows' writing; a COPY on PostgreSQL). No conflict is
    # possible: the session's turns from the first epoch written on were deleted in this transaction.
    # The stamp as SQLite stores it (bulk.stores_utc_text), converted by the planner already or here.
    values = [values for _, turns, _ in groups for values in with_stored_stamps(turns)]
    ready = frozenset({"ts"}) if bulk.stores_utc_text(Turn) else frozenset()
    bulk.insert_rows(bulk.Rows(Turn, TURN_FIELDS, values, ready=ready), ignore_conflicts=False)
    # From each session's first epoch written: a tail extension keeps the turns before it. A rebuild
    # writes from the first: those sessions in one IN list.
    whole = [session.pk for session, turns, _ in groups if turns[0][1] <= 1]
    tails = [
        Q(session_id=session.pk, epoch__gte=turns[0][1]) for session, turns, _ in groups if turns[0][1] > 1
    ]
    written = functools.reduce(operator.or_, ([Q(session_id__in=whole)] if whole else []) + tails)
    ids = {
        (session_id, epoch): pk
        for session_id, epoch, pk in bulk.fetch_rows(
            Turn.objects.filter(written).values_list("session_id", "epoch", "id")
        )
    }
    rows = bulk.Rows(
        TurnWay,
        TURN_WAY_FIELDS,
        [
            (turn_id, *way)
            for _, turns, ways in groups
            for values, of_turn in zip(turns, ways, strict=True)
            for turn_id in (ids[values[0], values[1]],)  # its session id and epoch
            for way in of_turn
        ],
    )
    bulk.insert_rows(rows, ignore_conflicts=False)


def delete_turns(ids: list[int]) -> None:
    """Turns and their `fired_ways` rows, by turn id: two statements (a queryset's delete reads the
    turns first, to cascade to the rows deleted here already)."""
    if not ids:
        return
    quote = connection.ops.quote_name
    marks = ", ".join(["%s"] * len(ids))
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {quote(TurnWay._meta.db_table)} WHERE turn_id IN ({marks})", ids)
        cursor.execute(f"DELETE FROM {quote(Turn._meta.db_table)} WHERE id IN ({marks})", ids)


def window_of(ts_raw: str, starts: list[str]) -> int:
    """The compaction window a moment falls in: how many session_starts came at or before it."""
    return Windows(starts).of(ts_raw)


class Windows:
    """`window_of` for many moments: the dated starts sorted once, each moment a bisect (a count
    of the starts at or before it), not a pass over every start."""

    def __init__(self, starts: list[str]):
        self.bounds = sorted(start for start in starts if start)
        self.one = len(self.bounds) <= 1  # every moment in window 1 (most sessions: one start)

    def of(self, ts_raw: str) -> int:
        return 1 if self.one else max(1, bisect_right(self.bounds, ts_raw))
