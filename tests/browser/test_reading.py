"""A plain Claude Code session (no agent-ways) read in a real browser as its user would (issue 25):
no agent-ways words, a header of two rows, thinking collapsed, tool calls one line each after the
page-wide toggle (remembered), an interruption as a mark with what was typed as the next prompt.
Screenshots at 390 and 1280 px in both themes go to test-artifacts/."""

from __future__ import annotations

import pytest

from introspect.models import Session
from tests.conftest import Home
from tests.introspect import plain_session

pytestmark = [pytest.mark.django_db(transaction=True)]

URL = f"/sessions/{plain_session.SID}/"
ROWS = """(selector) => {
  const tops = [...document.querySelector(selector).children]
    .filter((el) => el.getClientRects().length)
    .map((el) => Math.round(el.getBoundingClientRect().top));
  return new Set(tops).size;
}"""
LINES = """(selector) => {
  const el = document.querySelector(selector);
  return Math.round(el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight));
}"""

AGAIN = """() => new Promise((loaded) => {
  const script = document.createElement("script");
  script.src = document.querySelector("script[src*='tools']").src;
  script.onload = loaded;
  document.body.append(script);
})"""


@pytest.fixture
def plain(sample_home, kept_imports):
    kept_imports.then("reading-plain", lambda home: plain_session.plain_session(Home(home)))
    return Session.objects.get(sid=plain_session.SID)


def visible_text(page) -> str:
    return page.locator("main").inner_text()


def test_a_plain_session_reads_at_a_glance(tab, plain):
    page = tab.page
    tab.go(URL)

    text = visible_text(page)
    for word in plain_session.AGENT_WAYS_WORDS:
        assert word not in text, word
    assert page.locator("nav.tabs").count() == 0
    # The header: the title on one row, the facts on one more; the conversation starts in view.
    assert page.evaluate(LINES, "h1.session-heading") == 1
    assert page.evaluate(ROWS, ".session-bar") == 1
    first_prompt = page.locator("blockquote[data-prompt]").first.bounding_box()
    assert first_prompt["y"] + first_prompt["height"] < page.viewport_size["height"]
    # The rest is one click away.
    assert not page.locator(".session-more .facts").is_visible()
    page.locator(".session-more > summary").click()
    assert plain.sid in page.locator(".session-more .facts").inner_text()
    page.locator(".session-more > summary").click()


def test_thinking_is_collapsed_and_reads_as_markdown(tab, plain):
    page = tab.page
    tab.go(URL)

    thinking = page.locator("details.entry--thinking").first
    assert thinking.get_attribute("open") is None
    assert "Look at parser.py first" in thinking.locator("summary").inner_text()
    thinking.locator("summary").click()
    assert thinking.locator(".markdown code", has_text="parser.py").is_visible()
    assert thinking.locator(".markdown strong", has_text="torn").is_visible()
    assert thinking.locator("time").count() == 1


def test_the_toggle_folds_every_tool_call_to_one_line_and_is_remembered(tab, plain, expect):
    page = tab.page
    tab.go(URL)
    cards = page.locator("details[data-tool-card]")
    assert cards.count() == 4 and all(card.get_attribute("open") is not None for card in cards.all())

    # A boosted navigation runs the page's scripts again (htmx): the toggle must still act once a click.
    page.evaluate(AGAIN)
    page.get_by_role("button", name="collapse all tool calls").click()

    for card in cards.all():
        assert card.get_attribute("open") is None
        assert page.evaluate(LINES, f"[data-tool-use='{card.get_attribute('data-tool-use')}'] > summary") == 1
    tab.shot("reading-1280-tools-collapsed")
    page.reload()  # the server draws them collapsed now: the choice is remembered
    assert all(card.get_attribute("open") is None for card in cards.all())
    expect(page.get_by_role("button", name="expand all tool calls")).to_be_visible()
    page.get_by_role("button", name="expand all tool calls").click()
    assert all(card.get_attribute("open") is not None for card in cards.all())


def test_an_interruption_is_a_mark_and_the_typed_words_are_the_prompt(tab, plain):
    page = tab.page
    tab.go(URL)

    mark = page.locator(".entry--interrupt")
    assert mark.count() == 1 and "Interrupted by the user" in mark.inner_text()
    turn_2 = page.locator("#t-2")
    assert mark.bounding_box()["y"] < turn_2.bounding_box()["y"]  # the last thing of turn 1
    prompt = page.locator("#t-2 ~ blockquote[data-prompt]").first  # after the turn's signal marks
    assert (
        plain_session.TYPED in prompt.inner_text() and "typed while the agent worked" in prompt.inner_text()
    )
    prompts = page.locator("blockquote[data-prompt]").all_inner_texts()
    assert len(prompts) == 3 and not any("[Request interrupted" in text for text in prompts)
    assert page.locator(".entry--queued").count() == 0  # no rows of the queue's bookkeeping


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_it_keeps_screenshots_of_the_page_at_each_width_and_theme(tab, plain, width, theme):
    page = tab.page
    page.set_viewport_size({"width": width, "height": 844 if width == 390 else 900})
    page.emulate_media(color_scheme=theme)
    tab.go(URL)

    assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing scrolls sideways
    tab.shot(f"reading-{width}-{theme}")
    page.locator(".session-more > summary").click()
    tab.shot(f"reading-{width}-{theme}-more")
