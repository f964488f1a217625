"""A session's fire turns (introspect/queries/fire_turns.py): a page of turns from an epoch or after a
cursor, the near-misses placed in the turn whose scan they belong to, and the compaction windows the
scrubber and the context gauge read."""

from __future__ import annotations

import pytest

from introspect.models import Session
from introspect.queries import fire_turns
from tests.introspect.views.test_sessions import long_session

pytestmark = pytest.mark.django_db


def test_a_page_of_turns_starts_at_an_epoch_or_after_the_live_cursor(home):
    long_session(home, 5, sid="page")
    session = Session.objects.get(sid="page")

    assert [turn.epoch for turn in fire_turns.turns_page(session, start=2, size=2)] == [2, 3]
    assert [turn.epoch for turn in fire_turns.turns_page(session, after=3)] == [4, 5]
    [first] = fire_turns.turns_page(session, start=1, size=1)
    assert [row.way_id for row in first.ways.all()] == ["d/w0"]  # its rows come with it


def test_each_near_miss_sits_in_the_turn_whose_scan_it_belongs_to(home):
    long_session(home, 3, sid="near")  # a near-miss beside each fire
    session = Session.objects.get(sid="near")
    turns = fire_turns.turns_page(session, start=1)

    placed = fire_turns.near_misses_by_turn(session, turns)

    assert {turn.epoch: [miss.way for miss in placed[turn.pk]] for turn in turns} == {
        1: ["d/near"],
        2: ["d/near"],
        3: ["d/near"],
    }
    assert fire_turns.near_misses_by_turn(session, []) == {}  # nothing to place: no query


def test_the_windows_count_their_turns_and_the_gauge_reads_the_largest_context_position(home):
    long_session(home, 4, sid="windows")  # one window; token positions 0, 1000, 2000, 3000
    session = Session.objects.get(sid="windows")

    [window] = fire_turns.window_spans(session)

    assert (window.first_turn, window.last_turn, window.turns, window.peak) == (1, 4, 4, 3000)
    assert window.link == "?from=1#turn-1"
    assert fire_turns.peak_context([window]) == 3000
    assert fire_turns.peak_context([]) == 0  # none recorded
