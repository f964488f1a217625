"""knowledge/v1 records are checked against the closed schema and written in its key order."""

from __future__ import annotations

from ledger.importer import knowledge as knowledge_files
from ledger.models import KnowledgeRecord


def test_it_checks_knowledge_records_against_the_closed_schema():
    good = knowledge_files.parse_knowledge(
        knowledge_files.render_knowledge(
            {
                "schema": "knowledge/v1",
                "id": "s-1-abc",
                "kind": "knowledge",
                "class": "fact",
                "title": "X is Y",
                "description": "d",
                "status": "candidate",
                "epistemics": "observed",
                "date": "2026-09-11",
            },
            "# X is Y",
        ),
        stem="s-1-abc",
    )
    assert good.problems == () and good.get("class") == "fact"
    bad = knowledge_files.parse_knowledge(
        b"---\nschema: knowledge/v1\nid: other\nclass: opinion\nstatus: maybe\n"
        b"title: 'transcript: user said'\nextra: 1\n---\n",
        stem="s-1-abc",
    )
    assert any("unknown keys: extra" in p for p in bad.problems)
    assert any("is not the file name" in p for p in bad.problems)
    assert any("class 'opinion'" in p for p in bad.problems)
    assert any("reads like a transcript" in p for p in bad.problems)


def test_it_renders_keys_in_the_schema_order():
    text = knowledge_files.render_knowledge(
        {"status": "candidate", "id": "a", "schema": "knowledge/v1", "title": "T"}, "# T"
    ).decode()
    assert text.index("schema:") < text.index("id:") < text.index("title:") < text.index("status:")


def test_it_names_list_values_the_index_cannot_hold_instead_of_dropping_them(tmp_path, db):
    directory = tmp_path / "knowledge"
    (directory / "candidates").mkdir(parents=True)
    (directory / "candidates" / "odd-values.md").write_bytes(
        b"---\nschema: knowledge/v1\nid: odd-values\nkind: knowledge\nclass: fact\ntitle: T\n"
        b"description: d\nstatus: candidate\nepistemics: observed\ndate: 2026-09-11\n"
        b"tags: [ok, {nested: map}, [a, list]]\nrelations: [plain-text]\n"
        b"provenance: {derived_from: ['session:s-1', 7]}\n---\n# T\n"
    )
    knowledge_files.import_knowledge(directory)
    record = KnowledgeRecord.objects.get(record_id="odd-values")
    assert record.tags == ["ok"] and record.relations == [] and record.derived_from == ["session:s-1"]
    assert record.problem == (
        "tags: 2 values left out; provenance.derived_from: 1 value left out; relations: 1 value left out"
    )


def test_a_lone_tag_is_one_tag_not_its_letters(tmp_path, db):
    directory = tmp_path / "knowledge"
    (directory / "candidates").mkdir(parents=True)
    (directory / "candidates" / "one-tag.md").write_bytes(
        b"---\nschema: knowledge/v1\nid: one-tag\nkind: knowledge\nclass: fact\ntitle: T\n"
        b"description: d\nstatus: candidate\nepistemics: observed\ndate: 2026-09-11\ntags: importer\n---\n"
    )
    knowledge_files.import_knowledge(directory)
    assert KnowledgeRecord.objects.get(record_id="one-tag").tags == ["importer"]
