"""The session page's two live tails on their own URLs (introspect/views/session_live.py): a
fragment and the next poller for htmx, the session page at the same place for anyone else, and the
page's first poller URLs sent on to them."""

from __future__ import annotations

import pytest

from introspect.models import Session
from introspect.queries import conversation
from lib.converters import dom_id
from tests.introspect.views.test_sessions import long_session

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


def third_prompt(sid: str):
    return list(conversation.trunk_prompts(Session.objects.get(sid=sid)))[2]


def test_the_conversation_tail_answers_a_poller_with_what_follows_and_the_next_poller(client, home):
    long_session(home, 4, sid="tail")
    prompt = third_prompt("tail")
    cursor = f"{prompt.offset}.{prompt.index}"
    response = client.get("/sessions/tail/live/conversation/", {"after": cursor, "fire": 2}, headers=HTMX)
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body
    # Fire turn 3, keyed to the prompt the page already shows, goes in right after that prompt's card.
    assert f'hx-swap-oob="afterend:#u-{dom_id(prompt.uuid)}"' in body and 'id="turn-3"' in body
    assert 'id="u-u3"' in body and 'id="turn-4"' in body
    last = conversation.conversation_entries(Session.objects.get(sid="tail")).last()
    assert f'hx-get="/sessions/tail/live/conversation/?after={last.offset}.{last.index}&amp;fire=4"' in body


def test_the_fire_turn_tail_redraws_the_last_known_turn_and_asks_on_from_the_newest(client, home):
    long_session(home, 4, sid="turns")
    body = client.get("/sessions/turns/live/turns/", {"after": 3}, headers=HTMX).content.decode()
    assert 'hx-swap-oob="outerHTML:#turn-3"' in body and 'id="turn-4"' in body and "<html" not in body
    assert 'hx-get="/sessions/turns/live/turns/?after=4"' in body


def test_the_pages_poll_the_tails_own_urls(client, home, monkeypatch):
    long_session(home, 4, sid="pages")
    monkeypatch.setattr(
        Session, "is_live", property(lambda self: True)
    )  # the fire-turn list follows only then
    last = conversation.conversation_entries(Session.objects.get(sid="pages")).last()
    page = client.get("/sessions/pages/").content.decode()
    assert f'hx-get="/sessions/pages/live/conversation/?after={last.offset}.{last.index}&amp;fire=4"' in page
    fires = client.get("/sessions/pages/", {"view": "fires"}).content.decode()
    assert 'hx-get="/sessions/pages/live/turns/?after=4"' in fires


def test_a_tail_opened_without_htmx_is_the_session_page_at_the_place_it_follows_from(client, home):
    long_session(home, 4, sid="open")
    prompt = third_prompt("open")
    cursor = f"{prompt.offset}.{prompt.index}"

    moved = client.get("/sessions/open/live/conversation/", {"after": cursor, "fire": 2})
    assert moved.status_code == 302 and moved["Location"] == f"/sessions/open/?turn=3#u-{dom_id(prompt.uuid)}"
    assert moved["Vary"] == "HX-Request"  # the same URL answers a poller with a fragment
    page = client.get(moved["Location"]).content.decode()
    assert "<html" in page and f'id="u-{dom_id(prompt.uuid)}"' in page
    # A cursor between two entries stands at the one before it; one before the first, at the top.
    between = client.get(
        "/sessions/open/live/conversation/", {"after": f"{prompt.offset}.{prompt.index + 1}"}
    )
    assert between["Location"] == moved["Location"]
    assert client.get("/sessions/open/live/conversation/", {"after": "-1.0"})["Location"] == "/sessions/open/"
    assert client.get("/sessions/open/live/conversation/")["Location"] == "/sessions/open/"

    turns = client.get("/sessions/open/live/turns/", {"after": 3})
    assert turns.status_code == 302 and turns["Location"] == "/sessions/open/?view=fires&from=3#turn-3"
    assert 'id="turn-3"' in client.get(turns["Location"]).content.decode()
    assert client.get("/sessions/open/live/turns/")["Location"] == "/sessions/open/?view=fires&from=1"


def test_a_poller_of_a_page_opened_before_the_tails_had_urls_is_sent_on_to_them(client, home):
    long_session(home, 4, sid="old")
    prompt = third_prompt("old")
    cursor = f"{prompt.offset}.{prompt.index}"
    old = client.get("/sessions/old/", {"after": cursor, "fire": 2}, headers=HTMX)
    assert old["Location"] == f"/sessions/old/live/conversation/?after={cursor}&fire=2"
    own = client.get("/sessions/old/live/conversation/", {"after": cursor, "fire": 2}, headers=HTMX)
    assert client.get(old["Location"], headers=HTMX).content == own.content
    assert client.get("/sessions/old/", {"live_after": 3}, headers=HTMX)["Location"] == (
        "/sessions/old/live/turns/?after=3"
    )
    # Without htmx those parameters are no poller's: the page as it is.
    assert client.get("/sessions/old/", {"live_after": 3}).status_code == 200


def test_a_tail_of_no_such_session_is_a_404(client, db):
    assert client.get("/sessions/nobody/live/turns/", headers=HTMX).status_code == 404
    assert client.get("/sessions/nobody/live/conversation/", headers=HTMX).status_code == 404
    assert client.get("/sessions/nobody/live/conversation/").status_code == 404
