"""A session's turn counters (turns.summarise's) kept up to date by what an extension changed.

A whole rebuild counts every turn (turns.summarise). An extension replaces the session's last turn
with the turns its tail makes, and joins a few turns again; recounting all of a 5,000-turn
session's turn rows for that was a tenth of a followed append (issue 29). Here the counters move
by the difference between the turns taken out and those put in. The one counter that is not a sum,
the distinct ways fired, asks the database only about the ways fired on one side and not the
other, newest turn first, so the answer is usually one of the last turns read.

`recount` is the whole count, as the database gives it: the reference the tests hold the
difference to (tests/introspect/derive/test_turn_counts.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import connection
from django.db.models import Count, Q

from introspect.models import Session, Turn, TurnWay
from introspect.rules import turns as turn_model

# turns.summarise's fire: an injected row that is not a re-disclosure.
FIRE = Q(gated=False, suppressed="", redisclosed=False)


@dataclass
class Tally:
    """The counters of some turns, and the ways fired in them."""

    turns: int = 0
    keyed: int = 0
    fires: int = 0
    redisclosed: int = 0
    gated: int = 0
    suppressed: int = 0
    judge: int = 0
    ways: set[str] = field(default_factory=set)

    def add_row(self, way_id: str, gated: bool, suppressed: str, redisclosed: bool) -> None:
        if not gated and not suppressed and not redisclosed:
            self.fires += 1
            self.ways.add(way_id)
        self.redisclosed += bool(redisclosed)
        self.gated += bool(gated)
        self.suppressed += bool(suppressed)
        self.judge += suppressed == "judge"


def built(turns: Iterable[turn_model.TurnData], confidences: Iterable[str]) -> Tally:
    """The tally of turns about to be written: their rows, and each one's join confidence."""
    tally = Tally()
    for turn, confidence in zip(turns, confidences, strict=True):
        tally.turns += 1
        tally.keyed += confidence == Turn.Join.KEYED
        for row in turn.rows:
            tally.add_row(row.way_id, row.gated, row.suppressed, row.redisclosed)
    return tally


def stored(session: Session, from_epoch: int) -> tuple[list[int], Tally]:
    """The ids and the tally of the session's turns from `from_epoch` on, as stored (one query)."""
    rows = (
        Turn.objects.filter(session=session, epoch__gte=from_epoch)
        .order_by("epoch")
        .values_list(
            "pk", "join_confidence", "ways__way_id", "ways__gated", "ways__suppressed", "ways__redisclosed"
        )
    )
    ids: list[int] = []
    tally = Tally()
    for pk, confidence, way_id, gated, suppressed, redisclosed in rows:
        if not ids or ids[-1] != pk:
            ids.append(pk)
            tally.turns += 1
            tally.keyed += confidence == Turn.Join.KEYED
        if way_id is not None:  # a turn without rows (none are written, but the join allows it)
            tally.add_row(way_id, gated, suppressed, redisclosed)
    return ids, tally


def rejoined(before: Iterable[str], after: Iterable[str]) -> Tally:
    """The keyed counter's move when turns are joined again: their confidences before and after."""
    return Tally(keyed=sum(c == Turn.Join.KEYED for c in after) - sum(c == Turn.Join.KEYED for c in before))


def apply(session: Session, gone: Tally, put: Tally, *, replaced_from: int | None = None) -> None:
    """Move the session's counters from a state that counted `gone` to one that counts `put`
    instead: the turns from epoch `replaced_from` on replaced by others, or (None) the same turns
    counted again, their ways unchanged."""
    session.turn_count += put.turns - gone.turns
    session.keyed_turns += put.keyed - gone.keyed
    session.total_fires += put.fires - gone.fires
    session.redisclosures += put.redisclosed - gone.redisclosed
    session.gated += put.gated - gone.gated
    session.suppressed += put.suppressed - gone.suppressed
    session.judge_blocked += put.judge - gone.judge
    only = gone.ways ^ put.ways  # a way on both sides is counted before and after alike
    if only:
        assert replaced_from is not None, "ways change only when turns are replaced"
        kept = fired_before(session, replaced_from, only)
        session.distinct_ways += len((put.ways - gone.ways) - kept) - len((gone.ways - put.ways) - kept)


# Whether a way fired in the session's turns before an epoch: the turns read newest first by the
# (session, epoch) key, each one's rows by turn. CROSS JOIN keeps SQLite to that order (without
# statistics it may start from every row of the way, in every session); PostgreSQL plans it by its
# own. A way the session fired lately is found within a few turns; only a way it never fired
# reads them all, once.
FIRED_BEFORE = """
    SELECT 1 FROM {turn} t CROSS JOIN {turnway} w
    WHERE t.session_id = %s AND t.epoch < %s AND w.turn_id = t.id AND w.way_id = %s
      AND w.gated = %s AND w.suppressed = '' AND w.redisclosed = %s
    ORDER BY t.epoch DESC LIMIT 1
"""


def fired_before(session: Session, epoch: int, ways: Iterable[str]) -> set[str]:
    """Those of `ways` fired in the session's turns before `epoch`."""
    quote = connection.ops.quote_name
    sql = FIRED_BEFORE.format(turn=quote(Turn._meta.db_table), turnway=quote(TurnWay._meta.db_table))
    found = set()
    with connection.cursor() as cursor:
        for way in sorted(ways):
            cursor.execute(sql, [session.pk, epoch, way, False, False])
            if cursor.fetchone() is not None:
                found.add(way)
    return found


def recount(session: Session) -> None:
    """Every counter counted again by the database over all the session's stored turn rows."""
    counts = TurnWay.objects.filter(turn__session=session).aggregate(
        n_fires=Count("id", filter=FIRE),
        n_ways=Count("way_id", filter=FIRE, distinct=True),
        n_redisclosed=Count("id", filter=Q(redisclosed=True)),
        n_gated=Count("id", filter=Q(gated=True)),
        n_suppressed=Count("id", filter=~Q(suppressed="")),
        n_judge=Count("id", filter=Q(suppressed="judge")),
    )
    session.total_fires, session.distinct_ways = counts["n_fires"], counts["n_ways"]
    session.redisclosures, session.gated = counts["n_redisclosed"], counts["n_gated"]
    session.suppressed, session.judge_blocked = counts["n_suppressed"], counts["n_judge"]
    turn_counts = Turn.objects.filter(session=session).aggregate(
        turns=Count("id"), keyed=Count("id", filter=Q(join_confidence=Turn.Join.KEYED))
    )
    session.turn_count, session.keyed_turns = turn_counts["turns"], turn_counts["keyed"]
