"""Ruling on a decision record's question in a real browser: the backlog, the ADR page, the nav count."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger.models import AdrAction, AdrRecord
from tests.browser.conftest import sign_in_reviewer

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def ruling(repos, tab):
    """The sample's two repositories with their decision records, and a reviewer logged in."""
    return sign_in_reviewer(tab, "/ledger/decisions/backlog/")


def backlog_count(tab) -> str:
    return tab.page.locator("#backlog-count").inner_text().strip()


def test_it_rules_on_an_open_question_and_the_backlog_count_drops(ruling):
    tab = ruling
    rows = tab.page.locator("#backlog-results tbody tr")
    assert rows.count() == 4 and backlog_count(tab) == "4"
    # Oldest first: ADR-105 (2026-11-12) before ADR-0014 (2026-11-20).
    assert [rows.nth(i).locator("td").nth(1).inner_text().split()[0] for i in range(4)] == [
        "ADR-0105",
        "ADR-0105",
        "ADR-0014",
        "ADR-0014",
    ]
    retention = rows.filter(has_text="How long are audit events kept?")
    assert "R1" in retention.inner_text() and "A, unless compliance" in retention.inner_text()
    tab.shot("60-decision-backlog")

    retention.get_by_role("link", name="ADR-0014").click()
    tab.page.wait_for_selector("#question-list")
    assert "2 open" in tab.page.locator("#question-list h2").inner_text()
    assert "RUL-035 (not imported)" in tab.page.locator("#question-list .cited").inner_text()
    item = tab.page.locator("#q-R1")
    assert "Recommendation: A, unless compliance names a law that needs B." in item.inner_text()
    item.locator("summary").click()
    item.locator("input[name=option][value=A]").check()
    item.locator("textarea[name=reason]").fill("13 months covers the yearly audit")
    tab.shot("61-rule-form")
    item.locator("button[type=submit]").click()
    tab.page.wait_for_selector("#record-card .notice--ok")
    assert (
        "ruled" in tab.page.locator("#q-R1").inner_text()
        and "by rita" in tab.page.locator("#q-R1").inner_text()
    )
    assert "1 open" in tab.page.locator("#question-list h2").inner_text()
    # The nav's count refetches itself on the answer's HX-Trigger.
    tab.page.wait_for_function("() => document.querySelector('#backlog-count').innerText.trim() === '3'")
    tab.page.locator("#question-list").scroll_into_view_if_needed()
    tab.shot("62-ruled")

    record = AdrRecord.objects.get(canonical_id="ADR-0014", present=True)
    assert 'option A (rita: "13 months covers the yearly audit")' in Path(record.path).read_text()
    assert AdrAction.objects.get().verb == "rule"
    tab.page.get_by_role("link", name="Backlog").click()
    tab.page.wait_for_selector("#backlog-results")
    assert tab.page.locator("#backlog-results tbody tr").count() == 3 and backlog_count(tab) == "3"
    assert "How long are audit events kept?" not in tab.page.locator("#backlog-results").inner_text()
