"""The session page's two live tails, on their own URLs and on the page's first ones (pages opened
before the tails had URLs of their own poll those)."""

from __future__ import annotations

import pytest

from introspect.models import Session
from introspect.queries import conversation
from lib.converters import dom_id
from tests.introspect.views.test_sessions import long_session

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


def test_the_conversation_tail_answers_on_its_own_url_as_on_the_pages(client, home):
    long_session(home, 4, sid="tail")
    prompt = list(conversation.trunk_prompts(Session.objects.get(sid="tail")))[2]
    cursor = f"{prompt.offset}.{prompt.index}"
    own = client.get("/sessions/tail/live/conversation/", {"after": cursor, "fire": 2}, headers=HTMX)
    old = client.get("/sessions/tail/", {"after": cursor, "fire": 2}, headers=HTMX)
    assert own.status_code == old.status_code == 200
    assert own.content == old.content
    body = own.content.decode()
    # Fire turn 3, keyed to the prompt the page already shows, goes in right after that prompt's card.
    assert f'hx-swap-oob="afterend:#u-{dom_id(prompt.uuid)}"' in body and 'id="turn-3"' in body
    assert 'id="turn-4"' in body and "<html" not in body


def test_the_fire_turn_tail_answers_on_its_own_url_as_on_the_pages(client, home):
    long_session(home, 4, sid="turns")
    own = client.get("/sessions/turns/live/turns/", {"after": 3}, headers=HTMX)
    old = client.get("/sessions/turns/", {"live_after": 3}, headers=HTMX)
    assert own.content == old.content
    body = own.content.decode()
    assert 'hx-swap-oob="outerHTML:#turn-3"' in body and 'id="turn-4"' in body
    assert 'hx-get="/sessions/turns/?live_after=4"' in body  # the next poller


def test_a_tail_of_no_such_session_is_a_404(client, db):
    assert client.get("/sessions/nobody/live/turns/", headers=HTMX).status_code == 404
    assert client.get("/sessions/nobody/live/conversation/", headers=HTMX).status_code == 404
