"""Issue 28's walkthrough in one run, as a way's author would go: the effectiveness page → a way →
five of its sampled fires labelled with the keyboard → the way's precision with its interval on the
effectiveness page → its `refire:` proposal applied as a reviewer → the way file has one changed
line and the audit row exists → an apply from a page drawn before that answers 409 and says why.
(test_labels.py and test_proposals.py check each half more closely.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from introspect.models import LabelAction, RelevanceLabel, Way
from tests.browser import refire_apply
from tests.browser.conftest import sign_in_reviewer

pytestmark = [pytest.mark.django_db(transaction=True)]

DESIGN = "softwaredev/architecture/design"


def test_from_the_arms_to_labels_to_an_applied_proposal(tab, expect):
    way = Way.objects.get(way_id=DESIGN, present=True)
    path = Path(way.root) / way.rel_path
    sign_in_reviewer(tab, "/ways/effectiveness/")
    page = tab.page

    # The effectiveness page → the way → its effectiveness → labelling a sample of its fires.
    page.locator("table.effect").get_by_role("link", name=DESIGN, exact=True).click()
    page.wait_for_url(f"**/ways/{DESIGN}/")
    page.get_by_role("link", name=re.compile("^Effectiveness")).click()
    page.wait_for_url(re.compile(r"/ways/effectiveness/\?way="))
    page.locator("#relevance").get_by_role("link", name="Label a sample of these fires").click()
    page.wait_for_url(re.compile(r"/ways/labels/\?way="))
    progress = page.locator("#label-progress")
    total = int(re.match(r"0 of (\d+)", progress.inner_text()).group(1))
    for n, key in enumerate("12122", start=1):
        page.keyboard.press(key)
        expect(progress).to_contain_text(f"{n} of {total} labelled")
    assert RelevanceLabel.objects.filter(way=DESIGN, labeller_name="rita").count() == 5
    assert LabelAction.objects.filter(user_name="rita", verb="label").count() == 5

    # Precision from those labels, with its Wilson interval: 2 relevant of 5 decided.
    page.locator(".crumbs").get_by_role("link", name="effectiveness").click()
    page.wait_for_url(re.compile(r"/ways/effectiveness/\?way="))
    expect(page.locator("#relevance [data-precision]")).to_contain_text("2 of 5 relevant · 40 % (12 %–77 %)")

    # The way's page offers the shorter refire: its out-of-band read argues for; a second tab keeps
    # the page as drawn now.
    page.goto(f"{tab.base}/ways/{DESIGN}/#way-proposals")
    section = page.locator("#way-proposals")
    assert "-refire: 0.25\n+refire: normal" in section.locator("pre.proposal-diff").first.inner_text()
    earlier = refire_apply.earlier_tab(page)
    after = refire_apply.apply_refire(page, path, "rita")
    refire_apply.stale_apply_answers_409(earlier, path, after, "83-did-the-way-help-stale.png")
