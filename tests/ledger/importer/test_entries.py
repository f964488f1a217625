"""ADR-112 ledger entries parse as their format says, or are quarantined with a reason."""

from __future__ import annotations

from ledger.importer import entries as entry_files

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
        "4d5611e5-241a-462a-8d15-5122611a9569",
        7,
        70,
        "consolidation",
    )
    assert entry.timestamp == "2026-09-12T10:31:00Z" and entry.ts.isoformat() == "2026-09-12T10:31:00+00:00"
    assert entry.body.startswith("Moved the checkpoint") and entry.quarantine is None


def test_it_quarantines_malformed_front_matter_with_a_reason():
    assert entry_files.parse_entry(b"---\nsession: [unclosed\n---\nbody\n").quarantine[0] == "yaml_invalid"
    assert entry_files.parse_entry(b"no front matter\n").quarantine[0] == "frontmatter_missing"
    assert (
        entry_files.parse_entry(b"---\nsession: !!python/object:os.system x\n---\n").quarantine[0]
        == "yaml_invalid"
    )
    assert entry_files.parse_entry(b"---\nepoch: 1\n---\nno session\n").quarantine[0] == "yaml_invalid"
    assert entry_files.parse_entry(b"---\n" + b"k: v\n" * 20000 + b"---\n").quarantine[0] == "yaml_too_large"


def test_it_takes_the_epoch_from_the_file_name_when_front_matter_lacks_it():
    assert entry_files.name_epoch("2026-04-05T1445Z_e001.md") == 1
    assert entry_files.name_epoch("notes.md") is None
