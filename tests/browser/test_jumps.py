"""Reading a long plain Claude Code session with the keys, as a person would, at a phone's, a laptop's
and a wide screen's width: `n` from the first prompt to the last (each landing whole below the sticky
header, past the end of the loaded page), `p` back, a search hit opened at its match, the replay keys
right after the panel opens, and the bar that says live follow paused wherever the reader is."""

from __future__ import annotations

from io import StringIO

import orjson
import pytest
from django.core.management import call_command
from django.utils import timezone

from tests.browser import plain_session

pytestmark = [pytest.mark.django_db(transaction=True)]

LONG = "d9253f7d-53c6-40ee-932c-a3cba232d3a0"
SIZES = {390: 844, 1280: 900, 1920: 1080}
CURRENT = "() => (document.querySelector('[data-prompt].is-current') || {}).id || ''"
# Where a prompt is, against the header's bottom and the window; and whether the page is at its end.
PLACE = """(id) => { const r = document.getElementById(id).getBoundingClientRect();
  const root = document.documentElement;
  return {top: r.top, bottom: r.bottom, header: document.querySelector('header.top').getBoundingClientRect().bottom,
          window: window.innerHeight, end: window.scrollY + window.innerHeight >= root.scrollHeight - 2}; }"""


def press_and_wait(page, key: str, timeout: float = 15000) -> str:
    """Press `key` and wait for the current prompt to change; the new one ('' when nothing moved).
    The wait is a timeout, not a measurement: `n` past a page loads the next one from a busy server."""
    before = page.evaluate(CURRENT)
    page.keyboard.press(key)
    try:
        page.wait_for_function(f"(before) => ({CURRENT[6:]}) !== before", arg=before, timeout=timeout)
    except Exception:  # Playwright's TimeoutError: nothing moved
        return ""
    return page.evaluate(CURRENT)


def assert_landed_whole(page, prompt: str) -> None:
    at = page.evaluate(PLACE, prompt)
    assert at["top"] >= at["header"], f"{prompt} under the sticky header: {at}"
    assert at["top"] <= at["header"] + 16 or at["end"], f"{prompt} not brought up to the header: {at}"
    if at["bottom"] - at["top"] <= at["window"] - at["header"]:
        assert at["bottom"] <= at["window"], f"{prompt} cut at the bottom: {at}"


def last_prompt_shown(page) -> bool:
    return page.evaluate(
        """() => { const all = document.querySelectorAll('[data-prompt]');
             return !document.querySelector('#conversation-more')
               && all.length > 0 && all[all.length - 1].classList.contains('is-current'); }"""
    )


@pytest.mark.parametrize("width", list(SIZES))
def test_it_reads_a_long_plain_session_top_to_bottom_with_n(tab, plain, width):
    page = tab.page
    page.set_viewport_size({"width": width, "height": SIZES[width]})
    tab.go(f"/sessions/{plain}/")
    on_first_page = page.locator("[data-prompt]").count()
    assert page.locator("#conversation-more").count() == 1  # the session is longer than a page

    visited = []
    while not last_prompt_shown(page) and len(visited) < 200:
        landed = press_and_wait(page, "n")
        assert landed, f"n did nothing after {visited[-1:]} ({len(visited)} prompts read)"
        assert landed not in visited, f"n went back to {landed}"
        assert_landed_whole(page, landed)
        assert page.url.endswith(f"#{landed}")
        visited.append(landed)
        if len(visited) == 1:
            tab.shot(f"jump-n-{width}-first")
        if len(visited) == on_first_page + 1:
            tab.shot(f"jump-n-{width}-next-page")  # loaded by n itself, not by scrolling
    tab.shot(f"jump-n-{width}-last")

    everything = page.evaluate(
        "() => Array.from(document.querySelectorAll('[data-prompt]')).map((el) => el.id)"
    )
    assert visited == everything  # every prompt of every page, in order, none skipped
    assert len(visited) > on_first_page
    assert press_and_wait(page, "n", timeout=800) == ""  # past the last prompt there is nothing to go to

    back = press_and_wait(page, "p")
    assert back == visited[-2]
    assert_landed_whole(page, back)
    assert press_and_wait(page, "p") == visited[-3]


def test_p_before_the_first_loaded_prompt_opens_the_previous_page_there(tab, plain):
    page = tab.page
    tab.go(f"/sessions/{plain}/")
    first_page = page.evaluate(
        "() => Array.from(document.querySelectorAll('[data-prompt]')).map((el) => el.id)"
    )
    second = page.locator("#conversation-more a").get_attribute("href")
    tab.go(f"/sessions/{plain}/{second}")
    first_here = page.locator("[data-prompt]").first.get_attribute("id")
    assert press_and_wait(page, "n") == first_here
    page.keyboard.press("p")
    page.wait_for_url(lambda url: second not in url)
    # The prompt just before: the first page's last (the earlier page may run on past it).
    page.wait_for_function(f"() => ({CURRENT[6:]}) === {orjson.dumps(first_page[-1]).decode()}")
    assert_landed_whole(page, first_page[-1])
    tab.shot("jump-p-previous-page")


@pytest.mark.parametrize("width", list(SIZES))
def test_a_search_hit_opens_its_card_at_the_match_highlighted(tab, plain, width):
    page = tab.page
    page.set_viewport_size({"width": width, "height": SIZES[width]})
    tab.go(f"/search/?q={plain_session.NEEDLE}")
    hit = page.locator(".search-hit a").first
    assert plain_session.NEEDLE_RESULT in hit.get_attribute("href")
    hit.click()
    page.wait_for_url(f"**/sessions/{plain}/?turn=*&hit={plain_session.NEEDLE_RESULT}&q=*")

    mark = page.locator("mark.search-match.is-first")
    mark.wait_for()
    assert mark.inner_text() == plain_session.NEEDLE
    found = page.evaluate(
        """() => { const m = document.querySelector('mark.search-match.is-first'), r = m.getBoundingClientRect();
             return {line: m.closest('.line').dataset.n, shown: m.checkVisibility(),
                     unfolded: m.closest('details.show-all').open, top: r.top, bottom: r.bottom,
                     header: document.querySelector('header.top').getBoundingClientRect().bottom,
                     window: window.innerHeight, colour: getComputedStyle(m).backgroundColor}; }"""
    )
    # Line 40 of a box that shows 12 lines folded: opened, marked, and in view below the header.
    assert found["line"] == str(plain_session.NEEDLE_LINE) and found["unfolded"] and found["shown"]
    assert found["header"] <= found["top"] and found["bottom"] <= found["window"], found
    assert found["colour"] not in ("rgba(0, 0, 0, 0)", "transparent")
    assert page.locator(f"[id='u-{plain_session.NEEDLE_RESULT}'].search-target").count() == 1
    tab.shot(f"jump-search-hit-{width}")


def test_the_replay_keys_work_as_soon_as_the_panel_opens(tab):
    page = tab.page
    tab.go(f"/sessions/{LONG}/")
    page.click("#replay summary")
    where = page.locator("[data-replay=where]")
    page.wait_for_selector("[data-replay=where]:has-text('1/30')")
    assert page.evaluate("() => document.activeElement.tagName") == "SUMMARY"  # where the click left it
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("[data-replay=where]:has-text('2/30')")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("[data-replay=where]:has-text('1/30')")
    page.keyboard.press(" ")  # plays, and the panel stays open
    page.wait_for_selector("[data-replay=play]:has-text('pause')")
    assert page.evaluate("() => document.querySelector('[data-replay=panel]').open")
    page.keyboard.press(" ")
    page.wait_for_selector("[data-replay=play]:has-text('play')")
    assert "/30" in where.inner_text()
    page.keyboard.press("Enter")  # the summary still folds the panel
    assert not page.evaluate("() => document.querySelector('[data-replay=panel]').open")


def test_live_follow_paused_shows_a_bar_wherever_the_reader_is(tab, plain, sample_home):
    page = tab.page
    written = timezone.now().strftime("%Y-%m-%dT%H:%M:%S.000Z")
    line = {
        "type": "user",
        "uuid": "f0110000-0025-4000-8000-000000000001",
        "sessionId": plain,
        "cwd": "/workspace",
        "timestamp": written,
        "message": {"role": "user", "content": "still there?"},
    }
    with open(plain_session.path(sample_home), "ab") as fh:
        fh.write(orjson.dumps(line) + b"\n")
    call_command("ingest", stdout=StringIO())  # written a moment ago: the session is live
    tab.go(f"/sessions/{plain}/?turn=40")  # its last page, where live follow goes on
    bar = page.locator("[data-follow-bar]")
    assert page.locator("[data-live]").inner_text() == "● LIVE" and not bar.is_visible()

    page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    page.mouse.wheel(0, -2500)  # the reader scrolls back up, mid-page, far below the heading
    bar.wait_for(state="visible")
    box = bar.bounding_box()
    assert box["y"] > 900 - 80 and box["y"] + box["height"] <= 900  # at the bottom of the viewport
    assert page.locator("[data-live]").inner_text() == "LIVE paused"
    assert not page.locator("[data-live]").is_visible() or page.locator("[data-live]").bounding_box()["y"] < 0
    tab.shot("jump-follow-paused")

    bar.locator("button").click()
    bar.wait_for(state="hidden")
    assert page.evaluate(
        "() => window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2"
    )
    assert page.locator("[data-live]").inner_text() == "● LIVE"
