"""A plain Claude Code session (no agent-ways), shaped as Claude Code 2.1.1xx writes one.

Constructed from the line shapes of formats-claude-code.md and the real fixtures in shared/:
a prompt, thinking in Markdown, a reply, tool calls with their results, words typed while the
agent worked (queue-operation enqueue/remove and the queued_command attachment that delivers
them), a tool call the person stopped ("[Request interrupted by user for tool use]"), a Task
subagent with its own file and Claude Code's totalTokens on the result, then a second prompt. The
session page, its queries and the browser walkthrough read it.
"""

from __future__ import annotations

from io import StringIO

import orjson
from django.core.management import call_command

from introspect.models import Session
from tests.conftest import append

SID = "91a1b2c3-d4e5-4f60-8718-293a4b5c6d7e"
PROJECT = "/home/dev/parser"
TITLE = "Fix torn-line handling in the parser"
PROMPT = "the parser drops torn lines, fix it"
TYPED = "check again, the test still fails"
SECOND = "thanks, commit it"
THINKING = "Look at `parser.py` first:\n\n- a **torn** last line must wait\n- then run `pytest`"
AGENT = "a1b2c3d"
MODEL = "claude-opus-4-6"
# Claude Code's totalTokens on the Task result: the input, cache and output tokens of the
# subagent's last call (its file's last message below: 3 + 40,000 + 1,200 + 500).
AGENT_TOTAL = 41_703
# What a reader without agent-ways must not meet on the page: its tabs, documents and words.
AGENT_WAYS_WORDS = (
    "Event log",
    "dump.json",
    "replay.json",
    "Fire turns",
    "fire turn",
    "Duration from",
    "agent-ways",
)


def usage(inp: int, out: int, read: int, write: int) -> dict:
    return {
        "input_tokens": inp,
        "output_tokens": out,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": write,
    }


class Lines:
    """Lines of one file, stamped a second apart and chained by parentUuid."""

    def __init__(self, minute: int = 0, *, sidechain: bool = False, agent: str | None = None):
        self.lines: list[dict] = []
        self.second = 0
        self.minute = minute
        self.parent: str | None = None
        self.extra = {"isSidechain": sidechain, **({"agentId": agent} if agent else {})}

    def stamp(self) -> str:
        self.second += 1
        return f"2026-03-04T10:{self.minute + self.second // 60:02d}:{self.second % 60:02d}.000Z"

    def add(self, kind: str, uuid: str | None, **fields) -> None:
        base = {"type": kind, "sessionId": SID, "timestamp": self.stamp(), "version": "2.1.140"}
        if uuid is not None:
            base |= {"uuid": uuid, "parentUuid": self.parent, "cwd": PROJECT, **self.extra}
            self.parent = uuid
        self.lines.append(base | fields)

    def user(self, uuid: str, content, **fields) -> None:
        self.add("user", uuid, message={"role": "user", "content": content}, **fields)

    def assistant(self, uuid: str, message_id: str, block: dict, use: dict | None = None) -> None:
        message = {"id": message_id, "model": MODEL, "role": "assistant", "content": [block]}
        if use:
            message["usage"] = use
        self.add("assistant", uuid, requestId=f"req_{message_id}", message=message)

    def call(self, uuid: str, message_id: str, tool_id: str, name: str, tool_input: dict, use: dict) -> None:
        self.assistant(
            uuid, message_id, {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}, use
        )

    def result(
        self, uuid: str, tool_id: str, text: str, *, error: bool = False, extra: dict | None = None
    ) -> None:
        block = {"type": "tool_result", "tool_use_id": tool_id, "content": text, "is_error": error}
        self.user(uuid, [block], **({"toolUseResult": extra} if extra else {}))


def trunk() -> list[dict]:
    t = Lines()
    t.user("p1", PROMPT)
    t.assistant(
        "th1",
        "msg_1",
        {"type": "thinking", "thinking": THINKING, "signature": "sig"},
        usage(3, 9, 12_000, 4_000),
    )
    t.assistant(
        "a1",
        "msg_1",
        {"type": "text", "text": "I'll run the parser tests first."},
        usage(3, 40, 12_000, 4_000),
    )
    t.call(
        "c1",
        "msg_2",
        "toolu_1",
        "Bash",
        {"command": "uv run pytest tests/test_parser.py -q", "description": "Run the parser tests"},
        usage(5, 30, 16_000, 900),
    )
    t.result(
        "r1",
        "toolu_1",
        "1 failed, 11 passed",
        extra={"stdout": "1 failed, 11 passed", "stderr": "", "interrupted": False},
    )
    t.call("c2", "msg_3", "toolu_2", "Read", {"file_path": f"{PROJECT}/parser.py"}, usage(2, 25, 17_000, 300))
    t.result(
        "r2",
        "toolu_2",
        "     1→def parse(line):\n     2→    return line\n",
        extra={
            "type": "text",
            "file": {
                "filePath": f"{PROJECT}/parser.py",
                "content": "def parse(line):\n    return line\n",
                "numLines": 2,
                "startLine": 1,
                "totalLines": 2,
            },
        },
    )
    t.add("queue-operation", None, operation="enqueue", content=TYPED)
    t.call(
        "c3",
        "msg_4",
        "toolu_3",
        "Bash",
        {"command": "uv run pytest -q", "description": "Run every test"},
        usage(2, 20, 17_400, 200),
    )
    t.result(
        "r3",
        "toolu_3",
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file "
        "edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user "
        "to tell you how to proceed.",
        error=True,
    )
    t.user("x1", [{"type": "text", "text": "[Request interrupted by user for tool use]"}])
    t.add("queue-operation", None, operation="remove")
    t.add(
        "attachment",
        "q1",
        attachment={
            "type": "queued_command",
            "prompt": TYPED,
            "commandMode": "prompt",
            "origin": {"kind": "human"},
        },
    )
    t.call(
        "c4",
        "msg_5",
        "toolu_4",
        "Task",
        {
            "description": "Find the torn-line test",
            "prompt": "Find the test that covers torn lines.",
            "subagent_type": "Explore",
        },
        usage(2, 60, 17_600, 500),
    )
    t.result(
        "r4",
        "toolu_4",
        f"tests/test_parser.py::test_torn_line\nagentId: {AGENT} (for resuming)",
        extra={
            "status": "completed",
            "agentId": AGENT,
            "totalTokens": AGENT_TOTAL,
            "totalDurationMs": 9000,
            "totalToolUseCount": 1,
        },
    )
    t.assistant(
        "a2", "msg_6", {"type": "text", "text": "The torn-line test passes now."}, usage(2, 80, 18_000, 700)
    )
    t.user("p2", SECOND)
    t.assistant("a3", "msg_7", {"type": "text", "text": "Committed."}, usage(2, 10, 18_700, 100))
    t.add("ai-title", None, aiTitle=TITLE)
    return t.lines


def subagent() -> list[dict]:
    s = Lines(minute=1, sidechain=True, agent=AGENT)
    s.user("s1", "Find the test that covers torn lines.")
    s.call("s2", "smsg_1", "toolu_s1", "Grep", {"pattern": "torn"}, usage(3, 20, 30_000, 1_000))
    s.result("s3", "toolu_s1", "tests/test_parser.py")
    s.assistant(
        "s4",
        "smsg_2",
        {"type": "text", "text": "tests/test_parser.py::test_torn_line"},
        usage(3, 500, 40_000, 1_200),
    )
    return s.lines


def plain_session(home) -> Session:
    """Write the session (and its subagent's file) under `home` and import it."""
    path = home.transcript(PROJECT, SID, *trunk())
    append(
        path.parent / SID / "subagents" / f"agent-{AGENT}.jsonl",
        *(orjson.dumps(line) + b"\n" for line in subagent()),
    )
    call_command("ingest", stdout=StringIO())
    return Session.objects.get(sid=SID)
