"""Issue 12, ids are data: any session, agent or way id and any ledger folder reaches every page.

Sessions, agents, ways and ledger folders named with `/`, `..`, `?`, `#`, whitespace, `%2F`,
non-ASCII, a leading `~` (the converters' own mark) and 300 characters are imported through the
real importer (events in the live log, a trunk transcript, subagent files, a way file, ledger
entries, a knowledge candidate), then every page of both apps is walked: each answers 200 (404
where that is right), shows the id escaped, every link and htmx URL on it routes back to an id
that exists, and every `id=`, `#fragment` and `hx-target` it carries is valid and unambiguous.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
from io import StringIO
from urllib.parse import unquote, urlencode, urljoin, urlsplit

import orjson
import pytest
from django.core.management import call_command
from django.urls import Resolver404, resolve, reverse

from introspect.models import Project, Session, Subagent, Way
from ledger.importer import documents
from ledger.models import KnowledgeRecord, LedgerEntry
from tests.conftest import append
from tests.faults.conftest import entry, event, jsonl
from tests.introspect.test_views import elements

pytestmark = pytest.mark.django_db

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
LINK_ATTRS = {"href", "hx-get", "hx-post", "data-href", "data-replay-url", "action"}


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
            f"timestamp: 2026-11-02T10:00:30Z\nphase: progress\n---\n\nDecision: keep ids as data.\n"
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
        (candidates / f"k-{number}.md").write_bytes(documents.render_knowledge(data, "# Ids\n\nAs data."))
    call_command("ingest", stdout=StringIO(), stderr=StringIO())
    call_command(
        "ingest", stdout=StringIO(), stderr=StringIO()
    )  # knowledge of the projects the first pass saw
    return project


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


# --- what a page must hold ----------------------------------------------------------------------


class Known:
    """The ids the database holds: a link must route to one of them, never to a mangled one."""

    def __init__(self):
        self.sessions = set(Session.objects.values_list("sid", flat=True))
        self.agents = set(Subagent.objects.values_list("session__sid", "agent_id"))
        self.ways = set(Way.objects.values_list("way_id", flat=True)) | set(ALL_WAYS)
        self.slugs = set(LedgerEntry.objects.values_list("project_slug", flat=True))


def attributes(body: str) -> list[tuple[str, str, str]]:
    return [(tag, name, value or "") for tag, attrs in elements(body) for name, value in attrs]


def linked(body: str, page: str) -> list[tuple[str, object]]:
    """(url, resolver match) of every same-site link and htmx URL on the page."""
    out = []
    for _, name, value in attributes(body):
        if name not in LINK_ATTRS or not value:
            continue
        parts = urlsplit(urljoin("http://testserver" + page, value))
        assert parts.netloc == "testserver", (page, value)
        if parts.path.startswith("/static/"):
            continue
        try:
            out.append((value, resolve(unquote(parts.path))))
        except Resolver404:
            raise AssertionError(f"{value!r} on {page!r} routes nowhere") from None
    return out


def check_page(
    client,
    url: str,
    known: Known,
    *,
    shows: list[str] = (),
    links_to: dict | None = None,
    fragment: bool = False,
    status: int = 200,
) -> str:
    """GET `url`: the status, each of `shows` escaped in the body, links routing to known ids, and
    DOM ids that are valid, unique and the target of every `#` link and `hx-target` on the page."""
    response = client.get(url, headers={"HX-Request": "true"} if fragment else {})
    assert response.status_code == status, (url, response.status_code)
    body = response.content.decode()
    if status != 200:
        return body
    for text in shows:
        assert html.escape(text) in body, (url, text)
    found: dict[str, set] = {"session_id": set(), "agent_id": set(), "way_id": set(), "slug": set()}
    for value, match in linked(body, url):
        kwargs = match.kwargs
        if "session_id" in kwargs:
            assert kwargs["session_id"] in known.sessions, (url, value, kwargs)
        if "agent_id" in kwargs:
            assert (kwargs["session_id"], kwargs["agent_id"]) in known.agents, (url, value, kwargs)
        if "way_id" in kwargs:
            assert kwargs["way_id"] in known.ways, (url, value, kwargs)
        if "slug" in kwargs:
            assert kwargs["slug"] in known.slugs, (url, value, kwargs)
        for key, ids in found.items():
            if key in kwargs:
                ids.add(kwargs[key])
        # Every URL the page builds for a route is the one reverse() builds: one URL per id.
        assert (
            reverse(match.view_name, kwargs=kwargs)
            == urlsplit(urljoin("http://testserver" + url, value)).path
        )
    for key, ids in (links_to or {}).items():
        assert set(ids) <= found[key], (url, key, set(ids) - found[key])
    check_dom_ids(body, url)
    return body


def check_dom_ids(body: str, url: str) -> None:
    ids = [value for _, name, value in attributes(body) if name == "id"]
    for value in ids:
        assert value and not re.search(r"\s", value), (url, value)
        assert re.fullmatch(r"[A-Za-z0-9_-]+", value), (url, value)  # a selector needs no escaping
    assert len(ids) == len(set(ids)), (url, sorted({v for v in ids if ids.count(v) > 1}))
    present = set(ids)
    page_path = urlsplit(url).path
    for _, name, value in attributes(body):
        if name == "hx-target" and value.startswith("#"):
            assert value[1:] in present, (url, value)
        if name == "href" and "#" in value:
            parts = urlsplit(urljoin("http://testserver" + url, value))
            if parts.path == page_path and not parts.query and parts.fragment:
                assert parts.fragment in present, (url, value)
            if parts.fragment:
                assert re.fullmatch(r"[A-Za-z0-9_-]+", parts.fragment), (url, value)


def values(document) -> set:
    if isinstance(document, dict):
        return set().union(*(values(v) for v in document.values())) if document else set()
    if isinstance(document, list):
        return set().union(*(values(v) for v in document)) if document else set()
    return {document}


# --- the walk -----------------------------------------------------------------------------------


def test_it_imports_every_hostile_id_as_written(hostile):
    assert set(SESSIONS.values()) <= set(Session.objects.values_list("sid", flat=True))
    assert set(AGENTS) <= set(Subagent.objects.filter(session__sid=HOST).values_list("agent_id", flat=True))
    assert WAY_FILE in set(Way.objects.values_list("way_id", flat=True))
    assert set(SLUGS) <= set(LedgerEntry.objects.values_list("project_slug", flat=True))
    assert KnowledgeRecord.objects.filter(session__sid=SESSIONS["slash"]).exists()


@pytest.mark.parametrize("label", list(SESSIONS))
def test_it_reverses_and_resolves_each_odd_session_id_both_ways(label):
    sid = SESSIONS[label]
    for name in (
        "session-detail",
        "session-events",
        "api-session-dump",
        "api-session-replay",
        "api-session-fires",
    ):
        url = reverse(f"introspect:{name}", args=[sid])
        assert resolve(url).kwargs == {"session_id": sid}
        assert reverse(f"introspect:{name}", kwargs=resolve(url).kwargs) == url
    for agent in AGENTS:
        url = reverse("introspect:subagent-detail", args=[sid, agent])
        assert resolve(url).kwargs == {"session_id": sid, "agent_id": agent}


def test_it_reverses_and_resolves_each_odd_way_id_and_ledger_folder_both_ways():
    for way in ALL_WAYS:
        url = reverse("introspect:way-detail", args=[way])
        assert resolve(url).kwargs == {"way_id": way} and reverse("introspect:way-detail", args=[way]) == url
    for slug in SLUGS:
        url = reverse("ledger:ledger-stream", args=[slug])
        assert (resolve(url).url_name, resolve(url).kwargs) == ("ledger-stream", {"slug": slug})
    assert (
        reverse("introspect:way-detail", args=["softwaredev/code/testing"])
        == "/ways/softwaredev/code/testing/"
    )
    assert reverse("introspect:session-detail", args=[UUID]) == f"/sessions/{UUID}/"


def test_it_lists_every_session_with_and_without_filters(client, hostile):
    known = Known()
    project = Project.objects.get(path=str(hostile))
    for query in (
        {},
        {"project": project.pk},
        {"sort": "oldest"},
        {"transcript": "yes"},
        {"since": "2026-11-01"},
        {"page": 1},
    ):
        url = "/?" + urlencode(query) if query else "/"
        wanted = set(SESSIONS.values()) if query.get("transcript") != "yes" else set(TRUNKS)
        check_page(client, url, known, shows=list(wanted), links_to={"session_id": wanted})
        check_page(client, url, known, fragment=True, links_to={"session_id": wanted})
    for sid in SESSIONS.values():
        url = "/?" + urlencode({"q": sid})
        check_page(client, url, known, links_to={"session_id": [sid]})


@pytest.mark.parametrize("label", list(SESSIONS))
def test_it_walks_each_page_of_a_session(client, hostile, label):
    sid, known = SESSIONS[label], Known()
    detail = reverse("introspect:session-detail", args=[sid])
    # A way page is linked under the first row of a way that has a file today.
    body = check_page(
        client, detail, known, shows=[sid], links_to={"session_id": [sid], "way_id": [WAY_FILE]}
    )
    assert (
        f'data-replay-url="{html.escape(reverse("introspect:api-session-replay", args=[sid]))}?matched=1"'
        in body
    )
    check_page(client, detail + "?from=2", known, fragment=True)
    check_page(client, detail + "?live_after=3", known, fragment=True)
    events = reverse("introspect:session-events", args=[sid])
    check_page(
        client,
        events,
        known,
        shows=[sid, WAYS[1], AGENTS[list(SESSIONS).index(label) % len(AGENTS)]],
        links_to={"session_id": [sid]},
    )
    check_page(client, events + "?after=0", known, fragment=True)
    check_page(client, events + "?page=2", known)
    for name in ("api-session-dump", "api-session-replay", "api-session-fires"):
        response = client.get(reverse(f"introspect:{name}", args=[sid]) + "?matched=1")
        assert response.status_code == 200, (name, response.content[:200])
        assert sid in values(orjson.loads(response.content)), name
    # An agent of another session is not this session's: 404, not 500.
    assert client.get(reverse("introspect:subagent-detail", args=[sid, "no-such-agent"])).status_code == 404


def test_it_walks_each_subagent_and_links_it_from_its_session(client, hostile):
    known = Known()
    page = check_page(
        client,
        reverse("introspect:session-detail", args=[HOST]),
        known,
        links_to={"agent_id": [AGENT_LINKED]},
    )
    assert html.escape(AGENT_LINKED) in page
    for agent in AGENTS:
        url = reverse("introspect:subagent-detail", args=[HOST, agent])
        shows = [agent] + ([f"subagent {agent} says hi"] if agent in AGENT_FILES else [])
        check_page(client, url, known, shows=shows, links_to={"session_id": [HOST]})
        check_page(client, url, known, fragment=True)


def test_it_walks_the_way_pages_and_searches_for_each_way(client, hostile):
    known = Known()
    check_page(client, "/ways/", known, links_to={"way_id": ALL_WAYS})
    check_page(client, "/ways/", known, fragment=True, links_to={"way_id": ALL_WAYS})
    for way in ALL_WAYS:
        url = reverse("introspect:way-detail", args=[way])
        check_page(client, url, known, shows=[way], links_to={"session_id": SESSIONS.values()})
        check_page(client, url, known, fragment=True, links_to={"session_id": SESSIONS.values()})
        check_page(client, "/ways/?" + urlencode({"q": way}), known, links_to={"way_id": [way]})
        found = check_page(client, "/search/?" + urlencode({"q": way}), known)
        if any(ch.isalnum() for ch in way):
            assert "No results" not in found, way


def test_it_walks_search_status_and_the_session_list_document(client, hostile):
    known = Known()
    check_page(client, "/search/?q=commit", known)
    check_page(client, "/search/?q=commit", known, fragment=True)
    check_page(client, "/status/", known)
    listed = orjson.loads(client.get("/api/sessions/?" + urlencode({"project": str(hostile)})).content)
    assert set(SESSIONS.values()) <= values(listed)


def test_it_walks_the_ledger_and_the_knowledge_queue(client, hostile):
    known = Known()
    check_page(client, "/ledger/", known, shows=SLUGS, links_to={"slug": SLUGS})
    for slug in SLUGS:
        check_page(client, reverse("ledger:ledger-stream", args=[slug]), known, shows=[slug])
    check_page(client, "/ledger/knowledge/?status=", known, links_to={"session_id": SESSIONS.values()})
    check_page(
        client, "/ledger/knowledge/?status=", known, fragment=True, links_to={"session_id": SESSIONS.values()}
    )
    for record in KnowledgeRecord.objects.filter(record_id__startswith="k-").select_related(
        "session", "ledger_entry"
    ):
        check_page(
            client,
            reverse("ledger:candidate-detail", args=[record.pk]),
            known,
            shows=[record.session.sid],
            links_to={"session_id": [record.session.sid], "slug": [record.ledger_entry.project_slug]},
        )
    check_page(client, "/ledger/knowledge/audit/", known)
    check_page(client, "/ledger/decisions/", known)


def test_it_answers_404_for_an_id_that_is_not_there_or_does_not_decode(client, hostile):
    for url in (
        "/sessions/~YWJj/",  # the readable "abc" spelled encoded: not its URL
        "/sessions/~Y/",
        "/ways/~@@/",
        "/ledger/~a25vd2xlZGdl!/",
        reverse("introspect:session-detail", args=["not imported/at all"]),
        reverse("introspect:way-detail", args=["never/fired here"]),
        reverse("ledger:ledger-stream", args=["no such folder"]),
    ):
        assert client.get(url).status_code == 404, url
    # The documents answer an unknown session as agent-ways does: an answer, never a 500.
    for name in ("api-session-dump", "api-session-replay", "api-session-fires"):
        assert client.get(reverse(f"introspect:{name}", args=["not imported/at all"])).status_code in (
            200,
            404,
        )


def test_it_still_opens_a_link_shared_before_ids_were_encoded(client, hostile):
    # /sessions/two%20words/ was this session's URL under <str:…>; it still opens it.
    assert client.get("/sessions/two%20words/").status_code == 200
    assert client.get("/ways/softwaredev/code/testing/").status_code == 200
