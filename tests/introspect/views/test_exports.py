"""The session page's Export menu and its three downloads."""

from __future__ import annotations

from html.parser import HTMLParser

import orjson
import pytest
from django.urls import resolve, reverse

from introspect.views import exports
from tests.introspect.export_session import REPLY, SID, export_session
from tests.introspect.views.test_sessions import long_session

pytestmark = pytest.mark.django_db


def body(response) -> str:
    return b"".join(response.streaming_content).decode()


def links(html: str) -> dict[str, dict]:
    found = {}

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            attributes = dict(attrs)
            if tag == "a" and "/export." in (attributes.get("href") or ""):
                found[attributes["href"]] = attributes

    Collect().feed(html)
    return found


def test_it_routes_an_export_both_ways():
    url = reverse("introspect:session-export", args=["abc", "md"])
    assert url == "/sessions/abc/export.md"
    assert resolve(url).func is exports.session_export


def test_the_session_page_offers_three_plain_download_links(client, home):
    export_session(home)
    page = client.get(f"/sessions/{SID}/").content.decode()
    found = links(page)
    assert set(found) == {f"/sessions/{SID}/export.{fmt}" for fmt in ("html", "md", "json")}
    assert all(
        "download" in attrs and not any(name.startswith("hx-") for name in attrs) for attrs in found.values()
    )
    assert "<summary>Export</summary>" in page


@pytest.mark.parametrize(
    ("fmt", "media_type"),
    [
        ("html", "text/html; charset=utf-8"),
        ("md", "text/markdown; charset=utf-8"),
        ("json", "application/json"),
    ],
)
def test_each_download_is_an_attachment_with_a_sensible_name(client, home, fmt, media_type):
    export_session(home)
    response = client.get(f"/sessions/{SID}/export.{fmt}")
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"] == media_type
    assert response["Content-Disposition"] == f'attachment; filename="session-{SID}.{fmt}"'
    text = body(response)
    if fmt == "json":
        assert orjson.loads(text)["session"] == SID
    else:
        assert "the plan" in text and "delivery/release" in text
    assert (REPLY in text) == (fmt != "html")  # HTML renders the Markdown: **the plan** becomes <strong>


def test_it_answers_404_for_an_unknown_session_or_format(client, home):
    export_session(home)
    assert client.get("/sessions/nope/export.html").status_code == 404
    assert client.get(f"/sessions/{SID}/export.pdf").status_code == 404


def test_it_refuses_a_post(client, home):
    export_session(home)
    assert client.post(f"/sessions/{SID}/export.md").status_code == 405


def test_a_long_session_downloads_in_the_same_queries_as_a_short_one(
    client, home, django_assert_max_num_queries
):
    long_session(home, 120, sid="big")
    long_session(home, 5, sid="small")
    for fmt in ("html", "md", "json"):
        with django_assert_max_num_queries(25) as small:
            body(client.get(f"/sessions/small/export.{fmt}"))
        with django_assert_max_num_queries(25) as big:
            text = body(client.get(f"/sessions/big/export.{fmt}"))
        assert len(big.captured_queries) == len(small.captured_queries), fmt
        assert "done" in text and "119" in text
