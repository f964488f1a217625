"""A long plain Claude Code session made of a real one: the browser walkthroughs read it page by page.

tests/fixtures/transcripts/ keeps a real 2.0.76 transcript (prompts, thinking, Bash/Write/Read calls,
a failed command, parallel calls, /compact). Played COPIES times under fresh ids it is a session of
several conversation pages; one extra turn in the middle holds a 50-line command output whose line
40 says NEEDLE, a word no other line has: the search walkthrough opens that hit.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta
from pathlib import Path

import orjson

from tests.fixtures import TRANSCRIPTS

FIXTURE = TRANSCRIPTS / "oneryalcin_fasthooks_sample_main_transcript.jsonl"
SID = "9a1b2c3d-0025-4000-8000-00000000f1a7"
PROJECT = "-workspace"  # the fixture's cwd, as Claude Code names its folder
COPIES = 10
NEEDLE = "quasar"
NEEDLE_LINE = 40
NEEDLE_RESULT = "5e1f0000-0025-4000-8000-0000000000a3"  # the uuid of the tool result that holds it
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
API_ID = re.compile(r"\b((?:toolu|msg|req)_[A-Za-z0-9]+)")
NAMESPACE = uuid.UUID("6f2b7d1e-0025-4000-8000-000000000000")


def one_copy(raw: list[bytes], original_sid: str, copy: int) -> list[dict]:
    """The fixture's lines with every id renamed for this copy and its clock `copy` hours on."""

    def rename(found: re.Match) -> str:
        old = found.group(0)
        return SID if old == original_sid else str(uuid.uuid5(NAMESPACE, f"{copy}:{old}"))

    entries = []
    for line in raw:
        text = API_ID.sub(rf"\1x{copy}", UUID.sub(rename, line.decode()))
        entry = orjson.loads(text)
        if stamp := entry.get("timestamp"):
            moved = datetime.fromisoformat(stamp) + timedelta(hours=copy)
            entry["timestamp"] = moved.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        entries.append(entry)
    return entries


def needle_turn(after: dict) -> list[dict]:
    """A prompt, a Bash call, its 50 lines of output (NEEDLE on line NEEDLE_LINE) and the reply."""
    clock = datetime.fromisoformat(after["timestamp"])
    lines = [
        f"2026-01-02 21:{n:02d}:00 sensor-{n:02d} "
        + (f"reading drifted: {NEEDLE} pattern at 4.2 Hz" if n == NEEDLE_LINE else "reading nominal 20.0 C")
        for n in range(1, 51)
    ]
    output = "\n".join(lines)
    base = {
        "isSidechain": False,
        "userType": "external",
        "cwd": "/workspace",
        "sessionId": SID,
        "version": "2.0.76",
        "gitBranch": "",
    }
    ids = ["5e1f0000-0025-4000-8000-0000000000a1", "5e1f0000-0025-4000-8000-0000000000a2"]
    ids += [NEEDLE_RESULT, "5e1f0000-0025-4000-8000-0000000000a4"]
    call = {"type": "tool_use", "id": "toolu_needle", "name": "Bash", "input": {"command": "cat sensors.log"}}
    result = {"type": "tool_result", "tool_use_id": "toolu_needle", "content": output, "is_error": False}
    bodies = [
        ("user", {"message": {"role": "user", "content": "what do the sensors say?"}}),
        ("assistant", {"message": {"id": "msg_needle1", "role": "assistant", "content": [call]}}),
        ("user", {"message": {"role": "user", "content": [result]}, "toolUseResult": {"stdout": output}}),
        (
            "assistant",
            {
                "message": {
                    "id": "msg_needle2",
                    "role": "assistant",
                    "content": [{"type": "text", "text": "One sensor drifted; the rest read 20.0 C."}],
                }
            },
        ),
    ]
    turn, parent = [], after["uuid"]
    for n, (kind, body) in enumerate(bodies):
        stamp = (clock + timedelta(seconds=n + 1)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        entry = {**base, "parentUuid": parent, "type": kind, "uuid": ids[n], "timestamp": stamp, **body}
        turn.append(entry)
        parent = ids[n]
    return turn


def long_plain_session() -> bytes:
    """The session's transcript file: the fixture COPIES times, the needle's turn in the middle."""
    raw = [line for line in FIXTURE.read_bytes().split(b"\n") if line.strip()]
    original_sid = next(orjson.loads(line)["sessionId"] for line in raw if b'"sessionId"' in line)
    entries: list[dict] = []
    for copy in range(COPIES):
        entries += one_copy(raw, original_sid, copy)
        if copy == COPIES // 2:
            entries += needle_turn(next(e for e in reversed(entries) if e.get("uuid") and e.get("timestamp")))
    return b"".join(orjson.dumps(entry) + b"\n" for entry in entries)


def path(home: Path) -> Path:
    """Where Claude Code keeps the session's transcript under `home`."""
    return home / ".claude" / "projects" / PROJECT / f"{SID}.jsonl"


def write(home: Path) -> Path:
    """The long session under `home`'s Claude Code projects, as Claude Code lays it out."""
    where = path(home)
    where.parent.mkdir(parents=True, exist_ok=True)
    where.write_bytes(long_plain_session())
    return where
