"""A decision on a file that changed on disk since the page loaded, in a real browser: the 409 is
drawn where the form was, with the file as it says now (re-read at once, not at the next pass) and
what the person typed still in the form; deciding again goes through. With JavaScript off the same,
as a whole page."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from ledger.models import AdrAction, AdrRecord, KnowledgeRecord, ReviewAction
from tests.browser.conftest import Page, sign_in

pytestmark = [pytest.mark.django_db(transaction=True)]

CHANGED = "the file changed since this page was loaded; here is what it says now"
# Chromium reports every 4xx answer in the console; the 409 is this test's point, nothing else may be.
REFUSED = "the server responded with a status of 409 (Conflict)"
EVIDENCE = "Confirmed by the load test on 2026-11-06."


@pytest.fixture
def reviewer(api_server):
    """The sample's api-server repository (knowledge candidates, ADR-0014's open rulings) imported,
    and a reviewer's account."""
    user = get_user_model().objects.create_user("rita", password="correct horse battery")
    user.user_permissions.add(Permission.objects.get(codename="review_knowledge"))
    return user


def logged_in(tab: Page) -> Page:
    return sign_in(tab, "rita", "correct horse battery")


@pytest.fixture
def no_js_tab(browser, live_server, sample_home):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=False)
    page = Page(context.new_page(), live_server.url)
    yield page
    page.close()


def candidate() -> KnowledgeRecord:
    return (
        KnowledgeRecord.objects.filter(status="candidate", origin="majordomus").order_by("record_id").first()
    )


def rewrite(path: Path, old: str, new: str) -> None:
    """Another program changes the file; no import runs after it."""
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def promoting_a_changed_file(tab: Page) -> KnowledgeRecord:
    """A candidate's page open, evidence typed, and then its file reworded on disk."""
    record = candidate()
    tab.go(f"/ledger/knowledge/{record.pk}/")
    tab.page.fill("#promote-form textarea[name=evidence]", EVIDENCE)
    rewrite(Path(record.path), record.description, "Reworded on disk by majordomus.")
    return record


def refused_once(tab: Page) -> None:
    """The one console line the 409 leaves (Chromium logs each 4xx); taken off the tab's errors."""
    assert any(REFUSED in error for error in tab.errors), tab.errors
    tab.errors[:] = [error for error in tab.errors if REFUSED not in error]


def test_a_promotion_against_a_changed_file_shows_the_conflict_and_the_file_as_it_is_now(
    reviewer, tab, expect
):
    record = promoting_a_changed_file(logged_in(tab))
    tab.page.evaluate("window.__sameDocument = true")  # a reload would drop it: the answer was swapped in
    tab.page.click("#promote-form button[type=submit]")
    card = tab.page.locator("#candidate-card")
    expect(card.get_by_role("alert")).to_have_text(CHANGED)
    expect(card.get_by_role("alert")).to_be_in_viewport()
    expect(card.locator(".lede")).to_have_text("Reworded on disk by majordomus.")
    expect(card.locator("#promote-form textarea[name=evidence]")).to_have_value(EVIDENCE)
    assert tab.page.evaluate("window.__sameDocument") is True
    assert (
        KnowledgeRecord.objects.get(pk=record.pk).status == "candidate" and not ReviewAction.objects.exists()
    )
    tab.shot("conflict-01-promote")
    tab.page.emulate_media(color_scheme="dark")
    tab.shot("conflict-01-promote-dark")
    refused_once(tab)
    # Decided again, on the text now shown: it goes through.
    tab.page.click("#promote-form button[type=submit]")
    expect(card.locator(".notice--ok")).to_contain_text("Promoted: written to curated/")
    promoted = KnowledgeRecord.objects.get(pk=record.pk)
    assert promoted.status == "verified" and promoted.description == "Reworded on disk by majordomus."


def test_a_ruling_against_a_changed_file_shows_the_conflict_and_the_file_as_it_is_now(reviewer, tab, expect):
    tab = logged_in(tab)
    tab.page.set_viewport_size({"width": 390, "height": 844})  # a phone: the form is screens below the top
    record = AdrRecord.objects.get(canonical_id="ADR-0014", present=True)
    tab.go(f"/ledger/decisions/{record.pk}/")
    item = tab.page.locator("#q-R1")
    item.locator("summary").click()
    item.locator("input[name=option][value=A]").check()
    item.locator("textarea[name=reason]").fill("13 months covers the yearly audit")
    rewrite(
        Path(record.path),
        "ADR-0010 left the audit table without a retention period",
        "ADR-0010 left the audit table without a retention period; legal asked for one in November",
    )
    tab.page.click("#q-R1 button[type=submit]")
    card = tab.page.locator("#record-card")
    expect(card.get_by_role("alert")).to_have_text(CHANGED)
    expect(card.get_by_role("alert")).to_be_in_viewport()  # scrolled to, not left above the form
    expect(card).to_contain_text("legal asked for one in November")
    # The form is open again with the option and the reason given.
    expect(item.locator("input[name=option][value=A]")).to_be_checked()
    expect(item.locator("textarea[name=reason]")).to_have_value("13 months covers the yearly audit")
    assert not AdrAction.objects.exists()
    tab.shot("conflict-02-ruling")
    refused_once(tab)
    item.locator("button[type=submit]").click()
    expect(card.locator(".notice--ok")).to_have_text("Written: R1 ruled option A.")
    text = Path(record.path).read_text()
    assert "legal asked for one in November" in text and 'option A (rita: "13 months' in text


def test_without_javascript_the_conflict_is_the_whole_page_with_the_file_as_it_is_now(
    reviewer, no_js_tab, expect
):
    tab = logged_in(no_js_tab)
    record = promoting_a_changed_file(tab)
    with tab.page.expect_navigation() as answer:
        tab.page.click("#promote-form button[type=submit]")
    assert answer.value.status == 409
    expect(tab.page.get_by_role("alert")).to_have_text(CHANGED)
    expect(tab.page.locator("#candidate-card .lede")).to_have_text("Reworded on disk by majordomus.")
    expect(tab.page.locator("#promote-form textarea[name=evidence]")).to_have_value(EVIDENCE)
    tab.shot("conflict-03-no-js")
    refused_once(tab)
    tab.page.click("#promote-form button[type=submit]")
    tab.page.wait_for_url(f"**/ledger/knowledge/{record.pk}/")
    assert KnowledgeRecord.objects.get(pk=record.pk).status == "verified"
    assert tab.errors == []
