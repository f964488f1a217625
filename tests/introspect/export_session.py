"""A small session for the export tests: two prompts, a reply, a Bash call and its result, a
thinking line, hostile text, and agent-ways fire turns keyed to the prompts (one way withheld)."""

from __future__ import annotations

from io import StringIO

from django.core.management import call_command

from introspect.models import Session
from tests.conftest import append, line

SID = "exp00000-1111-4222-8333-444455556666"
REPLY = "Here is **the plan** for the release."
COMMAND = "ls -la /srv/releases"
OUTPUT = "total 3\nrelease-1\n```\nnot a fence end\n```\n"
HOSTILE = "<script>alert('x')</script> and ![pixel](https://evil.example/p.png)"


def entry(n: int, kind: str, uuid: str, content, **extra) -> dict:
    return {
        "type": kind,
        "uuid": uuid,
        "sessionId": SID,
        "timestamp": f"2026-11-02T10:00:{n:02d}.000Z",
        "message": {"role": kind, "content": content, **extra.pop("message", {})},
        **extra,
    }


def export_session(home) -> Session:
    append(
        home.live,
        line(ts="2026-11-02T09:59:59Z", event="session_start", session=SID, project="/src/rel"),
        line(
            ts="2026-11-02T10:00:01Z",
            event="way_fired",
            way="delivery/release",
            trigger="keyword",
            matched_span="release",
            session=SID,
            token_position="1200",
        ),
        line(
            ts="2026-11-02T10:00:01Z",
            event="way_suppressed",
            way="delivery/changelog",
            trigger="keyword",
            reason="context_cap",
            session=SID,
        ),
        line(
            ts="2026-11-02T10:00:20Z",
            event="way_fired",
            way="softwaredev/testing",
            trigger="semantic:embedding:en",
            fire_score="0.7100",
            session=SID,
        ),
    )
    home.transcript(
        "/src/rel",
        SID,
        entry(0, "user", "p1", "please cut the release"),
        {
            "type": "attachment",
            "uuid": "i1",
            "sessionId": SID,
            "timestamp": "2026-11-02T10:00:01.400Z",
            "attachment": {
                "type": "hook_additional_context",
                "hookEvent": "UserPromptSubmit",
                "content": ["release way body"],
            },
        },
        entry(
            2,
            "assistant",
            "th1",
            [{"type": "thinking", "thinking": "consider the tags"}],
            requestId="q0",
            message={"id": "m0", "model": "claude-opus-4-6"},
        ),
        entry(
            3,
            "assistant",
            "a1",
            [{"type": "text", "text": REPLY}],
            requestId="q1",
            message={"id": "m1", "model": "claude-opus-4-6"},
        ),
        entry(
            4,
            "assistant",
            "c1",
            [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": COMMAND}}],
            requestId="q2",
            message={"id": "m2", "model": "claude-opus-4-6"},
        ),
        entry(
            5,
            "user",
            "r1",
            [{"type": "tool_result", "tool_use_id": "t1", "content": OUTPUT}],
            toolUseResult={"stdout": OUTPUT, "stderr": "", "interrupted": False},
        ),
        entry(19, "user", "p2", f"now test it {HOSTILE}"),
        entry(
            21,
            "assistant",
            "a2",
            [{"type": "text", "text": "Tests pass."}],
            requestId="q3",
            message={"id": "m3", "model": "claude-opus-4-6"},
        ),
    )
    call_command("ingest", stdout=StringIO())
    return Session.objects.select_related("project", "transcript").get(sid=SID)
