"""Promote, reject, edit, merge: the person's act, written to the file first and audited with it."""

from __future__ import annotations

import pytest

from ledger import files
from ledger.importer import knowledge as knowledge_files
from ledger.models import KnowledgeRecord, ReviewAction
from ledger.records import knowledge as knowledge_format
from ledger.services import acts
from ledger.services import knowledge as services
from lib.hashing import sha256
from tests.ledger.conftest import record_file

pytestmark = pytest.mark.django_db

FIRST = "s-20260911000001-aaaa-3f9c2a1b7d0e"


def get(record_id: str = FIRST) -> KnowledgeRecord:
    return KnowledgeRecord.objects.get(record_id=record_id)


def test_it_promotes_to_curated_with_the_evidence_and_records_who(knowledge, reviewer):
    record = services.candidate_promote(
        record=get(),
        reviewer=acts.Reviewer.of(reviewer),
        evidence="Commit 06fa258 and the crash test.",
        new_class="constraint",
        loaded_sha256=get().sha256,
    )
    curated = knowledge / "curated" / f"{FIRST}.md"
    assert curated.exists() and not (knowledge / "candidates" / f"{FIRST}.md").exists()
    parsed = knowledge_format.parse_knowledge(curated.read_bytes(), stem=FIRST)
    assert (parsed.get("status"), parsed.get("class")) == ("verified", "constraint")
    assert (
        "# Evidence\n\nCommit 06fa258 and the crash test." in parsed.body
        and "Promoted by rita via waysweb" in parsed.body
    )
    assert (record.status, record.source_class, record.klass) == ("verified", "curated", "constraint")
    action = ReviewAction.objects.get()
    assert (action.verb, action.reviewer_name, action.class_before, action.class_after) == (
        "promote",
        "rita",
        "convention",
        "constraint",
    )
    assert action.file_sha_after == sha256(curated.read_bytes())


def test_it_refuses_to_promote_without_evidence_or_with_a_transcript(knowledge, reviewer):
    for evidence in ("", "   ", "assistant: I think so"):
        with pytest.raises(acts.Refused):
            services.candidate_promote(record=get(), reviewer=acts.Reviewer.of(reviewer), evidence=evidence)
    assert not ReviewAction.objects.exists() and get().status == "candidate"


def test_it_rejects_with_a_reason_and_keeps_the_file_under_candidates(knowledge, reviewer):
    with pytest.raises(acts.Refused):
        services.candidate_reject(record=get(), reviewer=acts.Reviewer.of(reviewer), reason=" ")
    with pytest.raises(acts.Refused):
        services.candidate_reject(
            record=get(),
            reviewer=acts.Reviewer.of(reviewer),
            reason="dup",
            superseded_by="no-such-record",
        )
    services.candidate_reject(
        record=get(),
        reviewer=acts.Reviewer.of(reviewer),
        reason="Duplicate of 0002.",
        superseded_by="s-20260911000001-aaaa-000000000002",
    )
    parsed = knowledge_format.parse_knowledge(
        (knowledge / "candidates" / f"{FIRST}.md").read_bytes(), stem=FIRST
    )
    assert (
        parsed.get("status") == "superseded"
        and parsed.get("superseded_by") == "s-20260911000001-aaaa-000000000002"
    )
    assert "# Rejected\n\nDuplicate of 0002." in parsed.body
    assert get().status == "superseded" and ReviewAction.objects.get().related.endswith("0002")


def test_it_answers_a_stale_form_or_a_decided_record_with_a_conflict(knowledge, reviewer):
    path = knowledge / "candidates" / f"{FIRST}.md"
    loaded = get().sha256
    path.write_bytes(path.read_bytes() + b"\nedited by hand\n")
    with pytest.raises(acts.Conflict, match="changed since this page was loaded"):
        services.candidate_promote(
            record=get(), reviewer=acts.Reviewer.of(reviewer), evidence="e", loaded_sha256=loaded
        )
    knowledge_files.import_directory(knowledge)
    services.candidate_reject(record=get(), reviewer=acts.Reviewer.of(reviewer), reason="no")
    with pytest.raises(acts.Conflict, match="no longer a candidate"):
        services.candidate_edit(record=get(), reviewer=acts.Reviewer.of(reviewer), title="T", description="D")


def test_it_treats_a_repeated_promote_as_done(knowledge, reviewer):
    who = acts.Reviewer.of(reviewer)
    services.candidate_promote(record=get(), reviewer=who, evidence="e1")
    services.candidate_promote(record=get(), reviewer=who, evidence="e1")
    assert ReviewAction.objects.count() == 1


def test_it_edits_the_wording_before_a_decision(knowledge, reviewer):
    services.candidate_edit(
        record=get(),
        reviewer=acts.Reviewer.of(reviewer),
        title="Offsets commit in the same transaction as rows",
        description="Why: no duplicates.",
    )
    parsed = knowledge_format.parse_knowledge(
        (knowledge / "candidates" / f"{FIRST}.md").read_bytes(), stem=FIRST
    )
    assert parsed.get("title") == "Offsets commit in the same transaction as rows"
    assert parsed.body.startswith("# Offsets commit in the same transaction as rows\n\nWhy: no duplicates.")
    assert ReviewAction.objects.get().verb == "edit"


def test_it_merges_duplicates_into_one_promoted_record(knowledge, reviewer):
    keep = get()
    dupe = get("s-20260911000001-aaaa-000000000003")
    batch = services.candidates_merge(
        keep=keep, duplicates=[dupe], reviewer=acts.Reviewer.of(reviewer), evidence="Same decision twice."
    )
    assert get().status == "verified" and get(dupe.record_id).status == "superseded"
    assert get(dupe.record_id).superseded_by == FIRST
    assert set(ReviewAction.objects.values_list("batch", flat=True)) == {batch}
    assert ReviewAction.objects.count() == 2


def test_it_applies_a_bulk_action_as_one_act_per_record(knowledge, reviewer):
    records = list(KnowledgeRecord.objects.all())
    batch, problems = services.candidates_bulk(
        records=records,
        verb="reject",
        reviewer=acts.Reviewer.of(reviewer),
        note="Out of date after the rewrite.",
    )
    assert problems == []
    assert ReviewAction.objects.filter(batch=batch, verb="reject").count() == 3
    assert set(KnowledgeRecord.objects.values_list("status", flat=True)) == {"superseded"}


def test_it_agrees_with_the_files_after_a_crash_between_file_and_database(knowledge, reviewer, monkeypatch):
    def crash(*args, **kwargs):
        raise RuntimeError("killed after the file was written")

    monkeypatch.setattr(services, "record_action", crash)
    with pytest.raises(RuntimeError):
        services.candidate_promote(record=get(), reviewer=acts.Reviewer.of(reviewer), evidence="e")
    assert get().status == "candidate"  # the database never saw the promotion…
    monkeypatch.undo()
    knowledge_files.import_directory(knowledge)  # …the next import reads the file, which says it happened
    record = get()
    assert (record.status, record.source_class) == ("verified", "curated")
    recovered = ReviewAction.objects.get()
    assert (recovered.verb, recovered.reviewer_name) == ("recover", "rita")
    knowledge_files.import_directory(knowledge)
    assert KnowledgeRecord.objects.filter(record_id=FIRST).count() == 1 and ReviewAction.objects.count() == 1


def test_it_finishes_a_promotion_interrupted_before_the_candidate_was_removed(
    knowledge, reviewer, monkeypatch
):
    monkeypatch.setattr(files, "remove", lambda root, path: (_ for _ in ()).throw(OSError("killed")))
    with pytest.raises(OSError):
        services.candidate_promote(record=get(), reviewer=acts.Reviewer.of(reviewer), evidence="e")
    monkeypatch.undo()
    knowledge_files.import_directory(knowledge)
    record = get()
    assert record.status == "verified" and "interrupted promotion" in record.conflict
    assert KnowledgeRecord.objects.filter(record_id=FIRST).count() == 1


def test_it_never_lets_a_reverted_file_undo_a_decision(knowledge, reviewer):
    services.candidate_reject(record=get(), reviewer=acts.Reviewer.of(reviewer), reason="wrong")
    record_file(knowledge, FIRST)  # `git checkout` brought the candidate back
    knowledge_files.import_directory(knowledge)
    record = get()
    assert record.status == "superseded" and "a person decided 'superseded'" in record.conflict
