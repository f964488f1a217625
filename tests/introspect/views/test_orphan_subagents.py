"""A subagent run that no tool call leads to is reached from its session's page, and a session whose
main transcript is missing says so in the list (issue 25: session 6c2214d7, only its
`subagents/agent-afc096d.jsonl` on disk, read "no transcript was imported" and linked nothing).

The fixture is real: marot/spotter's compaction subagent, written by Claude Code 2.1.39 under
`<session>/subagents/`, whose session's main transcript was not published
(tests/fixtures/transcripts/PROVENANCE.md).
"""

from __future__ import annotations

import shutil
from decimal import Decimal
from io import StringIO
from pathlib import Path

import orjson
import pytest
from django.core.management import call_command
from django.urls import reverse

from introspect.models import Session
from tests.fixtures import TRANSCRIPTS

pytestmark = pytest.mark.django_db

FIXTURE = TRANSCRIPTS / "marot_spotter_agent-acompact-e1f845.jsonl"
SAMPLE = Path(__file__).resolve().parents[3] / "sample" / "home" / ".claude" / "projects"
ORPHAN = "4d5611e5-241a-462a-8d15-5122611a9569"
LINKED = "d9253f7d-53c6-40ee-932c-a3cba232d3a0"  # the sample's session with a subagent
AGENT = "acompact-e1f845"


def lay_out_orphan(home) -> None:
    folder = home.root / ".claude" / "projects" / "-Users-marot-spotter" / ORPHAN / "subagents"
    folder.mkdir(parents=True)
    shutil.copy(FIXTURE, folder / f"agent-{AGENT}.jsonl")


def ingest() -> None:
    call_command("ingest", stdout=StringIO())


def section(html: str) -> str:
    start = html.index('<section id="loose-subagents"')
    return html[start : html.index("</section>", start)]


def test_a_session_without_its_main_transcript_links_its_subagents_with_their_usage(client, home):
    lay_out_orphan(home)
    ingest()
    session = Session.objects.get(sid=ORPHAN)
    assert session.transcript_id is None and session.cost_usd == Decimal("0.13688625")

    html = client.get(reverse("introspect:session-detail", args=[ORPHAN])).content.decode()
    found = section(html)
    assert "Subagent transcripts without their main transcript" in found
    url = reverse("introspect:subagent-detail", args=[ORPHAN, AGENT])
    assert f'href="{url}"' in found
    # Its usage: 3 input + 8,681 cache write + 164,830 cache read in, 8 out, at Opus 4.6's prices.
    assert "claude-opus-4-6 · 173.5K in · 8 out · $0.1369" in found
    assert "no transcript was imported" not in html
    assert "its main transcript was not imported" in html

    page = client.get(url)
    assert page.status_code == 200 and AGENT in page.content.decode()


def test_the_session_list_marks_a_session_whose_only_transcripts_are_its_subagents(client, home):
    lay_out_orphan(home)
    home.transcript(
        "/p",
        "whole",
        {"type": "user", "uuid": "u1", "sessionId": "whole", "message": {"role": "user", "content": "hi"}},
    )
    ingest()
    html = client.get(reverse("introspect:session-list")).content.decode()
    rows = {sid: html[html.index(f'title="{sid}"') :][:1500] for sid in (ORPHAN, "whole")}
    assert "subagents only" in rows[ORPHAN].split("</td>")[0]
    assert "subagents only" not in rows["whole"].split("</td>")[0]


def test_a_subagent_tied_to_no_tool_call_of_the_transcript_is_listed_too(client, home):
    trunk = home.transcript(
        "/p",
        "s1",
        {"type": "user", "uuid": "u1", "sessionId": "s1", "message": {"role": "user", "content": "go"}},
    )
    agent = trunk.with_suffix("") / "subagents" / "agent-a1.jsonl"
    agent.parent.mkdir(parents=True)
    agent.write_bytes(
        orjson.dumps(
            {
                "type": "assistant",
                "uuid": "a1",
                "sessionId": "s1",
                "isSidechain": True,
                "agentId": "a1",
                "requestId": "r1",
                "message": {
                    "id": "m1",
                    "model": "claude-haiku-4-5-20251001",
                    "content": [{"type": "text", "text": "done"}],
                    "usage": {"input_tokens": 10, "output_tokens": 70},
                },
            }
        )
        + b"\n"
    )
    ingest()
    found = section(client.get(reverse("introspect:session-detail", args=["s1"])).content.decode())
    assert "Subagent runs tied to no tool call of the transcript" in found
    assert reverse("introspect:subagent-detail", args=["s1", "a1"]) in found


def test_a_session_whose_subagents_are_tied_to_their_calls_lists_none(client, home):
    # The sample's subagent is linked to its Agent call by its .meta.json: shown under that call.
    shutil.copytree(SAMPLE, home.root / ".claude" / "projects")
    ingest()
    html = client.get(reverse("introspect:session-detail", args=[LINKED])).content.decode()
    assert 'id="loose-subagents"' not in html
    assert reverse("introspect:subagent-detail", args=[LINKED, "a44d07d08e4c91756"]) in html


def test_the_orphan_page_reads_a_bounded_number_of_queries(client, home, django_assert_max_num_queries):
    lay_out_orphan(home)
    ingest()
    # The fire-turn page of a session without a conversation, and two for its runs' usage however
    # many there are (queries.subagents.subagent_summaries).
    with django_assert_max_num_queries(11):
        assert client.get(reverse("introspect:session-detail", args=[ORPHAN])).status_code == 200
