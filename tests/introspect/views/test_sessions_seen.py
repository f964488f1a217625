"""Last-seen marks on the session list and page: the unseen badge, the "new since your last visit"
divider and its jump link, the mark moving, per browser and per signed-in user."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from introspect.models import SeenMark, Session
from lib import viewers
from tests.conftest import append, line
from tests.introspect.views.test_sessions import long_session

pytestmark = pytest.mark.django_db


class Outline(HTMLParser):
    """The page as the viewer meets it: element ids in document order, and the text of the badges,
    the divider and the jump link."""

    def __init__(self, body: str):
        super().__init__()
        self.ids: list[str] = []
        self.badges: dict[str, str] = {}  # session row link text → its "N new" badge
        self.jump: tuple[str, str] | None = None  # (href, text)
        self.divider = ""
        self.row = ""
        self.open: str | None = None
        self.href = ""
        self.feed(body)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if attrs.get("id"):
            self.ids.append(attrs["id"])
        if tag == "a" and "mono" in classes and attrs.get("title"):
            self.row = attrs["title"]
        if "badge--new" in classes:
            self.open = "badge"
        elif "new-since" in classes:
            self.open = "divider"
        elif "new-since-jump" in classes:
            self.open = "jump"
        elif tag == "a" and self.open == "jump":
            self.href = attrs.get("href", "")

    def handle_data(self, data):
        if self.open == "badge":
            self.badges[self.row] = self.badges.get(self.row, "") + data
        elif self.open == "divider":
            self.divider += data
        elif self.open == "jump":
            self.jump = (self.href, (self.jump[1] if self.jump else "") + data)

    def handle_endtag(self, tag):
        if tag in ("span", "div", "p"):
            self.open = None


# The first visit's mark request a session page makes on load (htmx) when it set the viewer cookie.
FIRST_LOOK = re.compile(r"""hx-post="([^"]+/seen/)" hx-vals='([^']+)'""")


def page(client: Client, path: str, **params) -> Outline:
    """The page as a browser opens it: fetched, then (as htmx does on load) its first-visit mark
    request sent with the cookies the answer set."""
    response = client.get(path, params)
    assert response.status_code == 200
    body = response.content.decode()
    if found := FIRST_LOOK.search(body):
        assert client.post(found[1], json.loads(html.unescape(found[2]))).status_code == 204
    return Outline(body)


def entry(sid: str, uuid: str, kind: str, text: str, stamp: str) -> dict:
    message = {"role": kind, "content": text if kind == "user" else [{"type": "text", "text": text}]}
    if kind == "assistant":
        message["id"] = f"m-{uuid}"
    return {"type": kind, "uuid": uuid, "sessionId": sid, "timestamp": stamp, "message": message}


def chat(home, sid: str = "chat-0000-aaaa-bbbb-cccc") -> str:
    home.transcript(
        "/p",
        sid,
        entry(sid, "p1", "user", "tidy the header", "2026-11-01T10:00:00.000Z"),
        entry(sid, "r1", "assistant", "Header tidied.", "2026-11-01T10:00:05.000Z"),
    )
    call_command("ingest", stdout=StringIO())
    return sid


def more(home, sid: str, n: int = 1) -> None:
    """A new turn written into the transcript: a prompt and its reply."""
    home.transcript(
        "/p",
        sid,
        entry(sid, f"p{n + 1}", "user", f"and the footer {n}", f"2026-11-01T11:0{n}:00.000Z"),
        entry(sid, f"r{n + 1}", "assistant", f"Footer tidied {n}.", f"2026-11-01T11:0{n}:05.000Z"),
    )
    call_command("ingest", stdout=StringIO())


def test_it_shows_no_badge_on_a_session_never_opened(client, home):
    sid = chat(home)
    more(home, sid)
    assert page(client, "/").badges == {}


def test_it_badges_the_entries_written_since_the_viewer_opened_the_session(client, home):
    sid = chat(home)
    page(client, f"/sessions/{sid}/")
    assert page(client, "/").badges == {}  # seen to the end
    more(home, sid)
    assert page(client, "/").badges == {sid: "2 new"}


def test_it_draws_the_divider_before_the_first_unseen_entry_and_links_to_it(client, home):
    sid = chat(home)
    first = page(client, f"/sessions/{sid}/")
    assert first.divider == "" and first.jump is None  # a first visit: nothing is "new since"
    more(home, sid)
    shown = page(client, f"/sessions/{sid}/")
    assert shown.divider == "new since your last visit"
    assert shown.ids.index("new-since") == shown.ids.index("t-2") - 1  # before the new turn's heading
    assert shown.ids.index("u-r1") < shown.ids.index("new-since") < shown.ids.index("u-p2")
    assert shown.jump == ("#new-since", "↓ 2 new entries since your last visit")


def test_it_moves_the_mark_when_the_page_opens(client, home):
    sid = chat(home)
    page(client, f"/sessions/{sid}/")
    more(home, sid)
    assert page(client, f"/sessions/{sid}/").divider
    again = page(client, f"/sessions/{sid}/")
    assert again.divider == "" and again.jump is None
    assert page(client, "/").badges == {}
    mark = SeenMark.objects.get()
    assert (mark.session.sid, mark.user) == (sid, None) and mark.browser


def test_it_keeps_marks_per_browser_when_nobody_is_signed_in(client, home):
    sid = chat(home)
    page(client, f"/sessions/{sid}/")
    assert len(client.cookies[viewers.COOKIE].value) >= 16
    more(home, sid)
    other = Client()
    assert page(other, "/").badges == {}  # that browser never opened it
    page(other, f"/sessions/{sid}/")
    assert page(client, "/").badges == {sid: "2 new"}  # the first browser still has not seen it
    assert SeenMark.objects.count() == 2


def test_it_keeps_a_signed_in_viewer_s_marks_on_every_browser(client, home):
    sid = chat(home)
    reviewer = User.objects.create_user("ada", password="x")
    client.force_login(reviewer)
    page(client, f"/sessions/{sid}/")
    more(home, sid)
    laptop = Client()
    laptop.force_login(reviewer)
    assert page(laptop, "/").badges == {sid: "2 new"}
    assert page(Client(), "/").badges == {}  # nobody signed in: not the reviewer's marks
    assert SeenMark.objects.get().user == reviewer
    assert page(laptop, f"/sessions/{sid}/").divider
    assert page(client, "/").badges == {}


def test_it_ignores_a_forged_viewer_cookie(client, home):
    sid = chat(home)
    client.cookies[viewers.COOKIE] = "../../x"
    page(client, f"/sessions/{sid}/")
    assert viewers.TOKEN.fullmatch(client.cookies[viewers.COOKIE].value)


def test_it_jumps_to_a_later_page_and_draws_the_divider_there(client, home):
    long_session(home, 120, sid="big")
    page(client, "/sessions/big/")
    home.transcript("/p", "big", entry("big", "late", "user", "one more thing", "2026-11-30T10:00:00.000Z"))
    call_command("ingest", stdout=StringIO())
    opened = page(client, "/sessions/big/")
    assert "new-since" not in opened.ids  # the first page ends at turn 66
    href, text = opened.jump
    assert text == "↓ 1 new entry since your last visit"
    assert href.startswith("?turn=121&seen=")  # the page that opens with the new turn
    assert href.endswith("#new-since")
    later = client.get("/sessions/big/" + href.split("#")[0]).content.decode()
    shown = Outline(later)
    assert shown.ids.index("new-since") == shown.ids.index("u-late") - 2  # divider, turn heading, entry
    # The infinite scroll fetches the same page with the same mark.
    scrolled = client.get("/sessions/big/" + href.split("#")[0], headers={"HX-Request": "true"})
    assert "new-since" in Outline(scrolled.content.decode()).ids


def test_it_counts_what_live_follow_showed_as_seen(client, home):
    sid = chat(home)
    page(client, f"/sessions/{sid}/")
    cursor = Session.objects.get(sid=sid).entries.order_by("-offset").first()
    more(home, sid)
    tail = client.get(
        f"/sessions/{sid}/live/conversation/",
        {"after": f"{cursor.offset}.{cursor.index}"},
        headers={"HX-Request": "true"},
    )
    assert 'id="u-p2"' in tail.content.decode()
    assert page(client, "/").badges == {}


def test_it_badges_and_divides_new_fire_turns_of_a_session_without_a_transcript(client, home):
    def fire(minute: int, way: str) -> bytes:
        return line(
            ts=f"2026-11-01T10:{minute:02d}:00Z", event="way_fired", way=way, trigger="bash", session="ev-1"
        )

    append(home.live, line(ts="2026-11-01T10:00:00Z", event="session_start", session="ev-1", project="/p"))
    append(home.live, fire(1, "d/a"))
    call_command("ingest", stdout=StringIO())
    page(client, "/sessions/ev-1/")
    append(home.live, fire(5, "d/b"))
    call_command("ingest", stdout=StringIO())
    assert page(client, "/").badges == {"ev-1": "1 new turn"}
    shown = page(client, "/sessions/ev-1/")
    assert shown.ids.index("new-since") == shown.ids.index("turn-2") - 1
    assert shown.jump == ("#new-since", "↓ 1 new fire turn since your last visit")


def test_it_keeps_the_list_to_one_query_with_marks(client, home, django_assert_max_num_queries):
    for n in range(4):
        sid = chat(home, sid=f"chat-{n:04d}-aaaa-bbbb")
        page(client, f"/sessions/{sid}/")
    for n in range(4):
        more(home, f"chat-{n:04d}-aaaa-bbbb")
    with django_assert_max_num_queries(6):
        body = page(client, "/")
    assert len(body.badges) == 4


def test_it_bounds_the_queries_of_a_page_with_unseen_entries(client, home, django_assert_max_num_queries):
    long_session(home, 120, sid="big")
    page(client, "/sessions/big/")
    home.transcript("/p", "big", entry("big", "late", "user", "one more thing", "2026-11-30T10:00:00.000Z"))
    call_command("ingest", stdout=StringIO())
    # The page (with the decision log's section), the mark read and moved, the first unseen entry,
    # its count and its page (3); one for the outcome signals of the turns shown (queries/turn_outcomes.py).
    with django_assert_max_num_queries(29):
        assert page(client, "/sessions/big/").jump
    with django_assert_max_num_queries(24):  # seen: no divider, the mark unchanged
        assert page(client, "/sessions/big/").jump is None


def test_a_visit_without_the_viewer_cookie_writes_no_mark_and_sets_the_cookie(client, home):
    sid = chat(home)
    response = client.get(f"/sessions/{sid}/")
    assert response.status_code == 200 and not SeenMark.objects.exists()
    assert viewers.TOKEN.fullmatch(response.cookies[viewers.COOKIE].value)
    assert FIRST_LOOK.search(response.content.decode())  # the page asks for its mark on load
    for _ in range(5):  # a client that keeps no cookies, however often it asks
        Client().get(f"/sessions/{sid}/")
    assert not SeenMark.objects.exists()


def test_a_first_look_is_written_only_for_a_browser_that_came_back_with_its_cookie(client, home):
    sid = chat(home)
    request = FIRST_LOOK.search(client.get(f"/sessions/{sid}/").content.decode())
    url, values = request[1], json.loads(html.unescape(request[2]))
    assert Client().post(url, values).status_code == 204 and not SeenMark.objects.exists()
    assert client.post(url, values).status_code == 204
    mark = SeenMark.objects.get()
    assert (f"{mark.offset}.{mark.index}", mark.turns) == (values["at"], int(values["turns"]))
    # A mark moved since (a later visit) is not moved back by a late or repeated request.
    SeenMark.objects.update(offset=mark.offset + 100)
    assert client.post(url, values).status_code == 204
    assert SeenMark.objects.get().offset == mark.offset + 100


@pytest.mark.parametrize("values", [{}, {"at": "x.1", "turns": "0"}, {"at": "1.0", "turns": str(2**31)}])
def test_a_first_look_with_values_that_do_not_read_writes_nothing(client, home, values):
    sid = chat(home)
    client.get(f"/sessions/{sid}/")
    assert client.post(f"/sessions/{sid}/seen/", values).status_code == 204
    assert not SeenMark.objects.exists()


def test_a_first_look_is_a_post_with_the_csrf_token(home):
    sid = chat(home)
    strict = Client(enforce_csrf_checks=True)
    strict.get(f"/sessions/{sid}/")
    assert strict.get(f"/sessions/{sid}/seen/").status_code == 405
    assert strict.post(f"/sessions/{sid}/seen/", {"at": "-1.0", "turns": "0"}).status_code == 403
    assert not SeenMark.objects.exists()
