"""The frame's endpoints: the command palette's JSON answer."""

from __future__ import annotations

from datetime import UTC, datetime

import orjson
import pytest
from django.urls import resolve, reverse

from introspect.models import Session
from waysweb import views

pytestmark = pytest.mark.django_db


def test_the_palette_route_reverses_and_resolves():
    assert reverse("palette") == "/palette.json"
    assert resolve("/palette.json").func is views.palette


def test_it_answers_json_with_what_matches_the_typed_text(client, django_assert_max_num_queries):
    Session.objects.create(
        sid="3f12dab8-ee65-4941-ae6f-11e4d6a398ba",
        title="the bundle grew <b>40 kB</b>",
        started_at=datetime(2026, 11, 8, tzinfo=UTC),
    )
    with django_assert_max_num_queries(3):
        response = client.get("/palette.json", {"q": "3f12"})
    assert response["Content-Type"] == "application/json"
    assert orjson.loads(response.content) == {
        "query": "3f12",
        "items": [
            {
                "kind": "session",
                # Raw text: palette.js puts it in with textContent, so markup in a title stays text.
                "label": "the bundle grew <b>40 kB</b>",
                "detail": "3f12dab8",
                "url": "/sessions/3f12dab8-ee65-4941-ae6f-11e4d6a398ba/",
            }
        ],
    }


def test_with_no_text_it_lists_the_pages(client):
    document = orjson.loads(client.get("/palette.json").content)
    assert document["query"] == ""
    assert [item["label"] for item in document["items"]][:2] == ["Sessions", "Ways"]


def test_it_only_answers_reads(client):
    assert client.post("/palette.json", {"q": "x"}).status_code == 405
