"""Issue 12, ids are data: any session, agent or way id and any ledger folder reaches every page.

Sessions, agents, ways and ledger folders named with `/`, `..`, `?`, `#`, whitespace, `%2F`,
non-ASCII, a leading `~` (the converters' own mark) and 300 characters are imported through the
real importer (events in the live log, a trunk transcript, subagent files, a way file, ledger
entries, a knowledge candidate), then every page of both apps is walked: each answers 200 (404
where that is right), shows the id escaped, every link and htmx URL on it routes back to an id
that exists, and every `id=`, `#fragment` and `hx-target` it carries is valid and unambiguous.
"""

from __future__ import annotations

import html
import re
from urllib.parse import unquote, urlencode, urljoin, urlsplit

import orjson
import pytest
from django.urls import Resolver404, resolve, reverse

from introspect.models import Project, Session, Subagent, Way
from ledger.models import AdrRecord, KnowledgeRecord, LedgerEntry
from tests.faults.hostile import (
    AGENT_FILES,
    AGENT_LINKED,
    AGENTS,
    ALL_WAYS,
    HOST,
    SESSIONS,
    SLUGS,
    TRUNKS,
    UUID,
    WAY_FILE,
    WAYS,
    hostile,  # noqa: F401 (the fixture, named in usefixtures)
)
from tests.introspect.views.test_sessions import elements

pytestmark = pytest.mark.django_db

LINK_ATTRS = {"href", "hx-get", "hx-post", "data-href", "data-replay-window-url", "action"}


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


@pytest.mark.usefixtures("hostile")
def test_it_imports_every_hostile_id_as_written():
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


@pytest.mark.usefixtures("hostile")
def test_it_lists_every_session_with_and_without_filters(client):
    known = Known()
    project = Project.objects.get()
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
@pytest.mark.usefixtures("hostile")
def test_it_walks_each_page_of_a_session(client, label):
    sid, known = SESSIONS[label], Known()
    detail = reverse("introspect:session-detail", args=[sid])
    # A way page is linked under the first row of a way that has a file today.
    body = check_page(
        client, detail, known, shows=[sid], links_to={"session_id": [sid], "way_id": [WAY_FILE]}
    )
    assert (
        f'data-replay-window-url="{html.escape(reverse("introspect:api-session-replay", args=[sid]))}'
        '?matched=1&amp;window="' in body
    )
    # A fire turn's link answers with the conversation page of its prompt (or the fire-turn list).
    moved = client.get(detail + "?from=2")
    if moved.status_code == 302:
        check_page(client, moved["Location"].split("#")[0], known)
    else:
        assert moved.status_code == 200
    check_page(client, detail + "?view=fires&from=2", known, fragment=True)
    check_page(client, detail + "?turn=1", known, fragment=True)
    live = reverse("introspect:session-conversation-live", args=[sid])
    check_page(client, live + "?after=-1.0&fire=0", known, fragment=True)
    check_page(
        client, reverse("introspect:session-turns-live", args=[sid]) + "?after=3", known, fragment=True
    )
    check_page(client, detail + "?after=-1.0&fire=0", known, fragment=True, status=302)  # sent on to `live`
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


@pytest.mark.usefixtures("hostile")
def test_it_walks_each_subagent_and_links_it_from_its_session(client):
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


@pytest.mark.usefixtures("hostile")
def test_it_walks_the_way_pages_and_searches_for_each_way(client):
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


@pytest.mark.usefixtures("hostile")
def test_it_walks_search_status_and_the_session_list_document(client):
    known = Known()
    check_page(client, "/search/?q=commit", known)
    check_page(client, "/search/?q=commit", known, fragment=True)
    check_page(client, "/status/", known)
    listed = orjson.loads(
        client.get("/api/sessions/?" + urlencode({"project": Project.objects.get().path})).content
    )
    assert set(SESSIONS.values()) <= values(listed)


@pytest.mark.usefixtures("hostile")
def test_it_walks_the_ledger_and_the_knowledge_queue(client):
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
    # The decision record names the ledger entries that mention it, in every odd folder and session.
    [record] = AdrRecord.objects.filter(present=True)
    sessions = list(SESSIONS.values())[: len(SLUGS)]
    check_page(
        client,
        reverse("ledger:record-detail", args=[record.pk]),
        known,
        links_to={"slug": SLUGS, "session_id": sessions},
    )


@pytest.mark.usefixtures("hostile")
def test_it_answers_404_for_an_id_that_is_not_there_or_does_not_decode(client):
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


@pytest.mark.usefixtures("hostile")
def test_it_still_opens_a_link_shared_before_ids_were_encoded(client):
    # /sessions/two%20words/ was this session's URL under <str:…>; it still opens it.
    assert client.get("/sessions/two%20words/").status_code == 200
    assert client.get("/ways/softwaredev/code/testing/").status_code == 200
