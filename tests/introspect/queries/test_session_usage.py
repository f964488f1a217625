"""A page's assistant messages carry their usage on their last line; a subagent run its summary."""

from __future__ import annotations

from decimal import Decimal
from io import StringIO

import orjson
import pytest
from django.core.management import call_command

from introspect.models import Session, Subagent, TranscriptEntry
from introspect.queries import conversation, entry_cards, subagents
from tests.conftest import append

pytestmark = pytest.mark.django_db

SID = "usage-session"


def at(second: int) -> str:
    return f"2026-11-20T09:00:{second:02d}.000Z"


def assistant(uuid: str, second: int, block: dict, *, message_id: str, output: int, **extra) -> dict:
    return {
        "type": "assistant",
        "uuid": uuid,
        "sessionId": SID,
        "timestamp": at(second),
        "requestId": f"req_{message_id}",
        "message": {
            "id": message_id,
            "role": "assistant",
            "model": extra.pop("model", "claude-opus-4-6"),
            "content": [block],
            "usage": {
                "input_tokens": 4,
                "output_tokens": output,
                "cache_creation_input_tokens": 2000,
                "cache_read_input_tokens": 30000,
            },
        },
        **extra,
    }


def text(words: str) -> dict:
    return {"type": "text", "text": words}


def tool(tool_id: str) -> dict:
    return {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": "ls"}}


def write_session(home) -> None:
    """A prompt, one response streamed as three lines (output 12 → 12 → 480), a reply of a model
    with no list price, and a subagent run of two Haiku messages with two tool calls over 40 s."""
    home.transcript(
        "/p",
        SID,
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": SID,
            "timestamp": at(1),
            "message": {"role": "user", "content": "go"},
        },
        assistant("a1", 2, {"type": "thinking", "thinking": "hm"}, message_id="msg_1", output=12),
        assistant("a2", 3, text("looking"), message_id="msg_1", output=12),
        assistant("a3", 4, tool("toolu_1"), message_id="msg_1", output=480),
        assistant("a4", 9, text("done"), message_id="msg_2", output=7, model="mystery-model"),
    )
    agent_file = home.root / ".claude" / "projects" / "-p" / SID / "subagents" / "agent-x1.jsonl"
    side = {"isSidechain": True, "agentId": "x1"}
    append(
        agent_file,
        *(
            orjson.dumps(line) + b"\n"
            for line in (
                {
                    "type": "user",
                    "uuid": "s0",
                    "sessionId": SID,
                    "timestamp": at(10),
                    **side,
                    "message": {"role": "user", "content": "explore"},
                },
                assistant(
                    "s1",
                    11,
                    tool("toolu_s1"),
                    message_id="msg_s1",
                    output=5,
                    model="claude-haiku-4-5-20251001",
                    **side,
                ),
                assistant(
                    "s2",
                    12,
                    tool("toolu_s1"),
                    message_id="msg_s1",
                    output=90,
                    model="claude-haiku-4-5-20251001",
                    **side,
                ),
                assistant(
                    "s3",
                    30,
                    tool("toolu_s2"),
                    message_id="msg_s2",
                    output=60,
                    model="claude-haiku-4-5-20251001",
                    **side,
                ),
                assistant(
                    "s4",
                    50,
                    text("found it"),
                    message_id="msg_s3",
                    output=20,
                    model="claude-haiku-4-5-20251001",
                    **side,
                ),
            )
        ),
    )
    call_command("ingest", stdout=StringIO())


def trunk_lines() -> list[TranscriptEntry]:
    session = Session.objects.get(sid=SID)
    return list(TranscriptEntry.objects.filter(source_id=session.transcript_id).order_by("offset", "index"))


def test_a_messages_usage_is_on_its_last_line_with_its_final_counts(home, django_assert_num_queries):
    write_session(home)
    entries = trunk_lines()
    with django_assert_num_queries(1):
        usages = entry_cards.message_usages(entries)
    by_uuid = {entry.uuid: usages.get(id(entry)) for entry in entries}
    assert by_uuid["u1"] is None and by_uuid["a1"] is None and by_uuid["a2"] is None
    usage = by_uuid["a3"]
    assert (usage.model, usage.input_tokens, usage.output_tokens) == ("claude-opus-4-6", 4, 480)
    assert (usage.cache_read_input_tokens, usage.cache_creation_input_tokens) == (30000, 2000)
    assert usage.cost_usd == (4 * 5 + 480 * 25 + 2000 * Decimal("6.25") + 30000 * Decimal("0.5")) / 1_000_000
    assert (by_uuid["a4"].output_tokens, by_uuid["a4"].cost_usd) == (7, None)


def test_a_message_cut_by_the_page_still_counts_all_its_lines(home):
    write_session(home)
    page = trunk_lines()[:3]  # the prompt and the first two lines of msg_1
    usages = entry_cards.message_usages(page)
    assert page[-1].uuid == "a2" and usages[id(page[-1])].output_tokens == 480


def test_it_reads_nothing_for_a_page_without_assistant_messages(home, django_assert_num_queries):
    write_session(home)
    entries = trunk_lines()[:1]
    with django_assert_num_queries(0):
        usages = entry_cards.message_usages(entries)
    assert usages == {}


def test_the_session_page_entries_carry_their_usage(home):
    write_session(home)
    page = conversation.conversation_page(Session.objects.get(sid=SID), turn=0, part=0)
    cards = [item.card for item in page.items if item.card is not None]
    assert [(c.entry.uuid, c.usage.output_tokens) for c in cards if c.usage] == [("a3", 480), ("a4", 7)]


def test_a_subagent_summary_covers_its_own_file(home, django_assert_num_queries):
    write_session(home)
    agent = Subagent.objects.get(agent_id="x1")
    with django_assert_num_queries(2):
        summary = subagents.subagent_summary(agent)
    assert summary.models == ["claude-haiku-4-5-20251001"]
    assert (summary.totals.input_tokens, summary.totals.output_tokens) == (12, 90 + 60 + 20)
    assert summary.totals.cost_usd == Decimal("0.017362")  # 12·1 + 170·5 + 6000·1.25 + 90000·0.1 per MTok
    assert summary.tool_calls == 2  # two calls, one written over two lines
    assert summary.duration_secs == 40


def test_a_subagent_without_a_file_has_no_summary(home):
    write_session(home)
    agent = Subagent.objects.get(agent_id="x1")
    agent.source = None
    assert subagents.subagent_summary(agent) is None
