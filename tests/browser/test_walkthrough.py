"""Walking the bundled sample as a person would: list → session → why → keys → search → live."""

from __future__ import annotations

import re
import time
from io import StringIO

import orjson
import pytest
from django.core.management import call_command
from django.utils import timezone

from introspect.models import Session
from tests.fixtures import TREE, lay_out_tree

pytestmark = [pytest.mark.django_db(transaction=True)]

LONG = "d9253f7d-53c6-40ee-932c-a3cba232d3a0"
AMBIGUOUS = "624f720e-9e95-4496-9c1a-bbb81681fbd4"


def test_it_lists_the_sessions_and_opens_one(tab):
    tab.go("/")
    rows = tab.page.locator("table.sessions tbody tr")
    assert rows.count() == 18  # the sample's sessions (sample/README.md)
    tab.shot("01-session-list")
    tab.page.get_by_role("link", name=LONG[:8]).click()
    tab.page.wait_for_url(f"**/sessions/{LONG}/")
    assert tab.page.locator("h3.cturn").count() >= 10  # conversation turns, the page's spine
    assert tab.page.locator("article.turn").count() >= 10  # agent-ways fire turns on them
    assert tab.page.locator(".badge--keyed").count() > 0 and tab.page.locator(".badge--heuristic").count() > 0
    tab.shot("02-session-page")


def test_it_filters_the_list_and_keeps_the_url(tab):
    tab.go("/")
    tab.page.fill("#q", "api-server")
    tab.page.wait_for_url("**/?q=api-server*")
    # S01, S03, S07, S11, S15 and S17
    tab.page.wait_for_function("() => document.querySelectorAll('table.sessions tbody tr').length === 6")
    tab.page.go_back()
    tab.page.wait_for_function("() => document.querySelectorAll('table.sessions tbody tr').length === 18")


def test_it_drills_down_into_why_a_way_fired(tab):
    tab.go(f"/sessions/{AMBIGUOUS}/")
    way = tab.page.locator("#turn-2 .fired-way summary").first
    way.click()
    why = tab.page.locator("#turn-2 .why").first
    assert "semantic fire: matched by embedding; no recoverable term" in why.inner_text()
    assert "not necessarily as fired" in why.inner_text()
    tab.shot("03-why-fired")
    heuristic = tab.page.locator("#turn-4 .badge--heuristic")
    assert "ambiguous: 2 prompts within 8 s" in heuristic.inner_text()


def test_it_moves_with_the_keyboard(tab):
    tab.go(f"/sessions/{LONG}/")
    tab.page.keyboard.press("j")
    tab.page.keyboard.press("j")
    assert tab.page.locator("article.turn.is-selected").get_attribute("id") == "turn-2"
    assert tab.page.url.endswith("#turn-2")
    tab.page.keyboard.press("k")
    assert tab.page.locator("article.turn.is-selected").get_attribute("id") == "turn-1"
    tab.page.keyboard.press("n")
    # The next prompt may be on the next page, which htmx fetches before the jump lands there.
    tab.page.wait_for_url(re.compile(r"#u-"))
    tab.page.keyboard.press("?")
    assert tab.page.locator("#key-help").is_visible()
    tab.shot("04-keyboard-help")
    tab.page.keyboard.press("Escape")
    tab.page.keyboard.press("/")
    tab.page.wait_for_url("**/search/")


def test_it_searches_and_lands_on_the_exact_message(tab):
    tab.go("/search/")
    tab.page.fill("input[name=q]", "rate limiting")
    tab.page.wait_for_selector("#search-results .search-hit")
    tab.shot("05-search")
    tab.page.locator("#search-results .search-hit a").first.click()
    tab.page.wait_for_url("**/sessions/**#u-*")
    anchor = tab.page.url.split("#", 1)[1]
    assert tab.page.locator(f"[id='{anchor}']").count() == 1


def test_it_replays_the_session_frame_by_frame(tab):
    replays = []
    tab.page.on("request", lambda request: "/replay.json" in request.url and replays.append(request.url))
    tab.go(f"/sessions/{LONG}/")
    tab.page.wait_for_selector("#replay:not([hidden])")
    tab.page.wait_for_load_state("networkidle")
    assert replays == []  # nothing fetched until the panel is opened
    tab.page.click("#replay summary")
    where = tab.page.locator("[data-replay=where]")
    tab.page.wait_for_selector("[data-replay=where]:has-text('1/30')")
    tab.page.click("[data-replay=next]")
    assert "2/30" in where.inner_text()
    tab.page.locator("[data-replay=scrub]").fill("30")
    assert "window 3" in where.inner_text() and "30/30" in where.inner_text()
    tab.page.wait_for_selector("[data-replay=where]:has-text('30/30'):not(:has-text('loading'))")
    assert [url.rsplit("window=", 1)[-1] for url in replays] == ["1", "3"]  # one window at a time
    tab.shot("06-replay")


def test_it_plays_on_into_the_next_window_loading_it_on_the_way(tab):
    tab.go(f"/sessions/{LONG}/")
    tab.page.click("#replay summary")
    tab.page.wait_for_selector("[data-replay=where]:has-text('1/30')")
    tab.page.select_option("[data-replay=speed]", "250")
    tab.page.click("[data-replay=play]")
    tab.page.wait_for_selector("[data-replay=where]:has-text('of window 2 ·'):not(:has-text('loading'))")
    tab.page.click("[data-replay=play]")  # pause
    assert "(window 2)" in tab.page.locator("[data-replay=window]").inner_text()
    assert tab.page.locator("[data-replay=active] li").count() >= 1


def test_it_loads_a_subagent_under_its_tool_call(tab):
    tab.go(f"/sessions/{LONG}/")
    link = tab.page.locator(".subagent a").first
    link.click()
    body = tab.page.locator(".subagent-body").first
    body.locator(".entry, blockquote").first.wait_for()
    assert tab.page.url.endswith(f"/sessions/{LONG}/")  # loaded in place, no navigation
    tab.shot("07-subagent")


def test_it_shows_way_analytics(tab):
    tab.go("/ways/")
    tab.page.get_by_role("link", name="testing").first.click()
    tab.page.wait_for_url("**/ways/softwaredev/code/testing/")
    assert tab.page.locator("svg").count() >= 1
    tab.shot("08-way-page")


@pytest.mark.alone  # the page must show the new line within seconds: a budget, kept alone
def test_it_follows_a_live_session(tab, sample_home):
    live = sample_home / ".local/state/agent-ways/events.jsonl"
    sid = "live-0000-4000-8000-000000000001"
    now = timezone.now().replace(microsecond=0)

    def event(seconds_ago: int, **fields) -> bytes:
        stamp = (now - timezone.timedelta(seconds=seconds_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")
        return (
            orjson.dumps({"ts": stamp, "session": sid, "project": "/home/dev/src/web-ui", **fields}) + b"\n"
        )

    with open(live, "ab") as fh:
        fh.write(event(60, event="session_start"))
        fh.write(event(50, event="way_fired", way="build", trigger="bash", matched_span="make"))
    call_command("ingest", stdout=StringIO())
    tab.go(f"/sessions/{sid}/")
    assert tab.page.locator("[data-live]").inner_text() == "● LIVE"
    assert tab.page.locator("article.turn").count() == 1
    with open(live, "ab") as fh:
        fh.write(
            event(
                0,
                event="way_fired",
                way="softwaredev/code/testing",
                trigger="keyword",
                matched_span="unit tests",
            )
        )
    appended = time.monotonic()
    call_command("ingest", stdout=StringIO())  # what `ingest --follow` does within half a second
    tab.page.wait_for_selector("#turn-2", timeout=3000)
    assert time.monotonic() - appended < 3
    tab.shot("09-live-follow")


@pytest.mark.alone  # the page must show the new line within seconds: a budget, kept alone
def test_it_follows_a_transcript_without_agent_ways_events(tab, sample_home):
    # A plain Claude Code session: only its transcript grows, and the open page shows each line.
    sid = "cc000000-0000-4000-8000-000000000042"
    folder = sample_home / ".claude/projects/-home-dev-src-web-ui"
    path = folder / f"{sid}.jsonl"
    now = timezone.now()

    def entry(uuid: str, seconds_ago: float, kind: str, content) -> bytes:
        stamp = (now - timezone.timedelta(seconds=seconds_ago)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        role = {"user": "user", "assistant": "assistant"}[kind]
        message = {"role": role, "content": content}
        if kind == "assistant":
            message |= {"id": f"m-{uuid}", "model": "claude-sonnet-4-6"}
        line = {
            "type": kind,
            "uuid": uuid,
            "sessionId": sid,
            "timestamp": stamp,
            "cwd": "/home/dev/src/web-ui",
        }
        return orjson.dumps({**line, "message": message}) + b"\n"

    path.write_bytes(entry("p1", 30, "user", "tidy the header"))
    call_command("ingest", stdout=StringIO())
    tab.go(f"/sessions/{sid}/")
    assert tab.page.locator("[data-live]").inner_text() == "● LIVE"  # live by its writes
    with open(path, "ab") as fh:
        fh.write(entry("a1", 0, "assistant", [{"type": "text", "text": "Header tidied."}]))
    appended = time.monotonic()
    call_command("ingest", stdout=StringIO())  # what serve's importer does within half a second
    tab.page.wait_for_selector("#u-a1", timeout=2000)
    assert time.monotonic() - appended < 2
    assert tab.page.locator("#u-a1").inner_text().strip().endswith("Header tidied.")


def test_it_opens_a_search_hit_on_a_later_page_scrolled_to_its_entry(tab, sample_home):
    # "refill" is said in the long sample session's last turns, which are on its second page.
    tab.go("/search/?q=refill")
    hits = tab.page.locator(f"#search-results .search-hit a[href*='{LONG}'][href*='?u=']")
    hits.last.wait_for()
    anchor = hits.last.get_attribute("href").split("#", 1)[1]
    hits.last.click()
    tab.page.wait_for_url(f"**/sessions/{LONG}/?turn=*#{anchor}")  # the permalink answers with its page
    element = tab.page.locator(f"[id='{anchor}']")
    assert element.count() == 1
    tab.page.wait_for_timeout(300)
    box = element.bounding_box()
    assert box is not None and -5 <= box["y"] < 900, f"not scrolled to the entry: {box}"


def test_it_shows_every_sample_session_without_errors(tab):

    for session in Session.objects.all():
        tab.go(f"/sessions/{session.sid}/")
        assert session.sid in tab.page.text_content(".session-head")
    tab.go("/status/")
    tab.shot("10-import-status")


# Phone width (every page at 390 px, the header one row): tests/browser/test_cards.py.


def test_it_shows_the_real_fixture_transcripts(tab, sample_home):

    lay_out_tree(sample_home / ".claude/projects")
    call_command("ingest", stdout=StringIO())
    for n, (folder, (session, _)) in enumerate(TREE.items(), start=1):
        tab.go(f"/sessions/{session}/")
        assert tab.page.locator(".conversation .entry, .conversation blockquote").count() > 0
        if n in (1, 3, 5):
            tab.shot(f"12-fixture-{folder}")
    tab.go("/?transcript=yes&q=fixture")
