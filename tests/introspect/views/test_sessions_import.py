"""The session list while an import runs (issue 25): it says so from the first second, lists no
half-built session, updates itself through a cursor poller that stops when the import is done,
and never tells a user whose `serve` is importing to start `serve`."""

from __future__ import annotations

import dataclasses
import os
import re
from datetime import UTC, datetime
from io import StringIO
from types import SimpleNamespace

import pytest
from django.core.management import call_command

from introspect.importer import activity, health, heartbeat, progress, stores
from introspect.queries import session_list as queries
from tests.conftest import append, line

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture(autouse=True)
def no_launch(monkeypatch):
    """No importer started by this process unless a test says so (module state of activity.py)."""
    monkeypatch.setattr(activity, "launch", None)


def imported(home, *sids: str) -> None:
    for sid in sids:
        append(
            home.live,
            line(ts="2026-11-01T10:00:00Z", event="session_start", project="/src/app", session=sid),
            line(ts="2026-11-01T10:00:05Z", event="way_fired", way="d/a", trigger="bash", session=sid),
        )
    call_command("ingest", stdout=StringIO())


def importing() -> heartbeat.Heartbeat:
    """This process's importer on its first pass (a heartbeat of a live pid, this one)."""
    beat = heartbeat.Heartbeat(follow=True)
    beat.started()
    return beat


def reading(settings, done: int = 300 << 20, total: int = 3 << 30, seconds: float = 60.0) -> None:
    now = datetime.now(UTC)
    progress.write(
        progress.Snapshot(3, 40, done, total, now, now, seconds, host=settings.WAYSWEB_HOST, pid=os.getpid())
    )


def poller_url(body: str) -> str | None:
    found = re.search(r'id="session-poller" class="poller" hx-get="([^"]+)"', body)
    return found.group(1).replace("&amp;", "&") if found else None


def rows(body: str) -> list[str]:
    return re.findall(r'<tr data-href="/sessions/([^/]+)/"', body)


def test_a_session_read_but_not_derived_yet_is_not_listed_half_built(client, home):
    imported(home, "done-1")
    stores.ensure_sessions({"bare-1", "bare-2"})  # rows a batch made; their derive has not run
    importing()
    body = client.get("/").content.decode()
    assert rows(body) == ["done-1"]
    assert "inferred" not in body and "unknown" not in body
    assert "Importing your history: 2 more sessions read, being put together" in body
    assert [s.sid for s in client.get("/", {"transcript": "none"}).context["page"]] == ["done-1"]
    assert "1 session" in body  # the count under the list counts what it lists


def test_from_the_first_second_of_serve_it_says_the_importer_is_starting(client, monkeypatch):
    # serve started its importer a moment ago; it has not loaded Django yet, let alone written.
    activity.launched(SimpleNamespace(pid=12345, poll=lambda: None))
    body = client.get("/").content.decode()
    assert "Importing your history" in body and "The importer is starting" in body
    assert "manage.py serve" not in body and "No sessions yet" not in body
    assert 'id="progress-strip"' in body and "Starting the importer" in body
    assert poller_url(body) is not None
    # Its first heartbeat takes over; the last run's heartbeat never did.
    importing()
    body = client.get("/").content.decode()
    assert "The importer is starting" not in body and "Importing your history" in body


def test_an_importer_that_died_before_it_spoke_is_not_starting(client):
    activity.launched(SimpleNamespace(pid=12345, poll=lambda: 1))
    body = client.get("/").content.decode()
    assert "Importing your history" not in body and poller_url(body) is None


def test_the_poller_answers_alone_while_nothing_changed_and_with_the_rows_when_something_did(client, home):
    imported(home, "s-1")
    importing()
    first = client.get("/").content.decode()
    url = poller_url(first)
    assert url is not None and "after=" in url
    same = client.get(url, headers=HTMX)
    assert same["HX-Retarget"] == "#session-poller" and same["HX-Reswap"] == "outerHTML"
    assert same.content.decode().strip().startswith('<div id="session-poller"')
    assert poller_url(same.content.decode()) == url and "<tr" not in same.content.decode()
    imported(home, "s-2")  # a session landed (the test's own ingest ends with its heartbeat stopped)
    importing()
    landed = client.get(url, headers=HTMX)
    body = landed.content.decode()
    assert "HX-Retarget" not in landed and body.lstrip().startswith('<div id="session-rows">')
    assert sorted(rows(body)) == ["s-1", "s-2"] and "<html" not in body
    assert poller_url(body) not in (None, url)  # a fresh cursor


def test_the_poll_ends_with_the_import_the_last_answer_brings_the_rows_without_a_poller(client, home):
    imported(home, "s-1")
    beat = importing()
    url = poller_url(client.get("/").content.decode())
    beat.after_pass(found=True)  # the first pass is done: idle, following
    body = client.get(url, headers=HTMX).content.decode()
    assert rows(body) == ["s-1"] and poller_url(body) is None
    assert "Importing your history" not in body


def test_without_javascript_a_reload_shows_the_same(client, home):
    imported(home, "s-1")
    importing()
    body = client.get("/").content.decode()
    assert "<noscript> (reload to see them)</noscript>" in body


def test_the_poller_keeps_the_filters_and_the_pager_drops_its_cursor(client, home, monkeypatch):
    monkeypatch.setattr(queries, "SESSIONS_PER_PAGE", 1)
    imported(home, "s-1", "s-2")
    importing()
    url = poller_url(client.get("/", {"q": "s-", "page": "2"}).content.decode())
    assert "q=s-" in url and "page=2" in url
    body = client.get(url.replace("after=", "after=stale"), headers=HTMX).content.decode()
    pager = re.findall(r'href="(\?[^"]*)"', body)
    assert pager and all("after=" not in link for link in pager)


@pytest.mark.parametrize(
    ("state", "says", "never"),
    [
        ("idle", "The importer found no Claude Code transcript", "manage.py serve"),
        ("stopped", "The importer stopped: disk full", "manage.py serve"),
        ("unknown", "Run <code>uv run manage.py ingest</code>", "Importing your history"),
    ],
)
def test_an_empty_list_says_what_the_importer_is_doing(client, state, says, never):
    if state == "idle":
        importing().after_pass(found=False)
    if state == "stopped":
        health.record("disk full")
    body = client.get("/").content.decode()
    assert "No sessions yet" in body and says in body and never not in body
    assert poller_url(body) is None


def test_while_importing_a_session_without_a_transcript_has_none_yet(client, home):
    imported(home, "s-1")
    importing()
    assert "no transcript yet" in client.get("/").content.decode()
    heartbeat.Heartbeat(follow=True).stopped()
    body = client.get("/").content.decode()
    assert "no transcript yet" not in body and "no transcript</span>" in body


def test_the_strip_says_how_far_the_reading_is_and_is_there_while_sessions_are_put_together(client, settings):
    reading(settings)
    body = client.get("/ways/").content.decode().replace("\xa0", " ")
    assert "3 of 40 files" in body and "about 9 min of reading left" in body
    progress.clear()
    importing()  # reading done, the first pass derives: still importing
    body = client.get("/ways/").content.decode()
    assert 'id="progress-strip"' in body and "sessions appear as they are put together" in body


def test_after_the_reading_the_strip_counts_the_sessions_put_together(client, settings):
    now = datetime.now(UTC)
    read = progress.Snapshot(
        40, 40, 3 << 30, 3 << 30, now, now, 60.0, host=settings.WAYSWEB_HOST, pid=os.getpid()
    )
    progress.write(dataclasses.replace(read, sessions_done=1200, sessions_total=6400))
    body = client.get("/ways/").content.decode().replace("\xa0", " ")
    assert "Every file is read (40 files, 3.0 GB)" in body
    assert "putting the sessions together: 1200 of 6400" in body
    assert 'max="6400" value="1200"' in body


def test_polling_costs_one_query_when_nothing_changed(client, home, django_assert_max_num_queries):
    imported(home, "s-1", "s-2", "s-3")
    importing()
    url = poller_url(client.get("/").content.decode())
    with django_assert_max_num_queries(1):
        client.get(url, headers=HTMX)
    with django_assert_max_num_queries(6):
        client.get("/")
