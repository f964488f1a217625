"""The knowledge review pages: reading is open; writing needs a logged-in reviewer and a CSRF token."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from ledger.models import AdrAction, AdrRecord, KnowledgeRecord, ReviewAction
from ledger.records import parse
from lib.hashing import sha256
from tests.ledger.conftest import adr_record as get
from tests.ledger.views import dom

pytestmark = pytest.mark.django_db

FIRST = "s-20260911000001-aaaa-3f9c2a1b7d0e"


def record() -> KnowledgeRecord:
    return KnowledgeRecord.objects.get(record_id=FIRST)


def test_it_shows_the_queue_and_a_candidate_to_anyone(client, knowledge):
    response = client.get(reverse("ledger:candidate-list"))
    assert response.status_code == 200 and "3 awaiting review" in response.content.decode()
    page = client.get(reverse("ledger:candidate-detail", args=[record().pk])).content.decode()
    assert "Provenance" in page and "Log in" in page and 'id="promote-form"' not in page


def test_it_refuses_a_write_without_login(client, knowledge):
    url = reverse("ledger:candidate-promote", args=[record().pk])
    response = client.post(url, {"evidence": "e", "klass": "fact"})
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert record().status == "candidate" and not ReviewAction.objects.exists()


def test_it_refuses_a_write_from_an_account_without_the_reviewer_role(client, knowledge, viewer):
    client.force_login(viewer)
    response = client.post(reverse("ledger:candidate-reject", args=[record().pk]), {"reason": "no"})
    assert response.status_code == 403 and record().status == "candidate"


def test_it_refuses_a_post_without_csrf(knowledge, reviewer):
    client = Client(enforce_csrf_checks=True)
    client.force_login(reviewer)
    response = client.post(
        reverse("ledger:candidate-promote", args=[record().pk]), {"evidence": "e", "klass": "fact"}
    )
    assert response.status_code == 403 and record().status == "candidate"


def test_it_promotes_over_htmx_with_the_csrf_header(knowledge, reviewer):
    client = Client(enforce_csrf_checks=True)
    client.force_login(reviewer)
    page = client.get(reverse("ledger:candidate-detail", args=[record().pk]))
    token = page.cookies["csrftoken"].value
    response = client.post(
        reverse("ledger:candidate-promote", args=[record().pk]),
        {"evidence": "Commit 06fa258.", "klass": "constraint", "loaded_sha256": record().sha256},
        headers={"HX-Request": "true", "X-CSRFToken": token},
    )
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body and "Promoted: written to curated/" in body
    assert "queue-changed" in response["HX-Trigger"]
    assert record().status == "verified" and ReviewAction.objects.get().reviewer == reviewer


def test_it_shows_form_errors_instead_of_writing(client, knowledge, reviewer):
    client.force_login(reviewer)
    response = client.post(
        reverse("ledger:candidate-promote", args=[record().pk]),
        {"evidence": "", "klass": "fact"},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200 and "This field is required" in response.content.decode()
    assert record().status == "candidate"


def test_it_answers_409_with_the_current_state_when_someone_decided_first(client, knowledge, reviewer):
    client.force_login(reviewer)
    sha = record().sha256
    client.post(
        reverse("ledger:candidate-reject", args=[record().pk]), {"reason": "first", "loaded_sha256": sha}
    )
    response = client.post(
        reverse("ledger:candidate-promote", args=[record().pk]),
        {"evidence": "second", "klass": "fact", "loaded_sha256": sha},
    )
    assert response.status_code == 409 and "no longer a candidate" in response.content.decode()


def test_it_bulk_rejects_the_selected(client, knowledge, reviewer):
    client.force_login(reviewer)
    ids = list(KnowledgeRecord.objects.values_list("pk", flat=True))
    response = client.post(
        reverse("ledger:candidate-bulk"), {"verb": "reject", "note": "stale", "records": ids[:2]}
    )
    assert response.status_code == 302
    assert KnowledgeRecord.objects.filter(status="superseded").count() == 2


def test_it_lists_every_decision_in_the_audit_trail(client, knowledge, reviewer):
    client.force_login(reviewer)
    client.post(reverse("ledger:candidate-reject", args=[record().pk]), {"reason": "wrong"})
    body = client.get(reverse("ledger:audit-list")).content.decode()
    assert "rita" in body and FIRST[:30] in body


def test_it_writes_a_draft_record_from_promoted_knowledge(client, repos, reviewer, tmp_path):
    api = repos[0]
    knowledge_dir = tmp_path / "k"
    record = KnowledgeRecord.objects.create(
        directory=str(knowledge_dir),
        record_id="ww-1",
        source_class="curated",
        klass="convention",
        status="verified",
        title="Refill rates are given in seconds",
        description="Seen twice in review.",
        body="# Refill rates are given in seconds\n\n# Evidence\n\nThe Lua script test.",
        derived_from=["claude-session:abc"],
        first_seen="2026-11-01T00:00:00Z",
    )
    client.force_login(reviewer)
    directory = get(api, "ADR-0009").directory
    response = client.post(
        reverse("ledger:record-from-knowledge", args=[record.pk]), {"directory": directory}
    )
    assert response.status_code == 302
    new = AdrRecord.objects.get(pk=int(response["Location"].rstrip("/").rsplit("/", 1)[-1]))
    assert (new.canonical_id, new.status, new.format) == ("ADR-0015", "proposed", "nygard")
    assert new.title == "Refill rates are given in seconds" and "knowledge:ww-1" in new.body
    reread = parse.parse_adr(Path(new.path).read_bytes(), rel_path=new.rel_path)
    assert (reread.id, reread.status) == ("ADR-0015", "proposed")
    assert sha256(Path(new.path).read_bytes()) == new.sha256
    assert AdrAction.objects.get(verb="create").reviewer_name == "rita"


def nav_count(html) -> str:
    badge = dom.parse(html).by_id("knowledge-count")
    assert badge is not None, "the nav has no knowledge count"
    return badge.text


def test_it_shows_the_pending_count_in_the_nav_as_a_badge_that_refetches_on_queue_changed(client, knowledge):
    page = dom.parse(client.get(reverse("ledger:candidate-list")).content)
    badge = page.by_id("knowledge-count")
    assert badge.text == "3" and badge.find(cls="count-badge").attrs["title"] == "candidates awaiting review"
    assert badge.attrs["hx-get"] == reverse("ledger:knowledge-count")
    assert badge.attrs["hx-trigger"] == "queue-changed from:body"


def test_it_answers_the_count_alone_with_one_fewer_after_a_promotion(client, knowledge, reviewer):
    client.force_login(reviewer)
    response = client.post(
        reverse("ledger:candidate-promote", args=[record().pk]),
        {"evidence": "Commit 06fa258.", "klass": "fact", "loaded_sha256": record().sha256},
        headers={"HX-Request": "true"},
    )
    assert "queue-changed" in response["HX-Trigger"]
    fragment = client.get(reverse("ledger:knowledge-count"), headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in fragment and "<nav" not in fragment
    assert nav_count(fragment) == "2"


def test_it_keeps_an_empty_count_in_the_nav_once_the_queue_is_empty(client, knowledge, reviewer):
    client.force_login(reviewer)
    for pk in KnowledgeRecord.objects.values_list("pk", flat=True):
        client.post(reverse("ledger:candidate-reject", args=[pk]), {"reason": "stale"})
    page = dom.parse(client.get(reverse("ledger:candidate-list")).content)
    assert page.by_id("knowledge-count").text == "" and page.find(cls="count-badge") is None


SECOND = "s-20260911000001-aaaa-000000000002"


def status_badge(page: dom.Element) -> str:
    """The card's status chip: the third badge, after the class and the epistemics."""
    return page.by_id("candidate-card").find_all("span", cls="badge")[2].text


def queue_statuses(client, status: str) -> dict[str, str]:
    """The queue under one status filter: each row's title and what its Status column says."""
    page = dom.parse(client.get(reverse("ledger:candidate-list"), {"status": status}).content)
    rows = page.by_id("candidate-rows").find_all("tr")[1:]
    return {row.find("a").text: row.find_all("td")[-3].text for row in rows}


def test_it_labels_a_plain_rejection_rejected_everywhere_it_shows(client, knowledge, reviewer):
    client.force_login(reviewer)
    response = client.post(
        reverse("ledger:candidate-reject", args=[record().pk]),
        {"reason": "Not what the code does.", "loaded_sha256": record().sha256},
        headers={"HX-Request": "true"},
    )
    card = dom.parse(response.content).by_id("candidate-card")
    assert card.find(role="status").text == (
        "Rejected: the candidate stays under candidates/ as rejected, with your reason."
    )
    assert "superseded" not in card.find(role="status").text
    assert status_badge(dom.parse(response.content)) == "rejected"
    assert queue_statuses(client, "rejected") == {record().title: "rejected"}
    assert queue_statuses(client, "superseded") == {}
    counts = dom.parse(client.get(reverse("ledger:candidate-list")).content).find("p", cls="counts").text
    assert "1 rejected" in counts and "superseded" not in counts


def test_it_labels_a_rejection_that_names_its_successor_superseded_by_it(client, knowledge, reviewer):
    client.force_login(reviewer)
    response = client.post(
        reverse("ledger:candidate-reject", args=[record().pk]),
        {"reason": "Said better there.", "superseded_by": SECOND, "loaded_sha256": record().sha256},
        headers={"HX-Request": "true"},
    )
    page = dom.parse(response.content)
    assert page.find(role="status").text == f"Rejected: superseded by {SECOND}, with your reason."
    assert status_badge(page) == "superseded"
    assert f"by {SECOND}" in page.by_id("candidate-card").text
    assert queue_statuses(client, "superseded") == {record().title: f"superseded by {SECOND}"}
    assert queue_statuses(client, "rejected") == {}


def test_it_shows_a_candidates_provenance_as_fields(client, knowledge):
    page = dom.parse(client.get(reverse("ledger:candidate-detail", args=[record().pk])).content)
    provenance = page.find("section", cls="provenance")
    listing = provenance.find("dl")
    assert [dt.text for dt in listing.find_all("dt")] == ["origin", "derived from"]
    assert [dd.text for dd in listing.find_all("dd")] == ["extracted", "session:s-20260911000001-aaaa"]
    assert "{" not in provenance.text


def rewrite(path: Path, old: str, new: str) -> str:
    """Change a file on disk as another program would, with no import after it; its new sha256."""
    path.write_text(path.read_text().replace(old, new))
    return sha256(path.read_bytes())


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain-form"])
def test_it_answers_a_file_changed_on_disk_with_409_the_text_it_has_now_and_the_evidence_kept(
    client, knowledge, reviewer, htmx
):
    client.force_login(reviewer)
    loaded = record()
    path = Path(loaded.path)
    now = rewrite(path, "Recorded as a decision in episode s-1.", "Decided again in s-2, with the numbers.")
    response = client.post(
        reverse("ledger:candidate-promote", args=[loaded.pk]),
        {"evidence": "Commit 06fa258.", "klass": "fact", "loaded_sha256": loaded.sha256},
        headers={"HX-Request": "true"} if htmx else {},
    )
    body = response.content.decode()
    assert response.status_code == 409 and ("<html" in body) is not htmx
    page = dom.parse(body)
    card = page.by_id("candidate-card")
    assert "changed since this page was loaded" in card.find("p", role="alert").text
    # The file as it is now, read at once rather than at the next pass, shown open.
    assert "Decided again in s-2, with the numbers." in card.find("p", cls="lede").text
    assert "Decided again in s-2" in card.find("details", cls="preview").text
    assert "open" in card.find("details", cls="preview").attrs
    assert record().sha256 == now and record().description == "Decided again in s-2, with the numbers."
    # Nothing written; the form keeps the evidence typed, loaded against the file as it is now.
    assert sha256(path.read_bytes()) == now and not ReviewAction.objects.exists()
    form = page.by_id("promote-form")
    assert form.find("textarea", name="evidence").text == "Commit 06fa258."
    assert form.find("input", name="loaded_sha256").attrs["value"] == now
    again = client.post(
        reverse("ledger:candidate-promote", args=[loaded.pk]),
        {"evidence": "Commit 06fa258.", "klass": "fact", "loaded_sha256": now},
    )
    assert again.status_code == 302 and record().status == "verified"


def test_it_answers_an_edit_against_a_changed_file_with_the_wording_typed_and_the_files_title(
    client, knowledge, reviewer
):
    client.force_login(reviewer)
    loaded = record()
    rewrite(Path(loaded.path), "Importer offsets are committed with the rows", "Offsets commit with rows")
    response = client.post(
        reverse("ledger:candidate-edit", args=[loaded.pk]),
        {"title": "My title", "description": "My words.", "loaded_sha256": loaded.sha256},
        headers={"HX-Request": "true"},
    )
    page = dom.parse(response.content.decode())
    assert response.status_code == 409 and page.find("h1").text == "Offsets commit with rows"
    assert page.by_id("edit-form").find("input", name="title").attrs["value"] == "My title"


def test_it_names_the_duplicate_a_merge_found_decided_on_the_page_of_the_record_kept(
    client, knowledge, reviewer
):
    client.force_login(reviewer)
    keep = record()
    other = KnowledgeRecord.objects.get(record_id="s-20260911000001-aaaa-000000000003")
    rewrite(Path(other.path), "status: candidate", "status: verified")
    response = client.post(
        reverse("ledger:candidate-merge", args=[keep.pk]),
        {"keep": keep.pk, "duplicates": [other.pk], "evidence": "Same decision."},
        headers={"HX-Request": "true"},
    )
    alert = dom.parse(response.content.decode()).find("p", role="alert").text
    assert response.status_code == 409 and alert.startswith(f"{other.record_id}: this record is no longer")
    assert KnowledgeRecord.objects.get(pk=other.pk).status == "verified"  # as its file says, at once
