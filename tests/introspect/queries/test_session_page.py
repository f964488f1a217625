"""The session page's query (introspect/queries/session_page.py): what the viewer has not seen yet and
where the link to the first of it goes, and the fire-turn list's live tail."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from introspect.models import Session
from introspect.queries import conversation, session_page
from lib.viewers import Viewer
from tests.introspect.views.test_sessions import long_session

pytestmark = pytest.mark.django_db


def test_a_first_visit_has_no_seen_mark_and_costs_no_query(django_assert_num_queries):
    with django_assert_num_queries(0):
        assert session_page.seen_mark(SimpleNamespace(), Viewer(browser="fresh", new=True)) is None


def test_the_unseen_fire_turns_start_after_the_mark_and_link_to_their_page():
    session = SimpleNamespace(turn_count=5)
    on_page = [SimpleNamespace(epoch=epoch) for epoch in (3, 4, 5)]

    assert session_page.unseen_turns(session, on_page, since=5) is None  # all seen
    here = session_page.unseen_turns(session, on_page, since=2)
    assert (here.count, here.since, here.place, here.first_turn, here.jump) == (3, "2", None, 3, "#new-since")
    elsewhere = session_page.unseen_turns(session, on_page[1:], since=2)
    assert elsewhere.place == (3, 0)
    assert elsewhere.jump == "?view=fires&from=3&seen_turns=2#new-since"


def test_unseen_entries_on_another_page_link_to_it_carrying_the_mark():
    unseen = session_page.Unseen(count=4, since="120.3", place=(7, 2))

    assert unseen.jump == "?turn=7&part=2&seen=120.3#new-since"


def test_the_fire_turn_tail_redraws_the_last_known_turn_and_moves_the_cursor(home):
    long_session(home, 4, sid="live")
    session = Session.objects.get(sid="live")

    tail = session_page.session_live_tail(session, after=3)

    assert [turn.epoch for turn in tail["turns"]] == [3, 4]  # turn 3 again: it may have grown
    assert (tail["mode"], tail["live_after"], tail["fire_cursor"]) == ("fires", 3, 4)
    assert session_page.session_live_tail(session, after=4)["fire_cursor"] == 4
    assert (
        "links" not in tail
    )  # a fragment: the header it drew for a whole page is the page's (views/session_live.py)


def test_the_conversation_tail_from_the_top_brings_the_whole_conversation_and_its_cursor(home):
    long_session(home, 2, sid="talk")
    session = Session.objects.get(sid="talk")

    tail = session_page.session_conversation_tail(session, after=(-1, 0), fire_after=0)

    last = conversation.conversation_entries(session).last()
    assert tail["cursor"] == f"{last.offset}.{last.index}" and "links" not in tail
    assert [item.turn_start for item in tail["items"] if item.turn_start] == [1, 2]
