"""Claude Code's auto-memory in a real browser: the Memory page, a version followed to the turn that
wrote it, and a memory promoted to knowledge."""

from __future__ import annotations

import pytest

from ledger.models import KnowledgeRecord, Memory, MemoryAction
from tests.browser.conftest import sign_in_reviewer

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def reviewer_tab(tab):
    return sign_in_reviewer(tab, "/ledger/memory/")


def test_it_follows_a_memory_to_its_turn_and_promotes_it(reviewer_tab, sample_home):
    tab = reviewer_tab
    tab.page.get_by_role("link", name="-home-dev-notes").click()
    tab.page.wait_for_selector(".memory-index")
    assert "- [reading list markers](reading.md)" in tab.page.locator(".memory-index").inner_text()
    reading = Memory.objects.get(name="reading.md")
    card = tab.page.locator(f"#memory-{reading.pk}")
    assert "reading list markers" in card.inner_text() and "user" in card.inner_text()
    version = card.locator(f"#memory-{reading.pk}-v1")
    assert "written in session" in version.inner_text() and "turn 4" in version.inner_text()
    style = tab.page.locator(f"#memory-{Memory.objects.get(name='style.md').pk}")
    assert "changed outside a recorded session" in style.inner_text()
    tab.shot("70-memory-page")

    version.locator("a.memory-turn").click()
    tab.page.wait_for_url("**/sessions/**")
    assert "turn=4" in tab.page.url
    assert "reading.md" in tab.page.locator("#memory-written").inner_text()
    tab.shot("71-memory-turn")

    tab.page.go_back()
    card = tab.page.locator(f"#memory-{reading.pk}")
    card.locator("summary", has_text="Decide on this memory").click()
    card.locator(".memory-promote-form textarea[name=evidence]").fill("The reading list uses these markers.")
    card.locator(".memory-promote-form button[type=submit]").click()
    tab.page.wait_for_selector(f"#memory-{reading.pk} .notice--ok")
    assert "promoted by rita" in tab.page.locator(f"#memory-{reading.pk}").inner_text()
    tab.shot("72-memory-promoted")

    record = KnowledgeRecord.objects.get(record_id__startswith="ww-mem-")
    assert record.status == "verified" and record.turn_epochs == [4, 4]
    assert MemoryAction.objects.get().knowledge == record
