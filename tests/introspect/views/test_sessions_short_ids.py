"""Short ids: `/sessions/<prefix>/` for any prefix of 8 or more characters, as the list shows them."""

from __future__ import annotations

from html.parser import HTMLParser
from io import StringIO

import pytest
from django.core.management import call_command

from tests.conftest import append, line

pytestmark = pytest.mark.django_db


class Links(HTMLParser):
    def __init__(self, body: str):
        super().__init__()
        self.hrefs: list[str] = []
        self.feed(body)

    def handle_starttag(self, tag, attrs):
        if tag == "a" and (href := dict(attrs).get("href", "")).startswith("/sessions/"):
            self.hrefs.append(href)


def sessions(home, *sids: str) -> None:
    for sid in sids:
        append(home.live, line(ts="2026-11-01T10:00:00Z", event="session_start", session=sid, project="/p"))
    call_command("ingest", stdout=StringIO())


def test_it_redirects_a_unique_prefix_to_the_full_session_url(client, home):
    sessions(home, "6f1c2a9e-0000-4000-8000-000000000001", "0b7d4e21-0000-4000-8000-000000000002")
    response = client.get("/sessions/6f1c2a9e/", {"view": "fires"})
    assert response.status_code == 302
    assert response["Location"] == "/sessions/6f1c2a9e-0000-4000-8000-000000000001/?view=fires"
    assert client.get("/sessions/0b7d4e21-0000/events/")["Location"] == (
        "/sessions/0b7d4e21-0000-4000-8000-000000000002/events/"
    )


def test_it_lists_the_sessions_an_ambiguous_prefix_starts(client, home):
    sessions(home, "6f1c2a9e-aaaa-4000-8000-000000000001", "6f1c2a9e-bbbb-4000-8000-000000000002", "7abc")
    response = client.get("/sessions/6f1c2a9e/")
    assert response.status_code == 200
    body = response.content.decode()
    assert "2 sessions start with" in body
    assert [href for href in Links(body).hrefs if href != "/"] == [
        "/sessions/6f1c2a9e-aaaa-4000-8000-000000000001/",
        "/sessions/6f1c2a9e-bbbb-4000-8000-000000000002/",
    ]


def test_it_answers_404_to_an_unknown_or_too_short_prefix(client, home):
    sessions(home, "6f1c2a9e-0000-4000-8000-000000000001")
    assert client.get("/sessions/99999999/").status_code == 404
    assert client.get("/sessions/6f1c2a9/").status_code == 404  # 7 characters: less than the list shows
    assert client.get("/sessions/6F1C2A9E/").status_code == 404  # ids are case-sensitive


def test_it_opens_each_short_id_the_list_shows(client, home):
    sids = ["6f1c2a9e-0000-4000-8000-000000000001", "0b7d4e21-0000-4000-8000-000000000002"]
    sessions(home, *sids)
    body = client.get("/").content.decode()
    for sid in sids:
        assert f">{sid[:8]}</a>" in body  # what the list shows
        assert client.get(f"/sessions/{sid[:8]}/")["Location"] == f"/sessions/{sid}/"
        assert client.get(f"/sessions/{sid}/").status_code == 200  # and where its link goes
