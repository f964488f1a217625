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


TRICKY = [
    "plain",
    "yes",
    "no",
    "on",
    "True",
    "true",
    "null",
    "~",
    "123",
    "0o17",
    "1e3",
    ".inf",
    "2026-09-11",
    "2026-09-11 10:00:00",
    "12:30:45",
    "<<",
    "=",
    "- leading dash",
    "# not a comment",
    "key: value",
    "a #b",
    "'quoted'",
    '"double"',
    "trailing space ",
    " leading space",
    "line\nbreak",
    "---",
    "a\n---\nb",
    "tab\there",
    "carriage\rreturn",
    "nul\x00byte",
    "bell\x07",
    "nel\x85",
    "ls\u2028ps\u2029",
    "bom\ufeff",
    "émoji 🚀 and ünïcode",
    "@at",
    "`backtick",
    "!tag",
    "&anchor",
    "*alias",
    "%percent",
    "{flow: map}",
    "[flow, seq]",
    "x" * 1200,
    "",
]


def test_what_a_render_reads_back_as_is_what_parsing_its_bytes_gives():
    """`render_front`'s (front matter, body) is what `parse_knowledge` reads from its bytes, for text
    of every shape YAML treats specially: the knowledge import takes the one for the other."""
    for text in TRICKY:
        data = {
            "schema": "knowledge/v1",
            "id": "ww-0123456789abcdef",
            "kind": "knowledge",
            "class": "lesson",
            "title": text,
            "description": f"{text} in window 1",
            "status": "candidate",
            "epistemics": "observed",
            "date": "2026-09-11",
            "tags": ["derived", text],
            "provenance": {"origin": "extracted", "derived_from": [text, "claude-session:s-1"]},
        }
        for body in (f"# {text}\n\n{text}", text, f"---\n{text}\n---", "\r\nbody\r\n"):
            raw, front = knowledge_format.render_front(data, body)
            assert raw == knowledge_format.render_knowledge(data, body)
            if front is None:
                continue
            held = knowledge_format.checked(dict(front[0]), front[1], stem="ww-0123456789abcdef")
            assert held == knowledge_format.parse_knowledge(raw, stem="ww-0123456789abcdef"), repr(text)
            assert list(held.data) == list(
                knowledge_format.parse_knowledge(raw, stem="ww-0123456789abcdef").data
            )
    raw, front = knowledge_format.render_front({**data, "about": {"nested": {"map": "x"}}}, "body")
    assert front is None  # not text, nor a list or mapping of it: not sure, parsed from the bytes
