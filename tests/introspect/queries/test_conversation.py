"""The conversation's spine (queries/conversation.py): cursors, turns opened at each prompt a person
typed, what is not drawn, fire turns numbered and unread lines placed, the live tail's fire turns that
belong to a prompt the page already shows, and the one preparation every stretch of spine goes through."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from introspect.models import Session
from introspect.queries import conversation, line_gaps
from introspect.queries.entry_cards import EntryCard
from tests.introspect import plain_session
from tests.introspect.usage_session import SID as USAGE_SID
from tests.introspect.usage_session import write_session
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


def test_a_cursor_that_does_not_fit_a_64_bit_column_reads_as_absent():
    # A viewer's seen mark stores the cursor the page followed: a forged one must never reach it.
    assert conversation.parse_position("120.3") == (120, 3)
    assert conversation.parse_position("120") == (120, 0)
    assert conversation.parse_position(f"{2**63}.0") is None
    assert conversation.parse_position(f"0.{2**63 - 1}") is None  # no room for the index's +1
    assert conversation.parse_position("0.-1") is None
    assert conversation.parse_position("a.b") is None


def test_the_session_page_entries_carry_their_usage(home):
    write_session(home)
    page = conversation.conversation_page(Session.objects.get(sid=USAGE_SID), turn=0, part=0)
    cards = [item.card for item in page.items if item.card is not None]
    assert [(c.entry.uuid, c.usage.output_tokens) for c in cards if c.usage] == [("a3", 480), ("a4", 7)]


# --- a plain Claude Code session read as a reader does (issue 25) ----------------------------------


def spine(page: conversation.ConversationPage) -> list[tuple[int | None, str, str]]:
    """The page as (turn heading, type, uuid-or-words) rows, in order."""
    return [
        (item.turn_start, item.entry.type, item.entry.uuid or item.entry.text)
        for item in page.items
        if item.entry is not None
    ]


def test_it_opens_a_turn_at_each_prompt_a_person_typed_and_none_at_an_interruption(home):
    session = plain_session.plain_session(home)

    page = conversation.conversation_page(session, turn=0, part=0)

    rows = spine(page)
    headings = [(turn, uuid) for turn, _, uuid in rows if turn is not None]
    # Turn 2 is what the person typed while the agent worked (a queued_command attachment); the
    # interruption before it is the last thing of turn 1, not a turn of its own.
    assert headings == [(1, "p1"), (2, "q1"), (3, "p2")]
    uuids = [uuid for _, _, uuid in rows]
    assert uuids.index("c3") < uuids.index("x1") < uuids.index("q1")
    assert session.first_prompt == plain_session.PROMPT


def test_it_draws_none_of_the_input_queues_bookkeeping(home):
    session = plain_session.plain_session(home)

    page = conversation.conversation_page(session, turn=0, part=0)

    # The enqueue's words are turn 2's prompt, the remove has none: neither is drawn.
    assert [row for row in spine(page) if row[1] == "queue-operation"] == []
    assert session.entries.filter(type="queue-operation").count() == 2


def test_it_moves_a_turn_heading_off_a_line_it_does_not_draw():
    def entry(pk: int, kind: str, **fields):
        base = {"pk": pk, "type": kind, "subtype": "", "text": "", "is_prompt": False, "uuid": f"e{pk}"}
        return SimpleNamespace(**(base | fields))

    removed, reply = entry(1, "queue-operation", subtype="remove"), entry(2, "assistant", text="on it")
    items = [
        # The queue's bookkeeping (entry_kinds.hidden_queue_lines), as entry_cards marks it.
        conversation.Item(
            entry=removed, card=EntryCard(removed, bookkeeping=True), turn_start=3, continued=True
        ),
        conversation.Item(entry=reply, card=EntryCard(reply)),
    ]

    [kept] = conversation.drawn(items)

    assert (kept.entry.pk, kept.turn_start, kept.continued) == (2, 3, True)


def test_it_numbers_each_fire_turn_by_the_conversation_turn_it_sits_in():
    fire = SimpleNamespace(prompt_entry_id=None, nearest_prompt_id=7)
    loose = SimpleNamespace(prompt_entry_id=None, nearest_prompt_id=None)
    items = [
        conversation.Item(fire=loose),
        conversation.Item(entry=SimpleNamespace(pk=5), turn_start=1),
        conversation.Item(entry=SimpleNamespace(pk=7), turn_start=2),
        conversation.Item(fire=fire),
    ]

    numbered = conversation.number_fires(items)

    assert [item.conversation_turn for item in numbered if item.fire is not None] == [None, 2]


def test_it_puts_each_unread_line_before_the_first_entry_not_before_it_in_the_file():
    def at(offset: int) -> conversation.Item:
        return conversation.Item(entry=SimpleNamespace(offset=offset, index=0))

    def gap(offset: int) -> line_gaps.LineGap:
        return line_gaps.LineGap(
            (offset, 0), line=0, file="f", reason="r", quarantine_id=offset, status_page=1
        )

    fire = conversation.Item(fire=SimpleNamespace())
    items = [at(100), fire, at(300), at(500)]

    placed = conversation.place_gaps(items, [gap(200), gap(300), gap(900)])

    # The one at 300 is a torn line's lost part, before the record recovered from the same line.
    assert [item.gap.position[0] if item.gap else item for item in placed] == [
        items[0],
        fire,
        200,
        300,
        items[2],
        items[3],
        900,
    ]


def test_a_live_cursor_stands_at_the_entry_at_or_before_it(home):
    long_session(home, 3, sid="cursor")
    session = Session.objects.get(sid="cursor")
    entries = list(conversation.conversation_entries(session))
    second = entries[1]

    assert conversation.entry_at_or_before(session, (second.offset, second.index)) == second
    assert conversation.entry_at_or_before(session, (second.offset, second.index + 1)) == second
    assert conversation.entry_at_or_before(session, (entries[-1].offset + 10**6, 0)) == entries[-1]
    assert conversation.entry_at_or_before(session, (-1, 0)) is None  # before the first: the top
