"""A rebuild reads many sessions' events at once (session_inputs.events_of) as each session's own
read gives them (derive_events), only the verdicts' lines left unread."""

from __future__ import annotations

import pytest

from introspect.derive import session_inputs
from introspect.models import Session, WaysEvent

pytestmark = pytest.mark.django_db


def test_the_events_of_many_sessions_are_each_sessions_own_in_event_order(sample):
    sessions = list(Session.objects.filter(events__isnull=False).distinct().order_by("pk"))
    assert len(sessions) > 3
    found = session_inputs.events_of([session.pk for session in sessions])
    assert sorted(found) == [session.pk for session in sessions]
    for session in sessions:
        own = [event._replace(raw="") for event in session_inputs.derive_events(session)]
        assert found[session.pk] == own
        assert all(type(event) is session_inputs.DeriveEvent for event in found[session.pk])
        # Equal stamps compare equal across offsets: the stamp read is the same UTC datetime.
        assert [str(event.ts) for event in found[session.pk]] == [str(event.ts) for event in own]
    assert sum(map(len, found.values())) == WaysEvent.objects.filter(session__in=sessions).count()


def test_no_session_and_sessions_without_events_read_nothing(sample):
    assert session_inputs.events_of([]) == {}
    bare = Session.objects.create(sid="no-events")
    assert session_inputs.events_of([bare.pk]) == {}
