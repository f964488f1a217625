"""The shared format writers write what the importer reads back: each writer, parsed by its own parser."""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime

import orjson

from introspect.importer import gzip_tail, parser, transcripts, wayfiles
from introspect.rules import event_fields, timestamps
from introspect.rules.join import project_slug
from ledger.importer import entries, majordomus_ledger
from ledger.records import document, knowledge
from ledger.records import parse as adrs
from sample import formats

SID = "0c6f1f7e-5d1b-4c33-9f0a-5e55e55e5501"
PROJECT = "/home/dev/src/api-server"
ENV = formats.envelope(
    cwd=PROJECT, session_id=SID, version="2.1.180", git_branch="main", slug="quiet-harbor-river"
)
TS = "2026-11-05T13:00:41.250Z"
# The bench corpus's order, every flag flipped (bench/corpus.py ORDER).
OTHER = formats.KeyOrder(
    type_first=True,
    fields_after_stamp=False,
    metadata_after_stamp=True,
    patch_before_flags=True,
    agent_caller_first=True,
)


def parsed(line: str) -> dict:
    """The object the importer's line parser makes of one written line (it must be a clean record)."""
    result = parser.parse_line(line.encode())
    assert result.quarantine is None and result.inert == ""
    [record] = result.records
    assert record.flags == ()
    return record.obj


def columns(line: str) -> transcripts.EntryFields:
    fields = transcripts.fields_of(parsed(line))
    assert fields.flags == []
    return fields


# ---------------------------------------------------------------------------------- agent-ways events


def test_it_writes_an_events_line_with_ts_first_and_numbers_as_given():
    line = formats.events_line(
        "2026-11-05T13:00:42Z",
        "way_fired",
        way="softwaredev/code/testing",
        token_position="41234",
        fire_score="0.6220",
        project=PROJECT,
        session=SID,
    )
    assert line.startswith('{"ts":"2026-11-05T13:00:42Z","event":"way_fired",')  # rotation relies on it
    assert "\n" not in line
    event, flags = event_fields.validate_event(parsed(line))
    assert flags == ()
    assert (event["event"], event["way"], event["session"], event["project"]) == (
        "way_fired",
        "softwaredev/code/testing",
        SID,
        PROJECT,
    )
    assert (event["token_position"], event["fire_score"]) == (41234, 0.622)
    assert timestamps.utc_second(event["ts"]) == datetime(2026, 11, 5, 13, 0, 42, tzinfo=UTC)


def test_it_keeps_native_json_where_agent_ways_writes_it_and_non_ascii_unescaped():
    line = formats.events_line(
        "2026-11-07T09:10:44Z",
        "scan_candidates",
        sidecar=False,
        candidates=[{"way": "writing/notes", "cosine": 0.6123, "margin": None}],
        surface="Notiz zum Wochenrückblick…",
    )
    assert parsed(line) == {
        "ts": "2026-11-07T09:10:44Z",
        "event": "scan_candidates",
        "sidecar": False,
        "candidates": [{"way": "writing/notes", "cosine": 0.6123, "margin": None}],
        "surface": "Notiz zum Wochenrückblick…",
    }
    assert "Wochenrückblick…" in line


def test_it_terminates_every_jsonl_line():
    assert formats.jsonl(["{}", '{"a":1}']) == '{}\n{"a":1}\n'
    assert formats.jsonl([]) == ""


def test_it_writes_gzip_members_the_tailer_reads_one_after_another(tmp_path):
    first = [formats.events_line(f"2026-11-02T12:00:0{i}Z", "session_start", session=SID) for i in range(3)]
    second = [formats.events_line("2026-11-02T13:30:00Z", "way_fired", way="build", session=SID)]
    one = formats.gzip_member(formats.jsonl(first).encode(), name="events-2026-11-03.jsonl")
    two = formats.gzip_member(formats.jsonl(second).encode(), level=1)
    path = tmp_path / "events-2026-11-03.jsonl.gz"
    path.write_bytes(one + two)
    with gzip_tail.GzipTail(path) as tail:
        chunk = tail.chunk(None)
    assert [line.data.decode() for line in chunk.lines] == first + second
    assert [line.offset for line in chunk.lines] == [0, 0, 0, len(one)]  # lines share their member's offset
    assert chunk.damage == []


def test_it_writes_reproducible_gzip_members_with_mtime_zero_and_the_name_only_when_given():
    data = formats.jsonl([formats.events_line("2026-11-02T12:00:00Z", "session_start")]).encode()
    named = formats.gzip_member(data, name="events-2026-11-03.jsonl")
    assert named == formats.gzip_member(data, name="events-2026-11-03.jsonl")
    assert named[4:8] == b"\0\0\0\0"  # MTIME
    assert named[3] & 0x08 and named[10:].startswith(b"events-2026-11-03.jsonl\0")  # FNAME
    assert not formats.gzip_member(data)[3] & 0x08
    assert gzip.decompress(named) == gzip.decompress(formats.gzip_member(data, level=1)) == data


# ------------------------------------------------------------------------------------------ way files


def test_it_writes_a_way_file_whose_front_matter_and_body_the_way_parser_reads():
    front = (
        "description: git commit messages\nvocabulary: commit squash\npattern: \\bcommit\\b\nrefire: 0.15\n"
    )
    text = formats.way_file(front, "\n# Git Commits Way\n\n- Keep commits atomic.\n")
    assert text == (
        "---\ndescription: git commit messages\nvocabulary: commit squash\npattern: \\bcommit\\b\n"
        "refire: 0.15\n---\n# Git Commits Way\n\n- Keep commits atomic.\n"
    )
    way = wayfiles.parse_way(
        "softwaredev/delivery/commits", "softwaredev/delivery/commits/commits.md", text.encode()
    )
    assert way.error == ""
    assert way.frontmatter["description"] == "git commit messages"
    assert way.criteria["pattern"] == "\\bcommit\\b"
    assert way.body == "# Git Commits Way\n\n- Keep commits atomic."


def test_it_names_a_way_file_after_its_leaf_directory():
    assert formats.way_path("softwaredev/delivery/commits") == "softwaredev/delivery/commits/commits.md"
    assert formats.way_path("build") == "build/build.md"
    assert (
        formats.way_path("softwaredev/code/testing", check=True)
        == "softwaredev/code/testing/testing.check.md"
    )


# ---------------------------------------------------------------------------- Claude Code transcripts


def test_it_slugs_project_paths_as_claude_code_and_the_importer_do():
    for path in (PROJECT, "/home/dev/src/llama.cpp-kv", "/home/dev/src/ml.experiments_2"):
        assert formats.project_slug(path) == project_slug(path)
    assert formats.transcript_path(PROJECT, SID) == f".claude/projects/-home-dev-src-api-server/{SID}.jsonl"
    assert formats.subagent_path(PROJECT, SID, "a0123456789abcdef", ".meta.json") == (
        f".claude/projects/-home-dev-src-api-server/{SID}/subagents/agent-a0123456789abcdef.meta.json"
    )


def test_it_writes_a_prompt_the_importer_reads_as_a_prompt():
    line = formats.transcript_prompt(
        None, ENV, "add rate limiting", prompt_id="p-1", uuid="u-1", timestamp=TS
    )
    row = columns(line)
    assert (row.type, row.uuid, row.parent_uuid, row.line_session_id) == ("user", "u-1", None, SID)
    assert (row.is_prompt, row.prompt_id, row.text, row.cwd, row.version) == (
        True,
        "p-1",
        "add rate limiting",
        PROJECT,
        "2.1.180",
    )
    assert row.ts == datetime(2026, 11, 5, 13, 0, 41, 250000, tzinfo=UTC)
    assert parsed(line)["permissionMode"] == "default"


def test_it_writes_one_assistant_line_per_block_sharing_the_usage_key():
    usage = formats.usage(3, 14000, 36500, 120)
    block = formats.text_block("Two options.")
    line = formats.transcript_assistant(
        "u-1",
        ENV,
        block,
        model="claude-opus-4-6",
        message_id="msg_01a",
        request_id="req_011Cb",
        stop_reason="end_turn",
        usage=usage,
        uuid="u-2",
        timestamp=TS,
    )
    row = columns(line)
    assert (row.type, row.parent_uuid, row.message_id, row.request_id, row.model) == (
        "assistant",
        "u-1",
        "msg_01a",
        "req_011Cb",
        "claude-opus-4-6",
    )
    assert (
        row.input_tokens,
        row.cache_creation_input_tokens,
        row.cache_read_input_tokens,
        row.output_tokens,
    ) == (3, 14000, 36500, 120)
    assert row.has_usage and row.text == "Two options."
    message = parsed(line)["message"]
    assert message["stop_reason"] == "end_turn" and message["content"] == [block]
    assert message["usage"]["cache_creation"] == {
        "ephemeral_5m_input_tokens": 0,
        "ephemeral_1h_input_tokens": 14000,
    }


def test_it_writes_a_tool_call_and_its_result_linked_by_id():
    call = formats.tool_use_block("toolu_01x", "Bash", {"command": "make test", "description": "make"})
    text, structured = formats.bash_tool_result("248 passed", error=False)
    result = formats.transcript_tool_result(
        "u-2",
        ENV,
        formats.tool_result_block("toolu_01x", text, is_error=False),
        result=structured,
        assistant_uuid="u-2",
        uuid="u-3",
        timestamp=TS,
    )
    line = formats.transcript_assistant(
        "u-1",
        ENV,
        call,
        model="claude-opus-4-6",
        message_id="m",
        request_id="r",
        stop_reason="tool_use",
        usage=formats.usage(1, 0, 0, 9),
        uuid="u-2",
        timestamp=TS,
    )
    assert (columns(line).tool_use_id, columns(line).tool_name) == ("toolu_01x", "Bash")
    row = columns(result)
    assert (row.tool_result_id, row.is_error, row.is_prompt, row.text) == (
        "toolu_01x",
        False,
        False,
        "248 passed",
    )
    assert parsed(result)["toolUseResult"] == {
        "stdout": "248 passed",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
    }
    assert parsed(result)["sourceToolAssistantUUID"] == "u-2"


def test_it_writes_a_failed_command_as_an_error_result_whose_structured_copy_is_the_text():
    text, structured = formats.bash_tool_result("1 failed", error=True)
    assert text == structured == "Error: Exit code 1\n1 failed"
    line = formats.transcript_tool_result(
        "u-2",
        ENV,
        formats.tool_result_block("t", text, is_error=True),
        result=structured,
        assistant_uuid="u-2",
        uuid="u-3",
        timestamp=TS,
    )
    assert columns(line).is_error


def test_it_writes_tool_results_of_read_grep_edit_and_write():
    assert formats.numbered_line(7, "import time") == "     7→import time"
    assert formats.read_tool_result("/p/a.py", "x = 1", start_line=3, num_lines=1, total_lines=40) == {
        "type": "text",
        "file": {"filePath": "/p/a.py", "content": "x = 1", "numLines": 1, "startLine": 3, "totalLines": 40},
    }
    assert formats.grep_tool_result(["a.py", "b.py"]) == {
        "mode": "files_with_matches",
        "filenames": ["a.py", "b.py"],
        "numFiles": 2,
    }
    text, edit = formats.edit_tool_result("/p/a.py", "a\nb", "c", start=12)
    assert text == "The file /p/a.py has been updated successfully."
    assert edit["structuredPatch"] == [
        {"oldStart": 12, "oldLines": 2, "newStart": 12, "newLines": 1, "lines": ["-a", "-b", "+c"]}
    ]
    assert (edit["originalFile"], edit["userModified"], edit["replaceAll"]) == (None, False, False)
    assert formats.write_tool_result("/p/n.py", "pass") == (
        "File created successfully at: /p/n.py",
        {"type": "create", "filePath": "/p/n.py", "content": "pass", "structuredPatch": []},
    )


def test_it_writes_a_subagent_spawn_its_result_and_its_sidechain_lines():
    agent = "a0123456789abcdef"
    spawn = formats.agent_tool_use_block(
        "toolu_01s", description="Find routes", prompt="List them.", subagent_type="Explore"
    )
    assert spawn["input"] == {
        "description": "Find routes",
        "prompt": "List them.",
        "subagent_type": "Explore",
    }
    block, structured = formats.agent_tool_result(
        "toolu_01s",
        "Three routes.",
        agent_id=agent,
        total_tokens=9000,
        tool_uses=2,
        duration_ms=4100,
        usage=formats.usage(4, 10, 20, 380, breakdown=False),
    )
    line = formats.transcript_tool_result(
        "u-5", ENV, block, result=structured, assistant_uuid="u-5", uuid="u-6", timestamp=TS
    )
    row = columns(line)
    assert (row.tool_result_id, row.spawned_agent_id) == ("toolu_01s", agent)
    assert (
        f"agentId: {agent}" in row.text
        and "<usage>total_tokens: 9000\ntool_uses: 2\nduration_ms: 4100</usage>" in row.text
    )
    assert "cache_creation" not in structured["usage"]
    sub_env = formats.envelope(
        cwd=PROJECT, session_id=SID, version="2.1.180", git_branch="main", slug="s", agent_id=agent
    )
    sub = columns(formats.transcript_user(None, sub_env, "List them.", uuid="u-7", timestamp=TS))
    assert (sub.is_sidechain, sub.agent_id, sub.line_session_id) == (True, agent, SID)
    assert json.loads(
        formats.subagent_meta(agent_type="Explore", description="Find routes", tool_use_id="toolu_01s")
    ) == {"agentType": "Explore", "description": "Find routes", "toolUseId": "toolu_01s"}
    assert formats.subagent_meta(agent_type="Explore", description="d", tool_use_id="t").endswith("}\n")


def test_it_writes_hook_context_as_an_attachment_and_a_hook_start_as_progress():
    line = formats.transcript_attachment(
        "u-1",
        ENV,
        hook_event="UserPromptSubmit",
        hook_name="UserPromptSubmit",
        tool_use_id="h-1",
        content=["# Testing Way", "# Build Way"],
        uuid="u-2",
        timestamp=TS,
    )
    row = columns(line)
    assert (row.type, row.subtype, row.hook_event, row.text) == (
        "attachment",
        "hook_additional_context",
        "UserPromptSubmit",
        "# Testing Way\n# Build Way",
    )
    assert parsed(line)["attachment"]["toolUseID"] == "h-1"
    progress = formats.transcript_hook_progress(
        "u-1",
        ENV,
        hook_event="PreToolUse",
        hook_name="PreToolUse:Bash",
        command="hook.sh PreToolUse",
        tool_use_id="toolu_01x",
        uuid="u-3",
        timestamp=TS,
    )
    row = columns(progress)
    assert (row.type, row.subtype, row.hook_event) == ("progress", "hook_progress", "PreToolUse")
    assert parsed(progress)["parentToolUseID"] == parsed(progress)["toolUseID"] == "toolu_01x"


def test_it_writes_a_compaction_as_a_boundary_and_a_summary():
    boundary = formats.transcript_compact_boundary(
        "u-9",
        ENV,
        trigger="auto",
        pre_tokens=166000,
        post_tokens=12000,
        duration_ms=41000,
        uuid="b-1",
        timestamp=TS,
    )
    row = columns(boundary)
    assert (row.type, row.subtype, row.parent_uuid, row.logical_parent_uuid) == (
        "system",
        "compact_boundary",
        None,
        "u-9",
    )
    assert parsed(boundary)["compactMetadata"] == {
        "trigger": "auto",
        "preTokens": 166000,
        "postTokens": 12000,
        "durationMs": 41000,
    }
    summary = columns(
        formats.transcript_compact_summary("b-1", ENV, "1. Rate limiting.", uuid="s-1", timestamp=TS)
    )
    assert (summary.is_compact_summary, summary.is_prompt, summary.parent_uuid) == (True, False, "b-1")
    assert summary.text == formats.COMPACT_SUMMARY + "1. Rate limiting."


def test_it_writes_the_lines_outside_the_conversation_chain():
    assert columns(
        formats.transcript_turn_duration("u-1", ENV, duration_ms=5400, uuid="t-1", timestamp=TS)
    ).subtype == ("turn_duration")
    assert (
        parsed(formats.transcript_turn_duration("u-1", ENV, duration_ms=5400, uuid="t", timestamp=TS))[
            "durationMs"
        ]
        == 5400
    )
    assert columns(formats.transcript_ai_title(SID, "Add rate limiting")).text == "Add rate limiting"
    for line in (
        formats.transcript_permission_mode(SID),
        formats.transcript_last_prompt(SID, "done"),
        formats.transcript_file_history_snapshot(
            "u-1", {"/p/a.py": formats.file_backup("0a1b@v1", 1, TS)}, timestamp=TS
        ),
    ):
        row = columns(line)
        assert row.inert and row.uuid is None
        assert parsed(line).get("sessionId", SID) == SID


def test_it_writes_the_same_objects_in_either_key_order():
    """Key order is the generators' own (byte-stable output), never something a reader may rely on."""
    pairs = [
        lambda order: formats.transcript_prompt(
            "p", ENV, "hi", prompt_id="q", uuid="u", timestamp=TS, order=order
        ),
        lambda order: formats.transcript_assistant(
            "p",
            ENV,
            formats.text_block("ok"),
            model="m",
            message_id="i",
            request_id="r",
            stop_reason=None,
            usage=formats.usage(1, 2, 3, 4),
            uuid="u",
            timestamp=TS,
            order=order,
        ),
        lambda order: formats.transcript_compact_boundary(
            "p",
            ENV,
            trigger="manual",
            pre_tokens=1,
            post_tokens=2,
            duration_ms=3,
            uuid="u",
            timestamp=TS,
            order=order,
        ),
        lambda order: formats.dumps(formats.edit_tool_result("/a", "x", "y", start=1, order=order)),
        lambda order: formats.dumps(
            formats.agent_tool_use_block("t", description="d", prompt="p", subagent_type="s", order=order)
        ),
    ]
    for write in pairs:
        sample, bench = write(formats.SAMPLE_ORDER), write(OTHER)
        assert sample != bench
        assert orjson.loads(sample) == orjson.loads(bench)


# -------------------------------------------------------------------------------- ADR-112 ledger


def test_it_writes_a_ledger_entry_the_entry_parser_reads():
    ts = datetime(2026, 11, 5, 13, 38, 29, tzinfo=UTC)
    transcript = "~/" + formats.transcript_path(PROJECT, SID)
    text = formats.ledger_entry(
        session=SID,
        transcript=transcript,
        epoch=3,
        context_pct=72,
        timestamp="2026-11-05T13:38:29Z",
        phase="handoff",
        body="\nHandoff before compaction.\n\nOpen threads: none.\n",
    )
    entry = entries.parse_entry(text.encode())
    assert entry.quarantine is None
    assert (entry.session, entry.transcript, entry.epoch, entry.context_pct, entry.phase) == (
        SID,
        transcript,
        3,
        72,
        "handoff",
    )
    assert (entry.timestamp, entry.ts) == ("2026-11-05T13:38:29Z", ts)
    assert entry.body == "Handoff before compaction.\n\nOpen threads: none."
    name = formats.ledger_entry_name(ts, 3)
    assert name == "2026-11-05T1338Z_e003.md" and entries.name_epoch(name) == 3


def test_it_leaves_out_a_ledger_entry_transcript_it_is_not_given():
    text = formats.ledger_entry(
        session=SID,
        epoch=0,
        context_pct=30,
        timestamp="2026-11-05T13:00:00Z",
        phase="orientation",
        body="Task: rate limiting.",
    )
    assert "transcript" not in text
    assert entries.parse_entry(text.encode()).transcript == ""


# ------------------------------------------------------------------------------------------ majordomus


def test_it_writes_a_knowledge_record_that_checks_out_against_its_schema():
    text = formats.knowledge_record(
        id="s-20261105130042-1cb9-0a1b2c3d4e5f",
        cls="lesson",
        status="candidate",
        epistemics="observed",
        date="2026-11-05",
        title='The refill script takes seconds: not "ms"',
        description="Observed as friction.",
        tags=["derived", "observation"],
        origin="extracted",
        derived_from=["session:s-20261105130042-1cb9"],
        relations=[("relates_to", "file:docs/adr/0009-rate-limiting.md")],
        about="src/api/ratelimit.lua",
        route="project",
        sections=[("Evidence", "\nTwo test runs failed.\n")],
    )
    record = knowledge.parse_knowledge(text.encode(), stem="s-20261105130042-1cb9-0a1b2c3d4e5f")
    assert record.quarantine is None and record.problems == ()
    assert list(record.data) == [
        "schema",
        "id",
        "kind",
        "class",
        "title",
        "description",
        "status",
        "epistemics",
        "date",
        "tags",
        "provenance",
        "relations",
        "about",
        "route",
    ]
    assert record.data["title"] == 'The refill script takes seconds: not "ms"'
    assert record.data["provenance"] == {
        "origin": "extracted",
        "derived_from": ["session:s-20261105130042-1cb9"],
    }
    assert record.data["relations"] == [
        {"type": "relates_to", "target": "file:docs/adr/0009-rate-limiting.md"}
    ]
    assert (record.data["about"], record.data["route"]) == ("src/api/ratelimit.lua", "project")
    assert record.body == (
        '# The refill script takes seconds: not "ms"\n\nObserved as friction.\n\n# Evidence\n\n'
        "Two test runs failed."
    )


def test_it_writes_only_the_knowledge_keys_a_record_has():
    text = formats.knowledge_record(
        id="k-1",
        cls="fact",
        status="superseded",
        epistemics="decided",
        date="2026-11-06",
        title="t",
        description="d",
        superseded_by="k-2",
    )
    record = knowledge.parse_knowledge(text.encode(), stem="k-1")
    assert record.problems == ()
    assert (
        "provenance" not in record.data
        and "tags" not in record.data
        and record.data["superseded_by"] == "k-2"
    )


def test_it_writes_majordomus_ledger_lines_with_the_envelope_event_first():
    pairs = formats.mj_envelope(
        "2026-11-05T14:11:29Z",
        "provider.event.received",
        head="5d6e7f8",
        branch="feat/rate-limit",
        by="majordomus/0.6.0",
        session="s-20261105130042-1cb9",
    )
    line = formats.mj_line(*pairs, ("provider", "claude"), ("event", "PreCompact"), ("provider_session", SID))
    assert line.count('"event":') == 2  # a dict could not hold both (knowledge-and-records.md §7.1)
    assert majordomus_ledger.parse_mj_line(line.encode()) == {
        "ts": "2026-11-05T14:11:29Z",
        "event": "provider.event.received",
        "head": "5d6e7f8",
        "branch": "feat/rate-limit",
        "by": "majordomus/0.6.0",
        "session": "s-20261105130042-1cb9",
        "provider": "claude",
        "provider_event": "PreCompact",
        "provider_session": SID,
    }
    closed = formats.mj_line(
        *formats.mj_envelope(
            "2026-11-05T14:29:33Z", "session.closed", head="e4b1c7d", branch="main", by="majordomus/0.6.0"
        ),
        ("outcome", "completed"),
    )
    assert "session" not in majordomus_ledger.parse_mj_line(closed.encode())


def test_it_quotes_yaml_scalars_so_they_read_back_as_written():
    front = formats.front_matter({"title": formats.yaml_quoted('a: "b" # c'), "skip": None, "tags": ["x"]})
    assert front == '---\ntitle: "a: \\"b\\" # c"\ntags:\n  - x\n---\n'
    data, _, problem = document.split_document((front + "\nbody\n").encode())
    assert problem is None and data == {"title": 'a: "b" # c', "tags": ["x"]}


# ------------------------------------------------------------------------------------------------ ADRs


def adr(text: str, rel_path: str) -> adrs.AdrDoc:
    doc = adrs.parse_adr(text.encode(), rel_path=rel_path)
    assert doc.quarantine is None and doc.problems == []
    return doc


def test_it_writes_an_adr_tools_record_with_its_supersedes_link():
    text = formats.adr_nygard(
        7,
        "Use short-lived JWT access tokens",
        date="2026-06-22",
        status="Accepted\n\nSupercedes [3. Use session cookies](0003-use-session-cookies.md)",
        sections=[
            ("Context", "Session lookups are slow."),
            ("Decision", "JWTs."),
            ("Consequences", "Revocation lags."),
        ],
    )
    assert text.startswith(
        "# 7. Use short-lived JWT access tokens\n\nDate: 2026-06-22\n\n## Status\n\nAccepted\n"
    )
    doc = adr(text, "docs/adr/0007-use-short-lived-jwt-access-tokens.md")
    assert (doc.format, doc.id, doc.title, doc.status, doc.date) == (
        "nygard",
        "ADR-0007",
        "Use short-lived JWT access tokens",
        "accepted",
        "2026-06-22",
    )
    assert doc.supersedes == ["ADR-0003"]
    assert [heading for heading, _ in doc.sections] == ["Status", "Context", "Decision", "Consequences"]


def test_it_writes_madr_records_with_front_matter_or_the_madr_2_bullet_header():
    current = formats.adr_madr(
        "Use Vitest",
        front={
            "status": formats.yaml_quoted("superseded by ADR-0002"),
            "date": "2026-11-06",
            "decision-makers": ["dev"],
            "consulted": ["Jana Weber"],
        },
        sections=[
            ("Context and Problem Statement", "Which runner?"),
            ("Decision Outcome", "Chosen option: Vitest."),
        ],
    )
    doc = adr(current, "docs/decisions/0001-use-vitest.md")
    assert (doc.format, doc.id, doc.title, doc.status, doc.date) == (
        "madr",
        "ADR-0001",
        "Use Vitest",
        "superseded",
        "2026-11-06",
    )
    assert (doc.superseded_by, doc.deciders) == (["ADR-0002"], ["dev"])
    old = formats.adr_madr(
        "Use MADR",
        header=[("Status", "accepted"), ("Deciders", "dev, Jana Weber"), ("Date", "2026-02-16")],
        sections=[("Context and Problem Statement", "Which format?")],
    )
    doc = adr(old, "docs/decisions/0000-use-madr.md")
    assert (doc.format, doc.status, doc.date, doc.deciders) == (
        "madr2",
        "accepted",
        "2026-02-16",
        ["dev", "Jana Weber"],
    )


def test_it_writes_an_agent_ways_record_with_its_archive_banner():
    text = formats.adr_agent_ways(
        101,
        "Keep the session in localStorage",
        front={
            "status": "Superseded",
            "date": "2026-03-10",
            "deciders": ["dev", "claude"],
            "related": ["ADR-102"],
            "superseded_by": "[ADR-103]",
        },
        banner="Archived 2026-11-03: superseded by ADR-103.",
        sections=[
            ("Context", "A reload forgot the user."),
            ("Decision", "localStorage."),
            ("Consequences", "### Positive\n- No flash."),
            ("Alternatives Considered", "- **Cookie only**"),
        ],
    )
    assert "\n# ADR-101: Keep the session in localStorage\n\n> Archived 2026-11-03" in text
    doc = adr(text, "docs/architecture/archive/frontend/ADR-101-keep-the-session-in-localstorage.md")
    assert (doc.format, doc.id, doc.title, doc.date) == (
        "agentways",
        "ADR-0101",
        "Keep the session in localStorage",
        "2026-03-10",
    )
    assert (doc.superseded_by, doc.related, doc.deciders) == (["ADR-0103"], ["ADR-0102"], ["dev", "claude"])


def test_it_writes_a_majordomus_adr_with_typed_refs_and_provenance():
    text = formats.adr_majordomus(
        id="adr-0012",
        title="Burst size is set per API key tier",
        status="accepted",
        date="2026-11-09",
        tags=["ratelimit"],
        supersedes=["adr-0011"],
        related=["file:src/api/ratelimit.py"],
        origin="extracted",
        derived_from=["session:s-20261105130042-1cb9"],
        body="\n# Context\n\nTwo partners.\n\n# Decision\n\nTiers.\n",
    )
    doc = adr(text, ".ai/repo/adrs/0012-burst-size-is-set-per-api-key-tier.md")
    assert (doc.format, doc.id, doc.title, doc.status, doc.date) == (
        "majordomus",
        "ADR-0012",
        "Burst size is set per API key tier",
        "accepted",
        "2026-11-09",
    )
    assert (doc.supersedes, doc.tags, doc.related) == (
        ["ADR-0011"],
        ["ratelimit"],
        ["file:src/api/ratelimit.py"],
    )
    assert doc.provenance == {"origin": "extracted", "derived_from": ["session:s-20261105130042-1cb9"]}
