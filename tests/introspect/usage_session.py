"""A session whose assistant messages carry usage: a prompt, one response streamed as three lines,
a reply of a model with no list price, and a subagent run of two Haiku messages. The entry cards',
the conversation's and the subagents' query tests read it."""

from __future__ import annotations

from io import StringIO

import orjson
from django.core.management import call_command

from introspect.models import Session, TranscriptEntry
from tests.conftest import append

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
