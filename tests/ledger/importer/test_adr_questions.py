"""A record's rulings and forks imported into rows that follow its file, and a re-import that changes nothing."""

from __future__ import annotations

import pytest

from ledger.importer import adr_load
from ledger.models import AdrQuestion, AdrRelation
from tests.ledger.conftest import adr_record as get
from tests.ledger.records.samples import Q_NYGARD

pytestmark = pytest.mark.django_db


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "doc" / "adr").mkdir(parents=True)
    (tmp_path / "doc" / "adr" / "0014-contract.md").write_bytes(Q_NYGARD)
    adr_load.import_repo(tmp_path)
    return tmp_path


def snapshot(repo):
    return sorted(
        AdrQuestion.objects.filter(record__repo=str(repo)).values_list(
            "pk", "kind", "key", "state", "chosen", "ruled_by", "recommendation", "first_seen"
        )
    )


def test_it_stores_rulings_and_forks_with_their_states(repo):
    rows = AdrQuestion.objects.filter(record=get(repo, "ADR-0014"))
    assert [(q.kind, q.key, q.state) for q in rows] == [
        ("ruling", "R1", "open"),
        ("ruling", "R2", "ruled"),
        ("fork", "F1", "resolved"),
        ("fork", "F2", "open"),
    ]
    assert rows.get(key="R1").options == [["A", "in the record's own file"], ["B", "in the database only"]]


def test_it_stores_cited_rulings_and_specs_as_typed_relations(repo):
    targets = AdrRelation.objects.filter(source=get(repo, "ADR-0014"), kind="related").values_list(
        "target", flat=True
    )
    assert sorted(targets) == ["rul:035", "spec:106"]


def test_it_changes_nothing_when_an_unchanged_file_is_imported_again(repo):
    before = snapshot(repo)
    result = adr_load.import_repo(repo)
    assert (result.changed, result.added) == (0, 0) and snapshot(repo) == before


def test_it_follows_an_edit_keeping_first_seen_and_dropping_questions_gone_from_the_file(repo):
    r1 = AdrQuestion.objects.get(key="R1")
    path = repo / "doc" / "adr" / "0014-contract.md"
    text = path.read_text().replace(
        "  Recommendation:", '  RULED 2026-11-01 — option A (maria: "ok")\n  Recommendation:'
    )
    path.write_text(text.replace("- F2 Archive the old INDEX.md.\n", ""))
    adr_load.import_repo(repo)
    again = AdrQuestion.objects.get(key="R1")
    assert (again.pk, again.first_seen, again.state, again.ruled_by) == (
        r1.pk,
        r1.first_seen,
        "ruled",
        "maria",
    )
    assert not AdrQuestion.objects.filter(key="F2").exists()
