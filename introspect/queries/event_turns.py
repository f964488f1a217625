"""Which turn each row of a session's event log belongs to, so the log can link to it.

Two kinds of answer, labelled apart (a heuristic join is never shown as keyed): a fire, a
re-disclosure or a withheld candidate, and the judge's verdict on it, is a row of its turn
(`TurnWay`), so its turn is known; any other event (a near-miss, a check, a session start) is placed
at the latest turn at or before its time, which is only the turn in progress by the clock. Both are
correlated subqueries on the log's own query: the page makes no query more, whatever its length.
"""

from __future__ import annotations

from django.db.models import OuterRef, Q, QuerySet, Subquery

from introspect.models import Turn, TurnWay


def with_turns(events: QuerySet) -> QuerySet:
    """`events` (WaysEvent rows of one session) with `fired_turn` (the epoch of the turn the event is
    a row of, or None) and `after_turn` (the latest turn at or before its ts, or None)."""
    # The judge's verdict that let a fire through is part of that fire's row too.
    fired = (
        TurnWay.objects.filter(Q(event=OuterRef("pk")) | Q(judge_event=OuterRef("pk")))
        .order_by("turn__epoch")
        .values("turn__epoch")[:1]
    )
    # Epochs grow with time inside a session: the newest epoch at or before ts is the turn in progress.
    before = (
        Turn.objects.filter(session=OuterRef("session"), ts__lte=OuterRef("ts"))
        .order_by("-epoch")
        .values("epoch")[:1]
    )
    return events.annotate(fired_turn=Subquery(fired), after_turn=Subquery(before))
