"""Every page at every width from a 360 px phone to a 1920 px screen, light and dark, signed in and
out: nothing scrolls sideways, the header is one row, and on a phone every page link is one tap
away behind Menu."""

from __future__ import annotations

import re

import pytest

from introspect.models import Subagent, Way
from ledger.models import AdrRecord, KnowledgeRecord, LedgerEntry, Memory
from tests.browser.conftest import ARTIFACTS

pytestmark = [pytest.mark.django_db(transaction=True)]

LONG = "d9253f7d-53c6-40ee-932c-a3cba232d3a0"  # the sample's long session, with a subagent
WIDTHS = (360, 390, 768, 1280, 1400, 1920)
DONE_WHEN = (360, 390, 1280, 1920)  # issue 25's widths; signed in, the others too
SCHEMES = ("light", "dark")
# The outermost elements that stick out on the right (inside a box that scrolls or clips is fine).
WIDEST = """() => Array.from(document.querySelectorAll('body *')).filter((el) => {
    if (el.getBoundingClientRect().right <= window.innerWidth + 1) return false;
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      if (getComputedStyle(up).overflowX !== 'visible') return false;
      if (up.getBoundingClientRect().right > window.innerWidth + 1) return false;
    }
    return true;
  }).slice(0, 4).map((el) => `${el.tagName}.${el.className} ${Math.round(el.getBoundingClientRect().right)}px`)"""
# The header's height, and how far apart its visible children's middles are (0 for one row).
HEADER = """() => { const h = document.querySelector('header.top');
  const middles = Array.from(h.children).filter((el) => el.offsetParent !== null)
    .map((el) => el.getBoundingClientRect()).map((r) => Math.round(r.top + r.height / 2));
  return [Math.round(h.getBoundingClientRect().height), Math.max(...middles) - Math.min(...middles)]; }"""


def site_pages(plain: str) -> dict[str, str]:
    """One of each page the site has, by name."""
    way = Way.objects.order_by("way_id").first()
    record = KnowledgeRecord.objects.order_by("pk").first()
    decision = AdrRecord.objects.order_by("pk").first()
    stream = LedgerEntry.objects.order_by("pk").values_list("project_slug", flat=True).first()
    memory = Memory.objects.order_by("pk").values_list("project_slug", flat=True).first()
    agent = Subagent.objects.filter(session__sid=LONG).order_by("pk").first()
    return {
        "sessions": "/",
        "session": f"/sessions/{LONG}/",
        "plain session": f"/sessions/{plain}/",
        "event log": f"/sessions/{LONG}/events/",
        "subagent": f"/sessions/{LONG}/agents/{agent.agent_id}/",
        "search": "/search/?q=api",
        "ways": "/ways/",
        "way": f"/ways/{way.way_id}/",
        "import status": "/status/",
        "ledger": "/ledger/",
        "ledger stream": f"/ledger/{stream}/",
        "knowledge": "/ledger/knowledge/",
        "knowledge record": f"/ledger/knowledge/{record.pk}/",
        "audit": "/ledger/knowledge/audit/",
        "decisions": "/ledger/decisions/",
        "decision": f"/ledger/decisions/{decision.pk}/",
        "backlog": "/ledger/decisions/backlog/",
        "memory": "/ledger/memory/",
        "memory project": f"/ledger/memory/{memory}/",
        "login": "/accounts/login/",
    }


def measure_everywhere(tab, pages: dict[str, str], who: str, widths=WIDTHS) -> tuple[dict, dict]:
    """Each page at each width in both themes: what scrolls sideways, and where the header is not one row."""
    page = tab.page
    wide, headers = {}, {}
    for width in widths:
        page.set_viewport_size({"width": width, "height": 844 if width < 500 else 900})
        for name, path in pages.items():
            tab.go(path)
            for scheme in SCHEMES:
                page.emulate_media(color_scheme=scheme)
                scroll, inner = page.evaluate(
                    "() => [document.documentElement.scrollWidth, window.innerWidth]"
                )
                if scroll > inner:
                    wide[(width, scheme, name)] = (scroll, page.evaluate(WIDEST))
                height, spread = page.evaluate(HEADER)
                if height > 56 or spread > 4:
                    headers[(width, scheme, name)] = (height, spread)
                if name in ("sessions", "plain session", "import status"):
                    tab.shot(f"layout-{who}-{re.sub(r'\W+', '-', name)}-{width}-{scheme}")
        page.emulate_media(color_scheme="light")
    return wide, headers


def test_no_page_scrolls_sideways_at_any_width_signed_in(plain, signed_in):
    wide, headers = measure_everywhere(signed_in, site_pages(plain), "in")
    assert wide == {}, f"pages wider than the window (scrollWidth > innerWidth): {wide}"
    assert headers == {}, f"headers taller than one row: {headers}"


def test_no_page_scrolls_sideways_at_any_width_signed_out(repos, plain, tab):
    wide, headers = measure_everywhere(tab, site_pages(plain), "out", DONE_WHEN)
    assert wide == {}, f"pages wider than the window (scrollWidth > innerWidth): {wide}"
    assert headers == {}, f"headers taller than one row: {headers}"


def nav_links(page) -> list[dict]:
    return page.evaluate(
        """() => Array.from(document.querySelectorAll('header.top nav a')).map((a) => {
             const r = a.getBoundingClientRect();
             return {name: a.textContent.trim(), shown: a.checkVisibility(), top: r.top, bottom: r.bottom,
                     left: r.left, right: r.right};
           })"""
    )


def test_on_a_phone_every_page_link_is_behind_menu_and_fits(signed_in):
    page = signed_in.page
    page.set_viewport_size({"width": 360, "height": 740})
    signed_in.go("/")
    assert not any(link["shown"] for link in nav_links(page))  # the header is the brand, Menu, the badge
    page.click(".menu-toggle summary")
    links = nav_links(page)
    assert [link["name"].split()[0] for link in links] == [
        "Sessions",
        "Ways",
        "Ledger",
        "Memory",
        "Knowledge",
        "Backlog",
        "Decisions",
        "Search",
        "Secrets",
        "Import",
    ]
    for link in links:
        assert link["shown"] and link["left"] >= 0 and link["right"] <= 360 and link["bottom"] <= 740, link
    assert page.is_visible(".top-menu .account") and page.is_visible("[data-theme-switch]")
    page.screenshot(path=str(ARTIFACTS / "layout-menu-360.png"))
    page.keyboard.press("Escape")
    assert not page.is_visible(".top-menu")
    page.click(".menu-toggle summary")
    page.click("header.top nav a >> text=Import status")
    page.wait_for_url("**/status/")
    assert not page.is_visible(".top-menu")  # the new page's header comes closed

    page.set_viewport_size({"width": 1280, "height": 900})
    assert not page.is_visible(".menu-toggle")
    assert all(link["shown"] and link["bottom"] <= 54 for link in nav_links(page))


def test_a_phone_reads_each_sessions_facts_on_a_second_line(signed_in):
    page = signed_in.page
    page.set_viewport_size({"width": 390, "height": 844})
    signed_in.go("/")
    row = page.locator("table.session-list tbody tr").first
    assert row.locator(".row-meta").is_visible()
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", row.locator(".row-meta").inner_text())
    assert re.search(r"tokens", row.locator(".row-meta").inner_text())
    assert not row.locator("td.col-tokens").is_visible() and not page.is_visible("table.session-list thead")
    signed_in.shot("layout-list-phone")
    page.set_viewport_size({"width": 1920, "height": 900})
    assert not row.locator(".row-meta").is_visible() and row.locator("td.col-models").is_visible()
