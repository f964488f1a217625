"""The steps the refire walkthroughs share (test_proposals.py, test_did_the_way_help.py): keep a
second tab with the way page as drawn now, apply the `refire:` proposal as the signed-in reviewer
(one changed line, one audit row), then press the earlier tab's apply: 409, and its page says why."""

from __future__ import annotations

from pathlib import Path

from introspect.models import ProposalApplied
from introspect.rules.proposals_diff import changed_lines
from tests.browser.conftest import ARTIFACTS

BEFORE_LINE, AFTER_LINE = "refire: 0.25", "refire: normal"  # the sample's design way, 1 out-of-band read


def earlier_tab(page):
    """A second tab holding the way page as drawn now, before an apply changes the file."""
    earlier = page.context.new_page()
    earlier.goto(page.url)
    earlier.wait_for_selector("#way-proposals form.proposal-apply")
    return earlier


def apply_refire(page, path: Path, reviewer: str) -> str:
    """Press the proposal's apply; the way file has one changed line and the audit row names the
    reviewer. The file as written."""
    before = path.read_text()
    page.locator("#way-proposals form.proposal-apply button").click()
    page.wait_for_selector("#proposal-done")
    after = path.read_text()
    assert changed_lines(before, after) == 1
    assert after == before.replace(f"{BEFORE_LINE}\n", f"{AFTER_LINE}\n", 1)
    row = ProposalApplied.objects.get()
    assert (row.kind, row.reviewer_name, row.line_before, row.line_after) == (
        "refire",
        reviewer,
        BEFORE_LINE,
        AFTER_LINE,
    )
    return after


def stale_apply_answers_409(earlier, path: Path, after: str, screenshot: str) -> None:
    """The earlier tab's apply was drawn before the file changed: 409, its page says why, nothing
    more is written. The tab is closed after its screenshot."""
    with earlier.expect_response(lambda response: "/apply/refire/" in response.url) as answered:
        earlier.locator("#way-proposals form.proposal-apply button").click()
    assert answered.value.status == 409
    earlier.wait_for_selector("#proposal-error")
    assert "changed since this page was drawn" in earlier.locator("#proposal-error").inner_text()
    assert path.read_text() == after and ProposalApplied.objects.count() == 1
    earlier.screenshot(path=str(ARTIFACTS / screenshot))
    earlier.close()
