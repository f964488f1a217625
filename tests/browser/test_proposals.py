"""Applying a proposal in a real browser, as the issue's walkthrough does: the effectiveness page →
a way → its `refire:` proposal applied by a reviewer → the way file has one changed line and the
audit row exists → an apply from a page drawn before the file changed answers 409 and says why."""

from __future__ import annotations

from pathlib import Path

import pytest

from introspect.models import Way
from tests.browser import refire_apply
from tests.browser.conftest import sign_in_reviewer

pytestmark = [pytest.mark.django_db(transaction=True)]

DESIGN = "softwaredev/architecture/design"


def test_a_reviewer_applies_a_refire_proposal_and_a_stale_apply_answers_409(tab):
    way = Way.objects.get(way_id=DESIGN, present=True)
    path = Path(way.root) / way.rel_path
    sign_in_reviewer(tab, "/ways/effectiveness/")
    proposals = tab.page.locator(".effect-proposals")
    assert "refire: 0.25" in proposals.inner_text() and "refire: normal" in proposals.inner_text()
    proposals.get_by_role("link", name=DESIGN).click()
    tab.page.wait_for_selector("#way-proposals")
    section = tab.page.locator("#way-proposals")
    assert "1 out-of-band read" in section.inner_text()
    assert "-refire: 0.25\n+refire: normal" in section.locator("pre.proposal-diff").inner_text()
    tab.shot("80-way-proposal")

    # A second tab holds the page as drawn now, before the apply below changes the file.
    earlier = refire_apply.earlier_tab(tab.page)
    after = refire_apply.apply_refire(tab.page, path, "rita")
    assert "Written by rita" in tab.page.locator("#proposal-done").inner_text()
    assert "rita" in tab.page.locator(".proposal-audit").inner_text()
    # The read that argued for it is spent: no second, shorter step is offered.
    assert "since its refire: was last shortened here" in tab.page.locator("#way-proposals").inner_text()
    tab.shot("81-way-proposal-applied")
    refire_apply.stale_apply_answers_409(earlier, path, after, "82-way-proposal-stale.png")
