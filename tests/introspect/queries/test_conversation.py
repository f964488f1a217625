"""The conversation's spine (queries/conversation.py): the live tail's fire turns that belong to a
prompt the page already shows, and the one preparation every stretch of spine goes through."""

from __future__ import annotations

import pytest

from introspect.models import Session
from introspect.queries import conversation
from tests.introspect.views.test_sessions import long_session

pytestmark = pytest.mark.django_db


def test_the_tail_draws_a_new_fire_turn_of_a_prompt_already_shown_after_that_prompt(home):
    long_session(home, 4, sid="tail")  # prompt, hook context, reply a turn; a keyed fire turn each
    session = Session.objects.get(sid="tail")
    prompts = list(conversation.trunk_prompts(session))
    # The page showed turn 3 up to its prompt and fire turns 1-2: fire turn 3 is keyed to that prompt.
    tail = conversation.conversation_tail(session, after=(prompts[2].offset, prompts[2].index), fire_after=2)
    later = {item.fire.epoch: item.after_uuid for item in tail["keyed_earlier"]}
    assert later == {3: prompts[2].uuid}
    # Fire turn 4 is keyed to a prompt of the tail itself: it goes on the tail's spine, after it.
    on_spine = [item.fire.epoch for item in tail["items"] if item.fire is not None]
    assert on_spine == [4] and [turn.epoch for turn in tail["replaced"]] == [2]


def test_a_stretch_without_tool_calls_is_drawn_whole_and_each_entry_prepared_for_display(home):
    long_session(home, 2, sid="plain")
    session = Session.objects.get(sid="plain")
    items = [conversation.Item(entry=entry) for entry in conversation.conversation_entries(session)]
    drawn = conversation.prepare_spine(session.transcript_id, items)
    assert [item.entry.pk for item in drawn] == [item.entry.pk for item in items]  # no tool call: all drawn
    assert [item.card.entry for item in drawn] == [item.entry for item in drawn]  # prepared for display
    assert all(item.card.spills == [] for item in drawn)
