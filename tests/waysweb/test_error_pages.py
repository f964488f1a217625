"""With DEBUG off, a missing page and a server error are pages of the site (templates/404.html,
500.html), in its frame, saying what happened and where to go."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.test import Client

from introspect.queries import session_list as session_queries
from waysweb import context_processors

pytestmark = pytest.mark.django_db


class Visible(HTMLParser):
    """The title, the h1, the main text and the nav links a reader sees."""

    def __init__(self):
        super().__init__()
        self.tags: list[str] = []
        self.title = self.h1 = ""
        self.main: list[str] = []
        self.nav: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in ("link", "meta", "input", "br"):
            self.tags.append(tag)

    def handle_endtag(self, tag):
        while self.tags and self.tags.pop() != tag:
            pass

    def handle_data(self, data):
        if "title" in self.tags:
            self.title += data
        if "h1" in self.tags:
            self.h1 += data
        if "main" in self.tags:
            self.main.append(data)
        if "nav" in self.tags and data.strip():
            self.nav.append(data.strip())

    @property
    def text(self) -> str:
        return " ".join(" ".join(self.main).split())


def visible(response) -> Visible:
    page = Visible()
    page.feed(response.content.decode())
    return page


@pytest.fixture(autouse=True)
def production(settings):
    settings.DEBUG = False


def test_an_unknown_address_gets_the_styled_not_found_page(client):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    page = visible(response)
    assert page.title == "Not found · waysweb" and page.h1 == "Nothing here"
    assert "No page answers /no/such/page/ ." in page.text
    assert "press Ctrl K to go to one by its id or title" in page.text
    # In the site's frame: the header's navigation is there.
    assert page.nav[:3] == ["Sessions", "Ways", "Ledger"]


def test_an_unknown_session_gets_the_same_page(client):
    response = client.get("/sessions/no-such-session/")
    assert response.status_code == 404
    assert visible(response).h1 == "Nothing here"


def test_a_server_error_gets_the_styled_error_page(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("the query failed")

    monkeypatch.setattr(session_queries, "session_list_page", broken)
    response = Client(raise_request_exception=False).get("/")
    assert response.status_code == 500
    page = visible(response)
    assert page.title == "Server error · waysweb" and page.h1 == "Something went wrong on the server"
    assert "waysweb could not show this page. The error is in the server's log" in page.text
    assert "the query failed" not in response.content.decode()  # no traceback for the reader
    assert page.nav[:3] == ["Sessions", "Ways", "Ledger"]


def test_the_error_page_needs_nothing_the_failure_may_have_broken(monkeypatch):
    # The header's counts come from a context processor that queries the database; when that is
    # what failed, the 500 page is still drawn (Django renders it without context processors).
    def broken(*args, **kwargs):
        raise RuntimeError("database is locked")

    monkeypatch.setattr(session_queries, "session_list_page", broken)
    monkeypatch.setattr(context_processors, "header", broken)
    response = Client(raise_request_exception=False).get("/")
    assert response.status_code == 500
    assert visible(response).h1 == "Something went wrong on the server"
