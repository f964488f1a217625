"""First run on an empty HOME, in a real browser (issue 25): `serve` on a Claude Code history big
enough that its import takes several seconds, the dashboard opened the moment the terminal says
"serving", at phone, laptop and wide-screen widths (and the laptop in the dark theme). Each page
shows the import from its first paint, then the sessions as they land and the import's end,
without a reload; none scrolls sideways.
"""

from __future__ import annotations

import time

import pytest

from tests.browser.conftest import Page
from tests.waysweb.management.served import SESSIONS, sid, start, write_history

WIDTHS = [(390, 844, "light"), (1280, 800, "light"), (1920, 1080, "light"), (1280, 800, "dark")]
IMPORT_DONE_WITHIN = 180  # seconds, on a busy two-core machine


@pytest.fixture
def served(tmp_path):
    home = tmp_path / "home"  # nothing but Claude Code transcripts: no waysweb data, no agent-ways
    write_history(home)
    out = tmp_path / "serve.out"
    with out.open("wb") as sink:
        server = start(tmp_path, home, stdout=sink)
    try:
        deadline = time.monotonic() + 90
        while "waysweb is serving" not in out.read_text():
            assert time.monotonic() < deadline and server.process.poll() is None, out.read_text()
            time.sleep(0.05)
        yield server, out
    finally:
        server.stop()


def name(width: int, scheme: str) -> str:
    return f"first-run-{width}" + ("-dark" if scheme == "dark" else "")


def no_sideways_scroll(page) -> None:
    width, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"the page is {width} px wide in a {inner} px window"


def test_the_first_page_shows_the_import_then_the_sessions_without_a_reload(browser, served):
    server, _ = served
    tabs: list[tuple[Page, int, str]] = []
    contexts = []
    for width, height, scheme in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
        contexts.append(context)
        tabs.append((Page(context.new_page(), server.base), width, scheme))
    try:
        # Opened as soon as the terminal says "serving": the import shows from the first paint.
        for tab, width, scheme in tabs:
            tab.go("/")
            page = tab.page
            page.evaluate("window.firstRunMarker = 'not reloaded'")
            said = page.locator("#session-rows").inner_text()
            assert "Importing your history" in said, said
            assert "manage.py serve" not in said and "No sessions yet" not in said
            assert page.locator("#session-poller").count() == 1
            no_sideways_scroll(page)
            tab.shot(f"{name(width, scheme)}-1-start")

        # The sessions land and the list shows them by itself.
        for tab, _, _ in tabs:
            tab.page.wait_for_selector("table.sessions tbody tr", timeout=IMPORT_DONE_WITHIN * 1000)
        for tab, width, scheme in tabs:
            no_sideways_scroll(tab.page)
            tab.shot(f"{name(width, scheme)}-2-landing")

        # The import ends: every session listed, the note and the poller gone, the strip too.
        for tab, width, scheme in tabs:
            page = tab.page
            page.wait_for_function(
                f"""() => document.querySelectorAll('table.sessions tbody tr').length === {SESSIONS}
                    && !document.getElementById('session-poller')""",
                timeout=IMPORT_DONE_WITHIN * 1000,
                polling=500,
            )
            assert page.evaluate("window.firstRunMarker") == "not reloaded"
            assert page.locator(".list-import").count() == 0
            page.wait_for_selector("#progress-strip", state="detached", timeout=30_000)
            listed = page.locator("table.sessions tbody tr a.mono").all_inner_texts()
            assert listed[0] == sid(SESSIONS - 1)[:8] and len(listed) == SESSIONS  # newest first
            assert "inferred" not in page.locator("#session-rows").inner_text()
            no_sideways_scroll(page)
            tab.shot(f"{name(width, scheme)}-3-done")
        for tab, _, _ in tabs:
            assert tab.errors == [], f"console errors: {tab.errors}"
    finally:
        for context in contexts:
            context.close()
