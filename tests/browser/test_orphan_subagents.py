"""Walkthrough (issue 25): a session whose main transcript is missing, reached from the list, leads
to its subagent's page; at a phone's, a laptop's and a wide screen's width, nothing scrolls sideways.

The session is real: marot/spotter's compaction subagent file, under its session's `subagents/`
folder with no main transcript beside it (tests/fixtures/transcripts/PROVENANCE.md), imported with
the bundled sample. Screenshots go to the test artifacts (tests/browser/conftest.py: ARTIFACTS).
"""

from __future__ import annotations

import shutil
from io import StringIO

import pytest
from django.core.management import call_command

from lib import locations
from tests.browser.conftest import Page
from tests.fixtures import TRANSCRIPTS

pytestmark = [pytest.mark.django_db(transaction=True)]

FIXTURE = TRANSCRIPTS / "marot_spotter_agent-acompact-e1f845.jsonl"
ORPHAN, AGENT = "4d5611e5-241a-462a-8d15-5122611a9569", "acompact-e1f845"
WIDTHS = (390, 1280, 1920)


@pytest.fixture
def orphan_home(kept_imports, settings):
    """The sample with an orphan subagent beside it (imported once a session: tests/kept_imports.py)."""

    def with_orphan(home):
        shutil.copytree(locations.SAMPLE_HOME, home, symlinks=True)
        folder = home / ".claude" / "projects" / "-Users-marot-spotter" / ORPHAN / "subagents"
        folder.mkdir(parents=True)
        shutil.copy(FIXTURE, folder / f"agent-{AGENT}.jsonl")
        call_command("ingest", stdout=StringIO())

    settings.WAYSWEB_LOCATIONS = locations.resolve({"HOME": str(kept_imports.home)})
    settings.ALLOWED_HOSTS = ["localhost", "127.0.0.1", "testserver"]
    return kept_imports.start("orphan", with_orphan)


def no_sideways_scroll(page) -> None:
    width, inner = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"the page is {width} px wide in a {inner} px window"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_an_orphan_subagent_is_reached_from_its_session(browser, live_server, orphan_home, width, scheme):
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    tab = Page(context.new_page(), live_server.url)
    try:
        tab.go("/")
        row = tab.page.locator("table.sessions tbody tr", has=tab.page.locator(f'a[title="{ORPHAN}"]'))
        row.scroll_into_view_if_needed()
        assert row.locator(".badge", has_text="subagents only").is_visible()
        no_sideways_scroll(tab.page)
        tab.shot(f"i25-orphan-{width}-{scheme}-1-list")
        row.locator(f'a[title="{ORPHAN}"]').click()
        tab.page.wait_for_url(f"**/sessions/{ORPHAN}/")

        section = tab.page.locator("#loose-subagents")
        assert "Subagent transcripts without their main transcript" in section.inner_text()
        assert "$0.1369" in section.inner_text()
        section.scroll_into_view_if_needed()
        no_sideways_scroll(tab.page)
        tab.shot(f"i25-orphan-{width}-{scheme}-2-session")

        section.get_by_role("link", name=f"subagent {AGENT}").click()
        tab.page.wait_for_url(f"**/sessions/{ORPHAN}/agents/{AGENT}/")
        assert AGENT in tab.page.locator("h1").inner_text()
        assert (
            tab.page.locator("#subagent-conversation .entry, #subagent-conversation blockquote").count() > 0
        )
        no_sideways_scroll(tab.page)
        tab.shot(f"i25-orphan-{width}-{scheme}-3-subagent")
        tab.page.go_back()
        tab.page.wait_for_url(f"**/sessions/{ORPHAN}/")
        assert tab.page.locator("#loose-subagents").is_visible()
    finally:
        tab.close()  # once the session page's seen mark, posted as it loads, is answered
    assert tab.errors == [], f"console errors: {tab.errors}"
