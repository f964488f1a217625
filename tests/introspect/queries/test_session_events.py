"""A session's event log (introspect/queries/session_events.py): every agent-ways event in event
order, those imported after a cursor for the live tail, and the cursor itself."""

from __future__ import annotations

import pytest

from introspect.models import Session, WaysEvent
from introspect.queries import session_events
from tests.introspect.views.test_sessions import long_session

pytestmark = pytest.mark.django_db


def test_the_log_holds_every_event_of_the_session_in_event_order(home):
    long_session(home, 2, sid="log")  # a start, then a fire and a near-miss a turn
    long_session(home, 1, sid="other")
    session = Session.objects.get(sid="log")

    page = session_events.events_for_session(session)

    assert [event.event for event in page.object_list] == [
        "session_start",
        "way_fired",
        "way_nearmiss",
        "way_fired",
        "way_nearmiss",
    ]
    assert page.paginator.per_page == session_events.EVENTS_PER_PAGE


def test_the_live_tail_reads_the_events_after_the_cursor_and_the_cursor_is_the_last_id(home):
    long_session(home, 2, sid="tail")
    session = Session.objects.get(sid="tail")
    ids = list(WaysEvent.objects.filter(session=session).order_by("pk").values_list("pk", flat=True))

    assert [event.pk for event in session_events.events_after(session, ids[2])] == ids[3:]
    assert session_events.events_after(session, ids[-1]) == []
    assert session_events.last_event_id(session) == ids[-1]


def test_a_session_without_events_has_cursor_zero(home):
    long_session(home, 1, sid="quiet")
    session = Session.objects.get(sid="quiet")
    WaysEvent.objects.filter(session=session).delete()

    assert session_events.last_event_id(session) == 0
