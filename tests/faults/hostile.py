"""A HOME whose ids are hostile (issue 12): sessions, agents, ways, ledger folders, knowledge, an ADR.

Imported by the real `manage.py ingest`; shared by the fault cases that walk every page with them.
"""

from __future__ import annotations

import dataclasses
import json
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from introspect.models import SecretFinding, Subagent, TranscriptEntry
from ledger.models import AdrRecord, KnowledgeRecord
from ledger.records import knowledge as knowledge_format
from tests.conftest import append
from tests.faults.conftest import entry, event, jsonl

UUID = "5e7c1a2b-0d4f-4c3e-9a8b-7f6e5d4c3b2a"
SESSIONS = {
    "uuid": UUID,
    "slash": "team/alice/run-1",
    "dotdot": "..",
    "dot": ".",
    "query": "why?not=1&x",
    "hash": "x#top",
    "space": "two words",
    "tab": "tab\there",
    "newline": "line\nbreak",
    "percent": "a%2Fb%",
    "non-ascii": "séance-日本",
    "marker": "~YWJj",
    "long": "L" * 300,
    "long-odd": "odd/" * 75,
    "html": "<b>\"q\"&'s'</b>",
}
# Claude Code names a trunk by its session: only ids that can be file names get one. `...jsonl` is
# written and imported too, but never joined: locate_trunk refuses `..` as agent-ways does.
FILES = [sid for sid in SESSIONS.values() if "/" not in sid and len(sid.encode()) <= 240]
TRUNKS = [sid for sid in FILES if sid != ".."]
HOST = SESSIONS["space"]  # the session whose subagents the files name
AGENT_FILES = ["a b", "#frag?q=1", "..", "é-agent", "~YWJj", "a%2Fb", "tab\tid"]
AGENT_LINKED = "spawned/by/a/slash"  # named only by the trunk's tool result: no file can carry a `/`
AGENTS = [*AGENT_FILES, AGENT_LINKED]
WAYS = [
    "softwaredev/code/testing",
    "a//b",
    "/lead",
    "trail/",
    "up/../x",
    ".",
    "..",
    "q?x=1",
    "h#x",
    "sp ace/x",
    "tab\tx",
    "nl\nx",
    "a%2Fb",
    "wáy/ü",
    "~YWJj",
    "w/" * 150,
    "<i>way</i>",
]
WAY_FILE = "my ways/with #hash?/leaf"  # a directory name with a space, `#` and `?`
ALL_WAYS = [*WAYS, WAY_FILE]
SLUGS = ["-home-dev-proj", "knowledge", "decisions", "with space#?x=1", "~YWJj", "%2F", "ünï"]


@pytest.fixture
def hostile(home, settings, tmp_path):
    """Everything above, imported by `manage.py ingest` from a HOME laid out as the tools lay it out."""
    project = home.root / "proj"
    settings.WAYSWEB_LOCATIONS = dataclasses.replace(
        settings.WAYSWEB_LOCATIONS, own_knowledge=tmp_path / "knowledge"
    )
    lines, n = [], 0
    for number, sid in enumerate(SESSIONS.values()):
        lines.append(event(n, name="session_start", session=sid, project=str(project)))
        n += 1
        for way in ALL_WAYS:
            lines.append(event(n, session=sid, way=way, trigger="keyword", matched_span="commit"))
            n += 5  # 5 s apart: each fire its own turn
        lines.append(
            event(
                n,
                name="way_nearmiss",
                session=sid,
                way=ALL_WAYS[number % len(ALL_WAYS)],
                prob_en="0.47",
                tau_s="0.5",
                margin="0.03",
                trigger="prompt",
            )
        )
        lines.append(
            event(
                n + 1,
                name="way_fired",
                session=sid,
                way=WAYS[1],
                trigger="keyword",
                agent_id=AGENTS[number % len(AGENTS)],
            )
        )
        n += 10
    append(home.live, *lines)
    for sid in FILES:
        said = [entry(sid, 0, text="please commit this"), entry(sid, 1, kind="assistant")]
        if sid == HOST:
            said += spawn(sid)
            # A secret, so the secret routes have a finding to name.
            said.append(entry(sid, 4, kind="assistant", text=f"the deploy token is {TOKEN}"))
        home.transcript(str(project), sid, *said)
    trunk = home.transcript(str(project), HOST)
    for agent in AGENT_FILES:
        path = trunk.with_suffix("") / "subagents" / f"agent-{agent}.jsonl"
        append(
            path,
            jsonl(
                entry(
                    HOST,
                    100,
                    kind="assistant",
                    text=f"subagent {agent} says hi",
                    isSidechain=True,
                    agentId=agent,
                )
            ),
        )
    home.way(home.user_ways, WAY_FILE, "description: a way in an odd folder\npattern: commit")
    for number, slug in enumerate(SLUGS):
        sid = list(SESSIONS.values())[number]
        path = home.root / ".claude" / "ledger" / slug / "2026-11-02T1000Z_e001.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"---\nsession: {json.dumps(sid)}\nepoch: 1\ncontext_pct: 40\n"
            f"timestamp: 2026-11-02T10:00:30Z\nphase: progress\n---\n\nDecision: keep ids as data (ADR-0001).\n"
        )
    candidates = project / ".ai" / "repo" / "knowledge" / "candidates"
    candidates.mkdir(parents=True)
    for number, sid in enumerate(SESSIONS.values()):
        data = {
            "schema": "knowledge/v1",
            "id": f"k-{number}",
            "kind": "knowledge",
            "class": "convention",
            "title": f"Knowledge from session {number}",
            "description": "about ids",
            "status": "candidate",
            "epistemics": "decided",
            "date": "2026-11-02",
            "provenance": {
                "origin": "extracted",
                "derived_from": [f"claude-session:{sid}", f"ledger:{SLUGS[number % len(SLUGS)]}/e1"],
            },
        }
        (candidates / f"k-{number}.md").write_bytes(
            knowledge_format.render_knowledge(data, "# Ids\n\nAs data.")
        )
    adr = project / "doc" / "adr" / "0001-ids-are-data.md"
    adr.parent.mkdir(parents=True)
    adr.write_text(ADR)
    call_command("ingest", stdout=StringIO(), stderr=StringIO())
    # Again: knowledge and ADRs are looked for in the projects the first pass saw.
    call_command("ingest", stdout=StringIO(), stderr=StringIO())
    return project


ADR = """# 1. Ids are data

Date: 2026-11-02

## Status

Accepted

## Context

Session two words named an id with a space.

## Decision

Encode what a URL cannot carry.

## Consequences

Every page reaches every id.
"""


TOKEN = "ghp_R4nd0mT0k3nW1thEnoughEntr0pyXyZ12345"  # a GitHub token's shape


def spawn(sid: str) -> list[dict]:
    """A Task call in the trunk and its result naming the subagent it ran (formats-claude-code.md §11)."""
    call = entry(sid, 2, kind="assistant")
    call["message"]["content"] = [
        {
            "type": "tool_use",
            "id": "toolu_spawn",
            "name": "Task",
            "input": {"description": "look around", "subagent_type": "Explore"},
        }
    ]
    result = entry(sid, 3, kind="user", toolUseResult={"agentId": AGENT_LINKED, "totalTokens": 10})
    result["message"]["content"] = [{"type": "tool_result", "tool_use_id": "toolu_spawn", "content": "done"}]
    return [call, result]


def route_kwargs(pattern: URLPattern, name: str) -> dict | None:
    """Real objects of the hostile HOME for a route's parameters (None: a parameter it cannot fill)."""
    agent = Subagent.objects.filter(session__sid=HOST, agent_id=AGENT_LINKED).get()
    spawning = TranscriptEntry.objects.get(session=agent.session, tool_use_id="toolu_spawn", type="assistant")
    fill = {
        "session_id": agent.session.sid,
        "agent_id": agent.agent_id,
        "way_id": WAY_FILE,
        "slug": SLUGS[3],
        "entry_id": spawning.pk,  # the Task call: its raw input is a code box
        "slot": "input",
        "fmt": "html",  # a session export: the largest of the three formats
        "finding_id": SecretFinding.objects.order_by("pk").values_list("pk", flat=True).first(),
    }
    kwargs = {}
    for key in re.findall(r"<\w+:(\w+)>", str(pattern.pattern)):
        if key == "pk":
            model = AdrRecord if name.startswith("ledger:record-") else KnowledgeRecord
            kwargs[key] = model.objects.order_by("pk").values_list("pk", flat=True).first()
        elif key in fill:
            kwargs[key] = fill[key]
        else:
            return None
    return kwargs


def every_route(patterns=None, namespace: str = "") -> list[tuple[str, URLPattern]]:
    """(`namespace:name`, pattern) of each named URL pattern of the project."""
    found = []
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            found += every_route(pattern.url_patterns, inner)
        elif isinstance(pattern, URLPattern) and pattern.name:
            found.append((f"{namespace}{pattern.name}", pattern))
    return found


def every_page(client) -> list[tuple[str, str]]:
    """(route name, URL) of every route that answers GET, filled with the hostile HOME's objects."""
    pages = []
    for name, pattern in every_route():
        kwargs = route_kwargs(pattern, name)
        assert kwargs is not None, f"no object to fill {name}"
        url = reverse(name, kwargs=kwargs)
        if client.get(url).status_code != 405:  # POST-only actions are not pages
            pages.append((name, url))
    return pages
