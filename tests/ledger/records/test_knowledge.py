"""knowledge/v1 records are checked against the closed schema and written in its key order."""

from __future__ import annotations

from ledger.models import KnowledgeRecord
from ledger.records import knowledge as knowledge_format


def test_it_checks_knowledge_records_against_the_closed_schema():
    good = knowledge_format.parse_knowledge(
        knowledge_format.render_knowledge(
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
    bad = knowledge_format.parse_knowledge(
        b"---\nschema: knowledge/v1\nid: other\nclass: opinion\nstatus: maybe\n"
        b"title: 'transcript: user said'\nextra: 1\n---\n",
        stem="s-1-abc",
    )
    assert any("unknown keys: extra" in p for p in bad.problems)
    assert any("is not the file name" in p for p in bad.problems)
    assert any("class 'opinion'" in p for p in bad.problems)
    assert any("reads like a transcript" in p for p in bad.problems)


def test_it_renders_keys_in_the_schema_order():
    text = knowledge_format.render_knowledge(
        {"status": "candidate", "id": "a", "schema": "knowledge/v1", "title": "T"}, "# T"
    ).decode()
    assert text.index("schema:") < text.index("id:") < text.index("title:") < text.index("status:")


def test_it_accepts_the_statuses_and_classes_the_index_stores():
    assert tuple(KnowledgeRecord.Status.values) == knowledge_format.STATUSES
    assert KnowledgeRecord.CLASSES == knowledge_format.CLASSES
