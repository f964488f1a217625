"""The ledger's roots and problem documents, as the import status page asks for them."""

from __future__ import annotations

import pytest
from django.urls import reverse

from ledger.importer import knowledge as knowledge_files
from ledger.importer import passlog
from ledger.importer import run as ledger_run
from ledger.models import KnowledgeRecord, ReviewAction
from ledger.queries import import_sources
from tests.ledger.conftest import record_file
from tests.ledger.memory_tree import SLUG, memory_folder

pytestmark = pytest.mark.django_db


def test_without_a_recorded_pass_a_root_reads_as_last_read_when_its_newest_row_was(knowledge):
    passlog.path().unlink(missing_ok=True)
    (root,) = import_sources.import_sources(1, 50).roots
    newest = max(KnowledgeRecord.objects.values_list("updated_at", flat=True))
    assert (root.kind, root.root, root.records, root.changed) == (passlog.KNOWLEDGE, str(knowledge), 3, None)
    assert root.read_at == newest


def test_a_record_that_contradicts_a_persons_decision_is_listed_with_the_conflict(knowledge):
    record = KnowledgeRecord.objects.get(record_id="s-20260911000001-aaaa-3f9c2a1b7d0e")
    KnowledgeRecord.objects.filter(pk=record.pk).update(status="verified")
    ReviewAction.objects.create(record=record, verb=ReviewAction.Verb.PROMOTE, reviewer_name="ann")
    record_file(knowledge, record.record_id, title="Changed after it was promoted")
    knowledge_files.import_directory(knowledge)
    found = import_sources.import_sources(1, 50)
    (item,) = found.items
    assert found.item_count == 1 and item.path == f"candidates/{record.record_id}.md"
    assert "a person decided 'verified'" in item.reason and item.url == f"/ledger/knowledge/{record.pk}/"


def test_it_pages_the_problem_documents_and_clamps_a_page_past_the_last(tmp_path):
    directory = tmp_path / "k"
    (directory / "candidates").mkdir(parents=True)
    for n in range(5):
        (directory / "candidates" / f"broken-{n}.md").write_text("no front matter\n")
    knowledge_files.import_directory(directory)
    first = import_sources.import_sources(1, 2)
    last = import_sources.import_sources(99, 2)
    assert first.item_count == 5 and len(first.items) == 2 and len(last.items) == 1
    assert {i.path for i in first.items}.isdisjoint({i.path for i in last.items})
    assert all(i.reason.startswith("frontmatter_missing") for i in first.items + last.items)


def test_each_claude_directorys_memory_is_a_root_with_its_broken_files_listed(home, settings):
    folder = memory_folder(home)
    (folder / "MEMORY.md").write_text("- [testing](testing.md)\n")
    (folder / "broken.md").write_text("---\nname: [unclosed\n---\nbody\n")
    ledger_run.import_documents(settings.WAYSWEB_LOCATIONS)
    found = import_sources.import_sources(1, 50)
    [root] = [r for r in found.roots if r.kind == passlog.MEMORY]
    assert (root.label, root.records, root.gone, root.quarantined) == ("memory file", 2, 0, 1)
    assert root.root == str(home.root / ".claude") and root.read_at is not None
    [item] = [i for i in found.items if i.kind == passlog.MEMORY]
    assert item.path == f"{SLUG}/memory/broken.md v1" and item.reason.startswith("yaml_invalid")
    assert item.url == reverse("ledger:memory-project", args=[SLUG])
