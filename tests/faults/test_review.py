"""Fault cases 36–38 (importer-reliability.md §14): people's decisions against files that move.

A stale review POST is answered 409 with the current state and writes nothing; a re-import never
redoes or undoes what a person decided; decision records are identified by id, not path. The
stored "row set" here is the documents': one row per file, by path and content sha256.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from django.urls import reverse

from ledger.importer import adr_load
from ledger.importer import knowledge as knowledge_files
from ledger.models import AdrRecord, KnowledgeRecord, ReviewAction
from ledger.records import knowledge as knowledge_format
from tests.ledger.conftest import record_file

pytestmark = pytest.mark.django_db

FIRST = "s-20260911000001-aaaa-3f9c2a1b7d0e"


def files(directory: Path) -> dict[str, str]:
    """Every file under a knowledge or ADR directory by path, with its sha256."""
    return {
        p.relative_to(directory).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(directory.rglob("*.md"))
    }


def knowledge_rows(directory: Path) -> dict[str, str]:
    return {
        f"{r.source_class}/{r.record_id}.md": r.sha256
        for r in KnowledgeRecord.objects.filter(directory=str(directory), present=True)
    }


def cli_promote(directory: Path, record_id: str) -> None:
    """What majordomus' `knowledge promote` does: the file moves to curated/ and says verified."""
    source = directory / "candidates" / f"{record_id}.md"
    parsed = knowledge_format.parse_knowledge(source.read_bytes(), stem=record_id)
    target = directory / "curated" / f"{record_id}.md"
    target.parent.mkdir(exist_ok=True)
    target.write_bytes(knowledge_format.render_knowledge({**parsed.data, "status": "verified"}, parsed.body))
    source.unlink()


@pytest.mark.parametrize("imported_since", [True, False], ids=["re-imported", "not-yet-re-imported"])
def test_case_36_promoted_by_the_cli_while_the_page_was_open_answers_409(
    client, knowledge, reviewer, imported_since
):
    client.force_login(reviewer)
    record = KnowledgeRecord.objects.get(record_id=FIRST)
    page = client.get(reverse("ledger:candidate-detail", args=[record.pk]))
    assert page.status_code == 200 and record.sha256 in page.content.decode()
    cli_promote(knowledge, FIRST)
    if imported_since:
        knowledge_files.import_directory(knowledge)
    before_files = files(knowledge)
    response = client.post(
        reverse("ledger:candidate-promote", args=[record.pk]),
        {"evidence": "Commit 06fa258.", "klass": "fact", "loaded_sha256": record.sha256},
        headers={"HX-Request": "true"},
    )
    body = response.content.decode()
    assert response.status_code == 409
    assert "no longer a candidate" in body or "moved or deleted outside waysweb" in body
    assert files(knowledge) == before_files and not ReviewAction.objects.exists()  # no write
    # The current state, read at once (not at the next pass): the record as the CLI left it.
    assert KnowledgeRecord.objects.get(record_id=FIRST).status == "verified"
    assert knowledge_rows(knowledge) == files(knowledge)  # one row per file, its current content
    assert 'id="promote-form"' not in body and "badge--keyed" in body
    knowledge_files.import_directory(knowledge)
    assert knowledge_rows(knowledge) == files(knowledge)


@pytest.mark.parametrize("verb", ["promote", "reject"])
def test_case_37_reimport_after_a_decision_keeps_it_and_flags_a_reverted_file(
    client, knowledge, reviewer, verb
):
    client.force_login(reviewer)
    record = KnowledgeRecord.objects.get(record_id=FIRST)
    data = (
        {"evidence": "Commit 06fa258.", "klass": "fact"}
        if verb == "promote"
        else {"reason": "not a decision"}
    )
    response = client.post(
        reverse(f"ledger:candidate-{verb}", args=[record.pk]), data | {"loaded_sha256": record.sha256}
    )
    assert response.status_code in (200, 302)
    decided = KnowledgeRecord.objects.get(record_id=FIRST).status
    assert decided == ("verified" if verb == "promote" else "superseded")
    knowledge_files.import_directory(knowledge)  # re-import: the person's act stands
    assert KnowledgeRecord.objects.get(record_id=FIRST).status == decided
    assert knowledge_rows(knowledge) == files(knowledge)
    # `git checkout` brings the candidate back; the curated copy (if any) is gone again.
    (knowledge / "curated" / f"{FIRST}.md").unlink(missing_ok=True)
    record_file(knowledge, FIRST)
    reverted = files(knowledge)
    knowledge_files.import_directory(knowledge)
    after = KnowledgeRecord.objects.get(record_id=FIRST)
    assert after.status == decided and f"a person decided {decided!r}" in after.conflict
    assert ReviewAction.objects.count() == 1  # nothing redone
    assert files(knowledge) == reverted  # nothing undone: the importer never writes a file
    page = client.get(reverse("ledger:candidate-detail", args=[after.pk])).content.decode()
    assert "notice--conflict" in page and "nothing was redone or undone" in page


ADR = "# {number}. {title}\n\nDate: 2026-11-0{day}\n\n## Status\n\nAccepted\n\n## Context\n\n{title}.\n"


def test_case_38_two_files_with_one_id_are_both_kept_and_a_rename_is_a_move(tmp_path):
    repo = tmp_path / "repo"
    adr_dir = repo / "doc" / "adr"
    adr_dir.mkdir(parents=True)
    written = {
        "0005-log-to-stdout.md": ADR.format(number=5, title="Log structured JSON to stdout", day=1),
        "0005-hash-api-keys.md": ADR.format(number=5, title="Store API keys as hashes", day=2),
        "0007-rate-limits.md": ADR.format(number=7, title="Rate limits per key", day=3),
    }
    for name, text in written.items():
        (adr_dir / name).write_text(text)
    adr_load.import_repo(repo)
    rows = {Path(r.rel_path).name: r for r in AdrRecord.objects.filter(present=True)}
    assert {name: r.sha256 for name, r in rows.items()} == {
        name: hashlib.sha256(text.encode()).hexdigest() for name, text in written.items()
    }
    assert {name for name, r in rows.items() if r.duplicate} == {
        "0005-log-to-stdout.md",
        "0005-hash-api-keys.md",
    }
    assert {r.canonical_id for r in rows.values()} == {"ADR-0005", "ADR-0007"}
    moved = rows["0007-rate-limits.md"]
    (adr_dir / "0007-rate-limits.md").rename(adr_dir / "0007-per-key-rate-limits.md")
    adr_load.import_repo(repo)
    after = AdrRecord.objects.get(canonical_id="ADR-0007", present=True)
    assert after.pk == moved.pk and after.rel_path.endswith("0007-per-key-rate-limits.md")
    assert AdrRecord.objects.filter(canonical_id="ADR-0007").count() == 1  # a move, not a new record
    assert AdrRecord.objects.filter(canonical_id="ADR-0005", present=True, duplicate=True).count() == 2
