"""Every export carries the session's usage and its subagents' conversations (issue 25).

The subagents go in an appendix after the conversation, in the order they started, each with its
own usage; a spawning call points to its run. Two sessions: the sample's, whose Explore subagent
is tied to its Agent call by its .meta.json, and a real subagent file whose main transcript is
missing (tests/fixtures/transcripts/PROVENANCE.md).
"""

from __future__ import annotations

import shutil
from io import StringIO
from pathlib import Path

import orjson
import pytest
from django.core.management import call_command

from introspect.documents import export_formats, export_json
from introspect.models import Session
from introspect.queries import export as queries

pytestmark = pytest.mark.django_db

REPO = Path(__file__).resolve().parents[3]
SAMPLE = REPO / "sample" / "home" / ".claude" / "projects"
ORPHAN_FILE = REPO / "tests" / "fixtures" / "transcripts" / "marot_spotter_agent-acompact-e1f845.jsonl"
LINKED, AGENT, CALL = (
    "d9253f7d-53c6-40ee-932c-a3cba232d3a0",
    "a44d07d08e4c91756",
    "toolu_01XbX6isS6xVzPGuScwYWbPL",
)
ORPHAN, ORPHAN_AGENT = "4d5611e5-241a-462a-8d15-5122611a9569", "acompact-e1f845"


@pytest.fixture
def imported(home):
    projects = home.root / ".claude" / "projects"
    shutil.copytree(SAMPLE, projects)
    folder = projects / "-Users-marot-spotter" / ORPHAN / "subagents"
    folder.mkdir(parents=True)
    shutil.copy(ORPHAN_FILE, folder / f"agent-{ORPHAN_AGENT}.jsonl")
    call_command("ingest", stdout=StringIO())


def export(sid: str, fmt: str) -> str:
    session = Session.objects.select_related("project", "transcript").get(sid=sid)
    parts = export_formats.export_parts(
        fmt, session, queries.export_chunks(session), queries.subagent_runs(session)
    )
    return b"".join(parts).decode()


def test_the_markdown_header_gives_the_sessions_tokens_and_cost(imported):
    text = export(LINKED, "md")
    head = text[: text.index("## Before the first prompt")]
    assert "- Tokens: 443 input · 5,737 output · 6,566,971 cache read · 442,554 cache write\n" in head
    assert "- Cost (estimate, list prices): $7.63\n" in head  # ccusage 20: 7.6266735
    assert "- Subagents: 1, their conversations in the appendix\n" in head


def test_the_markdown_puts_each_subagents_conversation_in_an_appendix_the_call_points_to(imported):
    text = export(LINKED, "md")
    call = text.index("**Tool call: Agent**")
    pointer = text.index(f"> This call ran Subagent `{AGENT}` (Explore)")
    appendix = text.index("\n# Subagents\n")
    run = text.index(f"## Subagent `{AGENT}` (Explore)")
    assert call < pointer < appendix < run
    own = text[run:]
    assert f"- Spawned by: tool call `{CALL}`" in own
    assert "- Models: claude-haiku-4-5-20251001" in own and "- Cost (estimate, list prices): $0.06" in own
    # Its own prompt and tool calls, in its file's order.
    prompt = own.index("> List every route in src/api that must not be rate limited")
    assert prompt < own.index("**Tool call: Grep**") < own.index("**Tool call: Read**")


def test_a_session_without_its_main_transcript_exports_its_subagents(imported):
    text = export(ORPHAN, "md")
    assert "_The main transcript of this session was not imported: its subagents' conversations" in text
    assert "- Cost (estimate, list prices): $0.14\n" in text
    run = text[text.index(f"## Subagent `{ORPHAN_AGENT}`") :]
    assert "- Spawned by: no tool call of the main transcript" in run
    assert "Your task is to create a detailed summary of the conversation so far" in run


def test_the_html_export_has_the_usage_and_an_appendix_linked_from_the_call(imported):
    html = export(LINKED, "html")
    assert "<dt>Cost</dt><dd" in html and "$7.63" in html[: html.index('<section id="conversation"')]
    assert f'<a href="#subagent-{AGENT}">This call ran subagent {AGENT} (Explore)' in html
    appendix = html[html.index('<section id="subagents"') :]
    assert f'<h3 class="cturn" id="subagent-{AGENT}">' in appendix
    assert "$0.0570" in appendix and CALL in appendix
    assert "List every route in src/api that must not be rate limited" in appendix
    assert html.count("<section") == html.count("</section>")


def test_the_json_export_carries_the_usage_and_each_subagents_entries(imported):
    document = orjson.loads(export(LINKED, "json"))
    assert export_json.SessionExport.model_validate(document).session == LINKED
    assert document["usage"] == {
        "input_tokens": 443,
        "output_tokens": 5737,
        "cache_creation_input_tokens": 442554,
        "cache_read_input_tokens": 6566971,
        "cost_usd": 7.6266735,
        "unpriced_messages": 0,
    }
    [run] = document["subagents"]
    assert (run["agent_id"], run["agent_type"], run["tool_use_id"]) == (AGENT, "Explore", CALL)
    assert run["models"] == ["claude-haiku-4-5-20251001"] and run["usage"]["output_tokens"] == 325
    entries = run["conversation"]
    assert entries[0]["is_prompt"] and entries[0]["turn"] == 1
    assert {entry["tool_name"] for entry in entries if entry.get("tool_name")} >= {"Grep", "Read"}
    assert all(entry["line"]["agentId"] == AGENT for entry in entries if entry["line"])

    orphan = orjson.loads(export(ORPHAN, "json"))
    assert orphan["conversation"] == [] and orphan["subagents"][0]["tool_use_id"] is None


def test_a_long_subagent_run_is_read_a_chunk_at_a_time(imported):
    session = Session.objects.get(sid=LINKED)
    [run] = queries.subagent_runs(session, size=3)
    chunks = list(run.chunks)
    assert len(chunks) > 2 and all(len(chunk) <= 3 for chunk in chunks)
    [whole] = queries.subagent_runs(session)
    in_chunks = [card.entry.pk for chunk in chunks for card in chunk]
    assert in_chunks == [card.entry.pk for card in next(whole.chunks)]


def test_the_command_writes_the_subagents_too(imported, tmp_path):
    target = tmp_path / "orphan.md"
    call_command("export", ORPHAN[:8], "--format", "md", "-o", str(target), stderr=StringIO())
    assert f"## Subagent `{ORPHAN_AGENT}`" in target.read_text()
