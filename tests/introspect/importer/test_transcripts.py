"""Real Claude Code transcripts import with every line accounted for, linked as the files say."""

from __future__ import annotations

import json
import random
import shutil
from io import StringIO
from pathlib import Path

import orjson
import pytest
from django.core.management import call_command

from introspect.importer import parser, transcripts
from introspect.models import Quarantine, Session, SourceFile, Spill, Subagent, TranscriptEntry
from tests.fixtures import TRANSCRIPTS, TREE, lay_out_tree
from tests.introspect.importer.test_parser import ODD_VALUES
from tests.introspect.importer.upstream_models import model_envelope

pytestmark = pytest.mark.django_db

# Each session's tokens and cost against ccusage 20's: tests/introspect/derive/test_fields_ccusage.py.


def lay_out(home) -> Path:
    return lay_out_tree(home.root / ".claude" / "projects")


def ingest() -> None:
    call_command("ingest", stdout=StringIO())


def test_it_accounts_for_every_line_of_the_real_transcripts(home):
    lay_out(home)
    ingest()
    for folder, (session, name) in TREE.items():
        source = SourceFile.objects.get(rel_path=f"{folder}/{session}.jsonl")
        physical = (TRANSCRIPTS / name).read_bytes().count(b"\n")
        assert source.lines_seen == physical
        assert source.imported + source.quarantined + source.inert + source.duplicate == physical
        assert source.offset == (TRANSCRIPTS / name).stat().st_size
    assert not Quarantine.objects.exists()


def test_it_links_subagents_to_the_tool_call_that_spawned_them(home):
    lay_out(home)
    ingest()
    session = Session.objects.get(sid=TREE["fixture-3"][0])
    linked = list(Subagent.objects.filter(session=session))
    assert linked and all(agent.tool_use_id and agent.spawn_entry for agent in linked)
    assert {agent.link for agent in linked} <= {"tool_result", "agent_progress"}
    for agent in linked:
        assert agent.spawn_entry.tool_name in ("Task", "Agent")
        assert agent.spawn_entry.tool_use_id == agent.tool_use_id


def test_it_reads_a_subagent_file_under_its_session_as_a_sidechain(home):
    projects = home.root / ".claude" / "projects"
    session, _ = TREE["fixture-2"]
    target = projects / "-home-x" / session / "subagents" / "agent-acompact-e1f845.jsonl"
    target.parent.mkdir(parents=True)
    shutil.copy(TRANSCRIPTS / "marot_spotter_agent-acompact-e1f845.jsonl", target)
    ingest()
    source = SourceFile.objects.get()
    assert (source.kind, source.session_key, source.agent_key) == (
        "subagent_transcript",
        session,
        "acompact-e1f845",
    )
    entries = TranscriptEntry.objects.filter(source=source)
    assert entries.exists() and all(e.is_sidechain and e.agent_id == "acompact-e1f845" for e in entries)
    assert Session.objects.get(sid=session).origin == "transcript"


def test_it_keeps_compaction_boundaries_summaries_tool_errors_and_inline_sidechains(home):
    lay_out(home)
    ingest()
    boundary = TranscriptEntry.objects.get(type="system", subtype="compact_boundary")
    assert boundary.parent_uuid is None and boundary.logical_parent_uuid
    summary = TranscriptEntry.objects.get(is_compact_summary=True)
    assert summary.parent_uuid == boundary.uuid and not summary.is_prompt
    # Eight `"is_error":true` in the files: five on tool_result lines of the conversation, three
    # inside agent_progress lines that relay a subagent's own tool results.
    errors = TranscriptEntry.objects.filter(is_error=True)
    assert errors.count() == 5 and all(e.type == "user" and e.tool_result_id for e in errors)
    inline = TranscriptEntry.objects.filter(session__sid=TREE["fixture-1"][0], is_sidechain=True)
    assert inline.exists() and not inline.exclude(agent_id=None).exists()


def test_it_stores_unknown_line_types_raw_and_flagged(home):
    home.transcript(
        "/p", "s1", {"type": "brand-new-thing", "uuid": "x", "sessionId": "s1", "payload": [1, 2]}
    )
    ingest()
    entry = TranscriptEntry.objects.get()
    assert entry.type == "brand-new-thing" and "unknown_type" in entry.flags
    assert json.loads(entry.line)["payload"] == [1, 2]


def test_it_counts_inert_chatter_and_keeps_its_dag_node(home):
    home.transcript(
        "/p",
        "s1",
        {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}},
        {"type": "progress", "uuid": "p1", "parentUuid": "u0", "data": {"type": "bash_progress"}},
        {
            "type": "progress",
            "uuid": "p2",
            "parentUuid": "p1",
            "data": {"type": "hook_progress", "hookEvent": "PreToolUse"},
        },
    )
    ingest()
    source = SourceFile.objects.get()
    assert (source.inert, source.imported) == (2, 1)
    node = TranscriptEntry.objects.get(uuid="p1")
    assert node.inert and node.parent_uuid == "u0" and bytes(node.raw) == b""
    assert TranscriptEntry.objects.get(uuid="p2").hook_event == "PreToolUse"


def test_it_marks_a_resumed_files_repeated_lines_as_copies(home):
    first = {"type": "user", "uuid": "u1", "sessionId": "s1", "message": {"role": "user", "content": "hi"}}
    home.transcript("/p", "s1", first)
    ingest()
    home.transcript("/p", "s1-resumed", first, {**first, "uuid": "u2"})
    ingest()
    copies = TranscriptEntry.objects.filter(source__session_key="s1-resumed")
    assert [(e.uuid, e.is_copy) for e in copies.order_by("offset")] == [("u1", False), ("u2", False)]


def test_it_compresses_long_lines_and_gives_them_back_whole(home):
    text = "x" * 40_000
    home.transcript(
        "/p",
        "s1",
        {"type": "user", "uuid": "u1", "sessionId": "s1", "message": {"role": "user", "content": text}},
    )
    ingest()
    entry = TranscriptEntry.objects.get()
    assert entry.raw_compressed and len(bytes(entry.raw)) < 2000
    assert json.loads(entry.line)["message"]["content"] == text


def test_it_marks_a_deleted_transcript_gone_and_keeps_the_conversation(home):
    path = home.transcript(
        "/p",
        "s1",
        {"type": "user", "uuid": "u1", "sessionId": "s1", "message": {"role": "user", "content": "hi"}},
    )
    ingest()
    path.unlink()
    ingest()
    session = Session.objects.get(sid="s1")
    assert session.transcript_status == "gone" and session.entries.count() == 1


def test_it_extracts_the_columns_pages_query():
    fields = transcripts.fields_of(
        {
            "type": "assistant",
            "uuid": "a",
            "parentUuid": "u",
            "timestamp": "2026-02-10T21:11:59.873Z",
            "requestId": "req_1",
            "message": {
                "id": "msg_1",
                "model": "claude-opus-4-6",
                "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "make test"}}
                ],
                "usage": {
                    "input_tokens": 3,
                    "cache_creation_input_tokens": 13835,
                    "cache_read_input_tokens": 11515,
                    "output_tokens": 13,
                },
            },
        }
    )
    assert (fields.tool_use_id, fields.tool_name, fields.message_id, fields.request_id) == (
        "toolu_1",
        "Bash",
        "msg_1",
        "req_1",
    )
    assert fields.text == "Bash make test" and fields.has_usage and fields.cache_read_input_tokens == 11515
    assert fields.ts.microsecond == 873000
    tagged = transcripts.fields_of(
        {"type": "user", "message": {"role": "user", "content": "<command-name>/compact</command-name>"}}
    )
    assert not tagged.is_prompt


def user_line(content) -> dict:
    return {"type": "user", "message": {"role": "user", "content": content}}


def test_it_takes_an_interruption_for_a_mark_not_a_prompt():
    for content in (
        "[Request interrupted by user]",
        [{"type": "text", "text": "[Request interrupted by user for tool use]"}],
    ):
        line = transcripts.fields_of(user_line(content))
        assert line.text.startswith("[Request interrupted") and not line.is_prompt
    assert transcripts.fields_of(user_line("check again")).is_prompt


def test_it_takes_a_prompt_typed_while_the_agent_worked_for_a_prompt():
    # Claude Code 2.1.101+: the words reach the running turn as an attachment, with no user line.
    queued = {
        "type": "attachment",
        "uuid": "q1",
        "attachment": {
            "type": "queued_command",
            "prompt": [{"type": "text", "text": "check again"}],
            "commandMode": "prompt",
            "origin": {"kind": "human"},
        },
    }
    line = transcripts.fields_of(queued)
    assert (line.subtype, line.text, line.is_prompt) == ("queued_command", "check again", True)

    note = {"type": "attachment", "attachment": {**queued["attachment"], "commandMode": "task-notification"}}
    assert not transcripts.fields_of(note).is_prompt
    tagged = {
        "type": "attachment",
        "attachment": {"type": "queued_command", "prompt": "<task-notification>x"},
    }
    assert not transcripts.fields_of(tagged).is_prompt


def test_it_keeps_a_queue_operation_as_its_subtype():
    enqueue = transcripts.fields_of({"type": "queue-operation", "operation": "enqueue", "content": "/mcp"})
    remove = transcripts.fields_of({"type": "queue-operation", "operation": "remove"})
    assert (enqueue.subtype, enqueue.text, remove.subtype, remove.text) == ("enqueue", "/mcp", "remove", "")


def test_it_keeps_the_cache_write_split_and_the_speed_of_a_usage():
    def usage_of(usage: dict):
        return transcripts.fields_of({"type": "assistant", "message": {"model": "m", "usage": usage}})

    found = usage_of(
        {
            "cache_creation_input_tokens": 394137,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 394137},
            "speed": "fast",
        }
    )
    assert (found.ephemeral_5m_input_tokens, found.ephemeral_1h_input_tokens, found.speed) == (
        0,
        394137,
        "fast",
    )
    older = usage_of({"cache_creation_input_tokens": 5})  # Claude Code before the split: nothing said
    assert (older.ephemeral_5m_input_tokens, older.ephemeral_1h_input_tokens, older.speed) == (
        None,
        None,
        None,
    )
    odd = usage_of({"cache_creation": {"ephemeral_1h_input_tokens": "7"}, "speed": 1})
    assert (odd.ephemeral_1h_input_tokens, odd.speed) == (None, None)


def test_it_reads_spilled_hook_output_from_the_sessions_own_folder_only(home):
    stub = (
        "<system-reminder>\nSessionStart hook additional context: <persisted-output>\nOutput too large (24.4KB). "
        "Full output saved to: ~/.claude/projects/-p/s1/tool-results/hook-1-0-additionalContext.txt\n\n"
        "Preview (first 2KB):\n# Way\n</persisted-output>\n</system-reminder>"
    )
    hostile = stub.replace(
        "~/.claude/projects/-p/s1/tool-results/hook-1-0-additionalContext.txt", "/etc/passwd"
    )
    path = home.transcript(
        "/p",
        "s1",
        {
            "type": "user",
            "uuid": "m1",
            "isMeta": True,
            "sessionId": "s1",
            "message": {"role": "user", "content": stub},
        },
        {
            "type": "user",
            "uuid": "m2",
            "isMeta": True,
            "sessionId": "s1",
            "message": {"role": "user", "content": hostile},
        },
    )
    spill_dir = path.with_suffix("") / "tool-results"
    spill_dir.mkdir(parents=True)
    (spill_dir / "hook-1-0-additionalContext.txt").write_text("# Way\nthe whole body")
    ingest()

    found = Spill.objects.get(entry__uuid="m1")
    assert found.found and found.text == "# Way\nthe whole body"
    passwd = Spill.objects.get(entry__uuid="m2")
    assert passwd.name == "passwd" and not passwd.found and passwd.text == ""


def test_it_keeps_a_texts_start_in_the_column_and_gives_it_whole_from_the_line():
    prompt = "word " * 6_000  # 30,000 characters
    line = orjson.dumps(user_line([{"type": "text", "text": prompt}]))

    assert transcripts.fields_of(orjson.loads(line)).text == prompt[: transcripts.TEXT_LIMIT]
    assert transcripts.maybe_cut(prompt[: transcripts.TEXT_LIMIT]) and not transcripts.maybe_cut("short")
    assert transcripts.whole_text(line) == prompt
    assert transcripts.whole_text(b"") is None  # a row kept without its raw line


def model_fields_of(obj: dict) -> dict:
    """`fields_of` with its envelope read by the pydantic model alone (the reference)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(transcripts, "envelope", model_envelope)
        fields = transcripts.fields_of(obj)
    return vars(fields)


ENVELOPE_ODD = [
    *ODD_VALUES,
    "user",
    "assistant",
    "2026-01-01T00:00:00Z",
    "not a time",
    "u" * 70,
    {"a": 1},
    1.0,
    1,
    # how else a flag may be written: the words pydantic's lax booleans take, and some it does not
    0.0,
    -0.0,
    1.5,
    float("nan"),
    "yes",
    "On",
    "T",
    "n",
    "FALSE",
    "true ",
    "2",
    "ja",
]


def test_a_lines_envelope_read_without_the_model_is_the_models_reading():
    """Both readings, the quick one and the one field by field, against the pydantic model."""
    rng = random.Random(29)
    names = [*transcripts.ENVELOPE_NAMES, "message", "unknown_key"]
    for name in names:
        for value in ENVELOPE_ODD:
            obj = {"type": "user", "uuid": "u-1", "timestamp": "2026-01-01T00:00:00Z", name: value}
            assert transcripts.envelope(obj) == model_envelope(obj), obj
            assert transcripts.checked_envelope(obj) == model_envelope(obj), obj
            assert vars(transcripts.fields_of(obj)) == model_fields_of(obj), obj
    for _ in range(3000):  # several odd fields at once, mistyped ones among them
        obj = {name: rng.choice(ENVELOPE_ODD) for name in rng.sample(names, 5)}
        assert transcripts.envelope(obj) == model_envelope(obj), obj
        assert transcripts.checked_envelope(obj) == model_envelope(obj), obj
        assert vars(transcripts.fields_of(obj)) == model_fields_of(obj), obj


def test_every_fixture_transcript_line_gets_the_same_columns_either_way():
    lines = [
        line
        for path in sorted(TRANSCRIPTS.rglob("*.jsonl"))
        for line in path.read_bytes().split(b"\n")
        if line.strip()
    ]
    assert len(lines) > 100
    for data in lines:
        for record in parser.parse_line(data).records:
            assert vars(transcripts.fields_of(record.obj)) == model_fields_of(record.obj), data


def test_blank_fields_are_the_dataclass_defaults():
    fields = transcripts.blank_fields()
    assert fields == transcripts.EntryFields()
    assert list(vars(fields)) == list(vars(transcripts.EntryFields()))
    assert fields.flags is not transcripts.blank_fields().flags  # never shared between lines
