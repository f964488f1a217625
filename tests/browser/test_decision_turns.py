"""What agent-ways' scans saw, under each turn of a sample session, walked in a real browser from the
keyboard: a turn's scan opened with Enter shows its candidates with τ_s drawn, its outcomes (a keyword
veto against its floor, a near miss with its shortfall), the judge's fallback and its pulls with their
class; the disagreement between the decision log and the events is listed above the conversation.
Screenshots at 390 and 1280 px in both themes go to test-artifacts/."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.django_db(transaction=True)]

S08 = "624f720e-9e95-4496-9c1a-bbb81681fbd4"  # web-ui: a keyword veto, a judge fallback, three pulls
S09 = "622b4a23-4e7c-46f6-8232-6eb71954f8d1"  # infra: a near miss on the first prompt


def open_with_keyboard(page, section) -> None:
    """Tab reaches the scan's summary as it reaches every control; Enter opens it."""
    summary = section.locator("summary").first
    summary.focus()
    assert page.evaluate("() => document.activeElement.tagName") == "SUMMARY"
    page.keyboard.press("Enter")


def test_each_turn_shows_what_its_scan_saw_and_its_pulls(tab, expect):
    page = tab.page
    tab.go(f"/sessions/{S08}/")

    # Every turn of a session with both logs says which one saw it; the one disagreement is in view.
    assert page.locator("h3.cturn .turn-source").first.inner_text() == "decision log and events"
    disagreement = page.locator(".decision-disagreements")
    expect(disagreement).to_contain_text("1 disagreement")
    expect(disagreement).to_contain_text("fires no more than 3 s apart are one fire turn")

    # The keyword-vetoed turn: closed it is one line; opened from the keyboard, all it saw.
    gated = page.locator("section.decision-turn", has_text="keyword_gated")
    expect(gated.locator(".decision-scan").first).to_be_hidden()
    open_with_keyboard(page, gated)
    expect(gated.locator("details").first).to_have_attribute("open", "")
    expect(gated.locator("table.decision-candidates tbody tr:not(.decision-tau)")).to_have_count(5)
    expect(gated.locator("tr.decision-tau")).to_contain_text("τ_s")
    expect(gated.locator(".decision-outcome")).to_contain_text(
        "keyword matched “squash”, probability 0.0759 below the floor 0.15"
    )
    pulls = gated.locator(".decision-pulls li")
    expect(pulls).to_have_count(2)
    expect(pulls.first.locator(".decision-join")).to_have_text("recall_miss")
    expect(pulls.nth(1)).to_contain_text("refused: not found")

    # The judge fell back on the deadline; the pull after the compaction named no scan.
    fallback = page.locator("section.decision-turn", has_text="fell back")
    open_with_keyboard(page, fallback)
    expect(fallback.locator(".decision-judge")).to_contain_text("fell back: deadline")
    expect(page.locator(".decision-join--no_scan_id")).to_have_count(1)

    for width, name in ((1280, "desktop"), (390, "phone")):
        page.set_viewport_size({"width": width, "height": 900})
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            gated.scroll_into_view_if_needed()
            tab.shot(f"decision-turn-{name}-{scheme}")
    page.emulate_media(color_scheme="light")

    # A near miss says by how much it missed τ_s.
    page.set_viewport_size({"width": 1280, "height": 900})
    tab.go(f"/sessions/{S09}/")
    near = page.locator("section.decision-turn", has_text="near_miss").first
    open_with_keyboard(page, near)
    expect(near.locator(".decision-outcome--near")).to_contain_text("probability 0.4712")
    expect(near.locator(".decision-outcome--near")).to_contain_text("short of τ_s 0.5 by 0.0288")
    expect(near.locator("tr.decision-tau")).to_contain_text("τ_s 0.5")
