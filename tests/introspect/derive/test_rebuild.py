"""A Claude Code session is a session with or without agent-ways events: its compactions, context,
title, first prompt, models and duration come from its transcript files."""

from __future__ import annotations

import shutil
from datetime import datetime
from io import StringIO
from pathlib import Path

import orjson
import pytest
from django.core.management import call_command

from introspect.models import Session, Subagent
from tests.fixtures import TRANSCRIPTS

pytestmark = pytest.mark.django_db

COMPACTED = "oneryalcin_fasthooks_sample_main_transcript.jsonl"  # a manual /compact (2.0.76)
COMPACTED_SID = "c45af7b1-cb7c-4e51-93db-8cbb250a877a"
SUBAGENT = "marot_spotter_subagent.jsonl"  # opus trunk with Haiku side calls (2.1.38)


def ingest() -> None:
    call_command("ingest", stdout=StringIO())


def lines_of(path: Path) -> list[dict]:
    return [orjson.loads(raw) for raw in path.read_bytes().splitlines() if raw.strip()]


def stamp(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def copy_trunk(home, name: str, sid: str) -> Path:
    target = home.root / ".claude" / "projects" / "-workspace" / f"{sid}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(TRANSCRIPTS / name, target)
    return target


def test_a_claude_code_only_session_has_its_transcripts_facts(home):
    lines = lines_of(copy_trunk(home, COMPACTED, COMPACTED_SID))
    ingest()
    session = Session.objects.get(sid=COMPACTED_SID)
    assert session.origin == Session.Origin.TRANSCRIPT and session.event_count == 0

    boundaries = [o for o in lines if o.get("type") == "system" and o.get("subtype") == "compact_boundary"]
    assert boundaries  # the fixture is the one with a /compact
    assert session.transcript_compactions == session.compactions == len(boundaries)
    assert session.windows_seen == len(boundaries) + 1
    assert [(m["ts"], m["trigger"], m["pre_tokens"]) for m in session.compaction_marks] == [
        (o["timestamp"], o["compactMetadata"]["trigger"], o["compactMetadata"]["preTokens"])
        for o in boundaries
    ]

    prompts = [
        o["message"]["content"]
        for o in lines
        if o.get("type") == "user" and isinstance(o["message"]["content"], str) and not o.get("isMeta")
    ]
    assert session.first_prompt == prompts[0]
    assert session.title == " ".join(prompts[0].split())  # no title line: the first prompt is the title
    assert session.prompt_line == ""  # so the list does not show it twice

    models = {o["message"]["model"] for o in lines if o.get("type") == "assistant"}
    assert models <= set(session.models_seen.split(", "))

    stamps = [stamp(o["timestamp"]) for o in lines if o.get("timestamp")]
    assert session.duration_secs == int((max(stamps) - min(stamps)).total_seconds())
    assert session.duration_source == "transcript"

    usage = [o["message"]["usage"] for o in lines if o.get("type") == "assistant"]
    peak = max(
        u.get("input_tokens", 0)
        + u.get("cache_read_input_tokens", 0)
        + u.get("cache_creation_input_tokens", 0)
        for u in usage
    )
    assert peak and session.peak_context_tokens == peak
    assert session.window_k == 200 and not session.window_observed  # Haiku 4.5: 200K, and the peak fits


def test_every_model_of_the_trunk_and_its_subagent_files_is_listed(home):
    sid = "491e126e-1e71-469c-ade2-fcc8af567c74"
    trunk = lines_of(copy_trunk(home, SUBAGENT, sid))
    # The subagent's own file, from the lines the trunk relays in agent_progress (Haiku answers).
    relayed = [
        {**o["data"]["message"], "isSidechain": True, "agentId": o["data"]["agentId"], "uuid": f"r{n}"}
        for n, o in enumerate(trunk)
        if o.get("type") == "progress" and o["data"].get("type") == "agent_progress"
    ]
    folder = home.root / ".claude" / "projects" / "-workspace" / sid / "subagents"
    folder.mkdir(parents=True)
    (folder / "agent-afb92ff.jsonl").write_bytes(b"".join(orjson.dumps(o) + b"\n" for o in relayed))
    ingest()
    session = Session.objects.get(sid=sid)
    models = {o["message"]["model"] for o in trunk + relayed if o.get("type") == "assistant"}
    assert {"claude-opus-4-6", "claude-haiku-4-5-20251001"} <= models
    assert models <= set(session.models_seen.split(", "))
    assert session.model == "claude-opus-4-6"  # the trunk's last model still decides the window


def line(kind: str, uuid: str, parent: str | None, second: int, **extra) -> dict:
    return {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "timestamp": f"2026-11-29T10:00:{second:02d}.000Z",
        "sessionId": SID,
        "version": "2.1.180",
        "cwd": "/home/dev/app",
        **extra,
    }


def prompt(uuid: str, parent: str | None, second: int, text: str) -> dict:
    return line("user", uuid, parent, second, message={"role": "user", "content": text})


def answer(uuid: str, parent: str, second: int, model: str, *, context: int = 1000, **extra) -> dict:
    usage = {"input_tokens": 5, "output_tokens": 7, "cache_read_input_tokens": context - 5}
    message = {"id": f"msg_{uuid}", "role": "assistant", "model": model, "usage": usage}
    return line(
        "assistant",
        uuid,
        parent,
        second,
        requestId=f"req_{uuid}",
        message={**message, "content": []},
        **extra,
    )


SID = "5e551011-0000-4000-8000-000000000001"


def test_a_session_folder_with_subagent_files_and_no_trunk_is_a_session(home):
    folder = home.root / ".claude" / "projects" / "-home-dev-app" / SID / "subagents"
    folder.mkdir(parents=True)
    agent = [
        {
            **prompt("s1", None, 3, "Survey the parser for dead code"),
            "isSidechain": True,
            "agentId": "a1b2c3",
        },
        {**answer("s2", "s1", 9, "claude-haiku-4-5-20251001"), "isSidechain": True, "agentId": "a1b2c3"},
    ]
    (folder / "agent-a1b2c3.jsonl").write_bytes(b"".join(orjson.dumps(o) + b"\n" for o in agent))
    (folder / "agent-a1b2c3.meta.json").write_bytes(
        orjson.dumps({"agentType": "Explore", "description": "dead code", "toolUseId": "toolu_1"})
    )
    ingest()
    session = Session.objects.get(sid=SID)
    assert session.origin == Session.Origin.TRANSCRIPT and session.transcript is None
    assert session.project.path == "/home/dev/app"
    assert session.started_at == stamp("2026-11-29T10:00:03.000Z")
    assert session.duration_secs == 6
    assert session.models_seen == "claude-haiku-4-5-20251001"
    assert session.first_prompt == "Survey the parser for dead code"
    linked = Subagent.objects.get(session=session)
    assert (linked.agent_id, linked.link, linked.agent_type) == ("a1b2c3", "meta.json", "Explore")


def test_a_peak_beyond_the_models_window_shows_the_larger_window(home):
    home.transcript(
        "/home/dev/app",
        SID,
        prompt("u1", None, 1, "go"),
        answer("a1", "u1", 2, "claude-sonnet-4-20250514", context=150_000),
        prompt("u2", "a1", 3, "more"),
        answer("a2", "u2", 4, "claude-sonnet-4-20250514", context=412_000),
    )
    ingest()
    session = Session.objects.get(sid=SID)
    assert session.peak_context_tokens == 412_000
    assert (session.window_k, session.window_observed, session.window_from_model) == (1000, True, False)


def test_claude_codes_own_title_wins_over_the_first_prompt_the_one_the_user_set_first(home):
    long_prompt = "Please refactor the importer so that every transcript line is accounted for " * 3
    home.transcript(
        "/home/dev/app",
        SID,
        prompt("u1", None, 1, long_prompt),
        answer("a1", "u1", 2, "claude-opus-4-6"),
    )
    ingest()
    session = Session.objects.get(sid=SID)
    assert session.title.endswith("…") and len(session.title) <= 101
    assert long_prompt.startswith(session.title.removesuffix("…")) and not session.title[:-1].endswith(" ")
    assert " ".join(long_prompt.split()).startswith(session.prompt_line[:50])  # shown under the title

    home.transcript(
        "/home/dev/app",
        SID,
        {"type": "summary", "summary": "Another session's summary", "leafUuid": "not-in-this-file"},
        {"type": "ai-title", "aiTitle": "Refactor the importer", "sessionId": SID},
    )
    ingest()
    assert Session.objects.get(sid=SID).title == "Refactor the importer"
    home.transcript(
        "/home/dev/app", SID, {"type": "custom-title", "customTitle": "importer work", "sessionId": SID}
    )
    home.transcript(
        "/home/dev/app", SID, {"type": "ai-title", "aiTitle": "A later ai title", "sessionId": SID}
    )
    ingest()
    assert Session.objects.get(sid=SID).title == "importer work"


def test_a_summary_names_the_session_only_when_its_leaf_is_in_the_file(home):
    home.transcript(
        "/home/dev/app",
        SID,
        {"type": "summary", "summary": "Somebody else's work", "leafUuid": "elsewhere"},
        {"type": "summary", "summary": "Parser cleanup", "leafUuid": "a1"},
        prompt("u1", None, 1, "clean the parser"),
        answer("a1", "u1", 2, "claude-opus-4-6"),
    )
    ingest()
    assert Session.objects.get(sid=SID).title == "Parser cleanup"


def test_an_interruption_marker_is_not_the_first_prompt_nor_the_title(home):
    home.transcript(
        "/p",
        "interrupted",
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": "interrupted",
            "timestamp": "2026-11-01T00:00:01.000Z",
            "message": {"role": "user", "content": "[Request interrupted by user]"},
        },
        {
            "type": "user",
            "uuid": "u2",
            "sessionId": "interrupted",
            "timestamp": "2026-11-01T00:00:05.000Z",
            "message": {"role": "user", "content": "make the build green"},
        },
    )
    call_command("ingest", stdout=StringIO())
    session = Session.objects.get(sid="interrupted")
    assert (session.first_prompt, session.title) == ("make the build green", "make the build green")
