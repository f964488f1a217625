"""Ledger entries and knowledge records parse as their formats say, or are quarantined with a reason."""

from __future__ import annotations

from ledger.importer import entries as entry_files
from ledger.importer import knowledge as knowledge_files
from ledger.importer import mj

ENTRY = b"""---
session: 4d5611e5-241a-462a-8d15-5122611a9569
transcript: ~/.claude/projects/-home-dev-proj/4d5611e5-241a-462a-8d15-5122611a9569.jsonl
epoch: 7
context_pct: 70
timestamp: 2026-09-12T10:31:00Z
phase: consolidation
---

Moved the checkpoint into the same transaction as the rows.
Decision: commit offsets with the rows.
"""


def test_it_reads_an_adr112_entry():
    entry = entry_files.parse_entry(ENTRY)
    assert (entry.session, entry.epoch, entry.context_pct, entry.phase) == (
        "4d5611e5-241a-462a-8d15-5122611a9569", 7, 70, "consolidation")
    assert entry.timestamp == "2026-09-12T10:31:00Z" and entry.ts.isoformat() == "2026-09-12T10:31:00+00:00"
    assert entry.body.startswith("Moved the checkpoint") and entry.quarantine is None


def test_it_quarantines_malformed_front_matter_with_a_reason():
    assert entry_files.parse_entry(b"---\nsession: [unclosed\n---\nbody\n").quarantine[0] == "yaml_invalid"
    assert entry_files.parse_entry(b"no front matter\n").quarantine[0] == "frontmatter_missing"
    assert entry_files.parse_entry(b"---\nsession: !!python/object:os.system x\n---\n").quarantine[0] == "yaml_invalid"
    assert entry_files.parse_entry(b"---\nepoch: 1\n---\nno session\n").quarantine[0] == "yaml_invalid"
    assert entry_files.parse_entry(b"---\n" + b"k: v\n" * 20000 + b"---\n").quarantine[0] == "yaml_too_large"


def test_it_takes_the_epoch_from_the_file_name_when_front_matter_lacks_it():
    assert entry_files.name_epoch("2026-04-05T1445Z_e001.md") == 1
    assert entry_files.name_epoch("notes.md") is None


def test_it_checks_knowledge_records_against_the_closed_schema():
    good = knowledge_files.parse_knowledge(knowledge_files.render_knowledge(
        {"schema": "knowledge/v1", "id": "s-1-abc", "kind": "knowledge", "class": "fact", "title": "X is Y",
         "description": "d", "status": "candidate", "epistemics": "observed", "date": "2026-09-11"}, "# X is Y"),
        stem="s-1-abc")
    assert good.problems == () and good.get("class") == "fact"
    bad = knowledge_files.parse_knowledge(b"---\nschema: knowledge/v1\nid: other\nclass: opinion\nstatus: maybe\n"
                                    b"title: 'transcript: user said'\nextra: 1\n---\n", stem="s-1-abc")
    assert any("unknown keys: extra" in p for p in bad.problems)
    assert any("is not the file name" in p for p in bad.problems)
    assert any("class 'opinion'" in p for p in bad.problems)
    assert any("reads like a transcript" in p for p in bad.problems)


def test_it_renders_keys_in_the_schema_order():
    text = knowledge_files.render_knowledge({"status": "candidate", "id": "a", "schema": "knowledge/v1", "title": "T"},
                                      "# T").decode()
    assert text.index("schema:") < text.index("id:") < text.index("title:") < text.index("status:")


def test_it_keeps_the_first_event_key_of_a_majordomus_line():
    line = (b'{"ts":"2026-09-11T07:27:24Z","event":"provider.event.failed","head":"06fa258","branch":"master",'
            b'"by":"majordomus/0.6.0","provider":"claude","event":"end","reason":"knowledge: not writable"}')
    parsed = mj.parse_mj_line(line)
    assert parsed["event"] == "provider.event.failed" and parsed["provider_event"] == "end"
    assert parsed["reason"] == "knowledge: not writable"
