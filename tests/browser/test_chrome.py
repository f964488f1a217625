"""The frame in a real browser: the theme switch (remembered across reloads), the Ctrl+K command
palette, and the `?` overlay listing the keys of the page at hand."""

from __future__ import annotations

import re

import pytest

pytestmark = [pytest.mark.django_db(transaction=True)]

SESSION = "3f12dab8-ee65-4941-ae6f-11e4d6a398ba"  # the sample's "the bundle grew 40 kB last week"
LIGHT_BG = "rgb(247, 247, 245)"
DARK_BG = "rgb(15, 17, 23)"


def background(page) -> str:
    return page.evaluate("getComputedStyle(document.body).backgroundColor")


def test_the_theme_switch_changes_the_colours_and_survives_a_reload(tab):
    page = tab.page
    tab.go("/")
    assert background(page) == LIGHT_BG and page.input_value("[data-theme-switch]") == "auto"
    page.select_option("[data-theme-switch]", "dark")
    assert background(page) == DARK_BG
    # The code colours follow the chosen theme, not only the system's.
    assert page.get_attribute("#pygments-dark", "media") == "all"
    tab.shot("chrome-dark-session-list")

    page.reload()
    assert background(page) == DARK_BG and page.input_value("[data-theme-switch]") == "dark"
    tab.go(f"/sessions/{SESSION}/")
    assert background(page) == DARK_BG

    # Light wins over a dark system; auto follows the system again.
    page.emulate_media(color_scheme="dark")
    page.select_option("[data-theme-switch]", "light")
    assert background(page) == LIGHT_BG
    page.reload()
    assert background(page) == LIGHT_BG
    page.select_option("[data-theme-switch]", "auto")
    assert background(page) == DARK_BG
    page.emulate_media(color_scheme="light")
    assert background(page) == LIGHT_BG


def test_ctrl_k_opens_the_palette_and_enter_lands_on_the_session_typed(tab):
    page = tab.page
    tab.go("/")
    # Reached by a boosted link: htmx swapped the <body> holding the palette and the theme switch.
    page.click("nav a >> text=Ways")
    page.wait_for_url(re.compile(r"/ways/$"))
    page.wait_for_selector("[data-theme-switch]")  # shown again in the new header
    page.keyboard.press("Control+k")
    assert page.is_visible("#palette") and page.evaluate(
        "document.activeElement.matches('[data-palette-input]')"
    )
    page.keyboard.type(SESSION[:4])
    page.wait_for_selector("#palette-results [role=option] >> text=the bundle grew 40 kB last week")
    tab.shot("chrome-palette")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/sessions/{SESSION}/$"))
    assert SESSION in page.text_content(".session-head")  # the full id is under "more"


def test_the_arrows_choose_and_escape_closes(tab):
    page = tab.page
    tab.go("/")
    page.keyboard.press("Control+k")
    page.keyboard.type("status")
    # The answer for "status" itself (the one for the empty box, asked on opening, lists it too).
    page.wait_for_selector("#palette-item-0 >> text=Import status")
    assert page.get_attribute("#palette-item-0", "aria-selected") == "true"
    page.keyboard.press("Escape")
    assert not page.is_visible("#palette")

    page.keyboard.press("Control+k")
    page.fill("[data-palette-input]", "")  # nothing typed: every page, Sessions first, then Ways
    page.wait_for_selector("#palette-item-1 >> text=Ways")
    page.keyboard.press("ArrowDown")
    assert page.get_attribute("#palette-item-1", "aria-selected") == "true"
    assert page.get_attribute("#palette-item-0", "aria-selected") == "false"
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/ways/$"))
    assert page.text_content("h1") == "Ways"


def test_the_help_lists_the_keys_of_the_session_page(tab):
    page = tab.page
    tab.go(f"/sessions/{SESSION}/")
    page.keyboard.press("?")
    assert page.is_visible("#key-help")
    help_text = page.text_content("#key-help")
    for line in ("next / previous prompt", "replay: play / pause", "go to a session, way, decision or page"):
        assert line in help_text


# Records the theme on <html> at the moment the parser adds <body>, before anything is painted.
AT_FIRST_BODY = """new MutationObserver((changes, observer) => {
  if (!document.body) return;
  window.themeAtFirstBody = document.documentElement.dataset.theme || "auto";
  observer.disconnect();
}).observe(document, { childList: true, subtree: true });"""


def test_the_remembered_theme_is_on_the_page_before_its_body_is_parsed(tab):
    page = tab.page
    page.add_init_script(AT_FIRST_BODY)
    tab.go("/")
    assert page.evaluate("window.themeAtFirstBody") == "auto"
    page.select_option("[data-theme-switch]", "dark")
    tab.go("/ways/")
    assert page.evaluate("window.themeAtFirstBody") == "dark"
