"""The session list's search finds a session by its title or by anything its user typed."""

from __future__ import annotations

import shutil
from io import StringIO
from types import SimpleNamespace

import orjson
import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from introspect.importer.transcripts import TEXT_LIMIT
from introspect.queries import conversation, entry_cards, line_gaps, session_list
from introspect.queries.entry_cards import EntryCard
from tests.fixtures import TRANSCRIPTS
from tests.introspect import plain_session

pytestmark = pytest.mark.django_db

COMPACTED = "oneryalcin_fasthooks_sample_main_transcript.jsonl"
SID = "c45af7b1-cb7c-4e51-93db-8cbb250a877a"


def found(q: str) -> list[str]:
    return [
        session.sid for session in session_list.session_list_page(session_list.SessionFilters(q=q), page=1)
    ]


def test_it_finds_a_claude_code_session_by_a_word_of_any_prompt(home):
    target = home.root / ".claude" / "projects" / "-workspace" / f"{SID}.jsonl"
    target.parent.mkdir(parents=True)
    shutil.copy(TRANSCRIPTS / COMPACTED, target)
    call_command("ingest", stdout=StringIO())
    prompts = [
        o["message"]["content"]
        for o in map(orjson.loads, target.read_bytes().splitlines())
        if o.get("type") == "user" and isinstance(o["message"]["content"], str) and not o.get("isMeta")
    ]
    assert "hello_world" in prompts[1] and "hello_world" not in prompts[0]  # not the first prompt
    assert found("hello_world") == [SID]
    assert found("HELLO_WORLD") == [SID]  # case does not matter
    assert found("ls -la") == [SID]  # the first prompt, which is the title too
    assert found("Conversation compacted") == []  # a system line is not something the user typed
    assert found("no such words anywhere") == []
    with CaptureQueriesContext(connection) as queries_run:
        list(session_list.session_list_page(session_list.SessionFilters(q="hello_world"), page=1))
    assert len(queries_run) <= 2  # the page and its count: one EXISTS, no query per session


def test_a_cursor_that_does_not_fit_a_64_bit_column_reads_as_absent():
    # A viewer's seen mark stores the cursor the page followed: a forged one must never reach it.
    assert conversation.parse_position("120.3") == (120, 3)
    assert conversation.parse_position("120") == (120, 0)
    assert conversation.parse_position(f"{2**63}.0") is None
    assert conversation.parse_position(f"0.{2**63 - 1}") is None  # no room for the index's +1
    assert conversation.parse_position("0.-1") is None
    assert conversation.parse_position("a.b") is None


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


def test_it_reads_a_stored_text_that_fills_the_column_whole_from_its_raw_line():
    whole = "x" * 25_000
    cut = SimpleNamespace(text=whole[:TEXT_LIMIT], line=orjson.dumps({"type": "user", "message": whole}))
    short = SimpleNamespace(text="short", line=b"never parsed: a short text is whole")

    entry_cards.whole_texts([cut, short])

    assert (cut.text, short.text) == (whole, "short")
