"""Review rough edges in a real browser: the nav's Knowledge count follows a promotion without a reload."""

from __future__ import annotations

import pytest

from ledger.models import KnowledgeRecord
from tests.browser.conftest import sign_in_reviewer

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def reviewer_tab(api_server, tab):
    """The sample with its majordomus repository's candidates, and a reviewer logged in."""
    return sign_in_reviewer(tab)


def test_the_nav_count_drops_after_a_promotion_without_a_reload(reviewer_tab, expect):
    tab = reviewer_tab
    pending = KnowledgeRecord.objects.filter(status="candidate", present=True)
    before = pending.count()
    assert before >= 2, "the sample should leave candidates to review"
    record = pending.order_by("record_id").first()
    tab.go(f"/ledger/knowledge/{record.pk}/")
    badge = tab.page.locator("#knowledge-count")
    expect(badge).to_have_text(str(before))
    # A reload would drop this flag: it shows the count changed in the same page.
    tab.page.evaluate("window.__sameDocument = true")
    tab.page.fill("#promote-form textarea[name=evidence]", "Confirmed by the load test on 2026-11-06.")
    tab.page.click("#promote-form button[type=submit]")
    tab.page.wait_for_selector("text=Promoted: written to curated/")
    expect(badge).to_have_text(str(before - 1))
    assert tab.page.evaluate("window.__sameDocument") is True
    tab.shot("review-edges-nav-count-after-promote")


def test_a_decision_record_shows_its_provenance_as_fields_and_only_valid_status_changes(reviewer_tab, expect):
    tab = reviewer_tab
    tab.go("/ledger/decisions/")
    tab.page.get_by_role("link", name="ADR-0011").first.click()
    tab.page.wait_for_selector("#record-card")
    fields = tab.page.locator(".provenance dl")
    expect(fields.locator("dt")).to_have_text(["origin", "derived from"])
    assert "{" not in tab.page.locator(".provenance").inner_text()
    options = tab.page.locator("#status-form select[name=verb] option")
    expect(options).to_have_text(["deprecate", "supersede by…"])
    tab.shot("review-edges-record-provenance")


def test_the_ledger_index_names_projects_by_name(reviewer_tab, expect):
    tab = reviewer_tab
    tab.go("/ledger/")
    names = tab.page.locator("table .project-name")
    expect(names.first).to_be_visible()
    assert "api-server" in names.all_inner_texts()
    tab.shot("review-edges-ledger-index")
