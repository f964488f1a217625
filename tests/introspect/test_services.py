"""The introspection writes: a viewer's last-seen mark."""

from __future__ import annotations

import pytest

from introspect import services
from introspect.models import SeenMark, Session
from lib.viewers import Viewer

pytestmark = pytest.mark.django_db


def test_it_writes_a_first_mark_and_moves_it_on(django_assert_num_queries):
    session = Session.objects.create(sid="s1")
    viewer = Viewer(browser="b" * 24)
    with django_assert_num_queries(1):
        services.seen_mark_move(session=session, viewer=viewer, current=None, position=(10, 0), turns=2)
    mark = SeenMark.objects.get()
    assert (mark.position, mark.turns, mark.browser, mark.user) == ((10, 0), 2, "b" * 24, None)
    with django_assert_num_queries(1):
        services.seen_mark_move(session=session, viewer=viewer, current=mark, position=(20, 1))
    mark.refresh_from_db()
    assert (mark.position, mark.turns) == ((20, 1), 2)  # turns not given: kept


def test_it_does_not_write_an_unchanged_mark(django_assert_num_queries):
    session = Session.objects.create(sid="s1")
    viewer = Viewer(browser="b" * 24)
    services.seen_mark_move(session=session, viewer=viewer, current=None, position=(10, 0), turns=2)
    mark = SeenMark.objects.get()
    with django_assert_num_queries(0):
        services.seen_mark_move(session=session, viewer=viewer, current=mark, position=(10, 0), turns=2)


def test_it_keeps_one_mark_when_two_first_visits_race():
    session = Session.objects.create(sid="s1")
    viewer = Viewer(browser="b" * 24)
    services.seen_mark_move(session=session, viewer=viewer, current=None, position=(10, 0))
    services.seen_mark_move(session=session, viewer=viewer, current=None, position=(10, 0))
    assert SeenMark.objects.count() == 1
