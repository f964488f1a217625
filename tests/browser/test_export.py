"""Export in a real browser: download the HTML export from the session page, open it from
`file://` in a browser context with the network cut off, and read the conversation there."""

from __future__ import annotations

import pytest

from introspect.models import Session, TranscriptEntry
from tests.browser.conftest import ARTIFACTS

pytestmark = [pytest.mark.django_db(transaction=True)]


def test_the_html_export_reads_offline_from_a_file(tab, browser, tmp_path):
    session = (
        Session.objects.exclude(transcript=None).filter(turn_count__gt=0).order_by("-turn_count").first()
    )
    prompt = (
        TranscriptEntry.objects.filter(source=session.transcript, is_prompt=True).order_by("offset").first()
    )
    tab.go(f"/sessions/{session.sid}/")
    page = tab.page
    page.get_by_text("Export", exact=True).click()  # the menu is a <details>: opens without our script
    tab.shot("export-menu")
    with page.expect_download() as info:
        page.get_by_role("link", name="HTML").click()
    download = info.value
    assert download.suggested_filename == f"session-{session.sid}.html"
    path = tmp_path / download.suggested_filename
    download.save_as(path)

    offline = browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=False)
    fetched: list[str] = []

    def refuse(route):
        fetched.append(route.request.url)
        route.abort()

    # Everything but the file itself is refused and recorded: the export must need nothing else.
    offline.route(lambda url: not url.startswith("file://"), refuse)
    offline.set_offline(True)
    try:
        reader = offline.new_page()
        reader.goto(path.as_uri())
        assert fetched == []
        first_words = " ".join(prompt.text.split()[:6])
        assert reader.get_by_text(first_words).first.is_visible()
        assert reader.locator("article.turn").first.is_visible()  # the ways a turn injected
        assert reader.locator(".way-id").first.inner_text().strip()
        # The inlined styles apply: a prompt is drawn as the session page draws it, not bare.
        assert (
            reader.locator("blockquote.prompt").first.evaluate("e => getComputedStyle(e).borderLeftStyle")
            != "none"
        )
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        reader.screenshot(path=str(ARTIFACTS / "export-offline.png"))
    finally:
        offline.close()
