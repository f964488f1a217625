"""New records in each format, which read back as written (records/new.py)."""

from __future__ import annotations

import pytest

from ledger.records import edit, new, parse
from tests.ledger.records.samples import changed

# ----------------------------------------------------------------------------------------- new records


@pytest.mark.parametrize(
    ("fmt", "width", "name", "status"),
    [
        ("majordomus", 4, "0012-commit-offsets-with-the-rows-always.md", "proposed"),
        ("nygard", 4, "0012-commit-offsets-with-the-rows-always.md", "proposed"),
        ("madr", 4, "0012-commit-offsets-with-the-rows-always.md", "proposed"),
        ("madr2", 4, "0012-commit-offsets-with-the-rows-always.md", "proposed"),
        ("agentways", 3, "ADR-012-commit-offsets-with-the-rows-always.md", "proposed"),
        ("agentways-v1", 3, "ADR-012-commit-offsets-with-the-rows-always.md", "proposed"),
        ("log4brains", 4, "20260911-commit-offsets-with-the-rows-always.md", "draft"),
    ],
)
def test_it_writes_new_records_that_read_back(fmt, width, name, status):
    title = "Commit offsets with the rows: always"
    file_name, content = new.new_record(
        fmt,
        number=12,
        title=title,
        context="Crashes duplicated lines.",
        decision="One transaction.",
        consequences="Slower commits.",
        provenance_refs=["session:s-1", "file:ledger/importer/run.py"],
        today="2026-09-11",
        width=width,
    )
    assert file_name == name
    doc = parse.parse_adr(content, rel_path=f"adrs/{file_name}")
    assert doc.format == fmt and doc.quarantine is None
    assert doc.id == (name[:-3] if fmt == "log4brains" else "ADR-0012")
    assert (doc.title, doc.status, doc.date) == (title, status, "2026-09-11")
    assert any("One transaction." in text for _, text in doc.sections)
    if fmt == "majordomus":
        assert doc.provenance == {
            "origin": "extracted",
            "derived_from": ["session:s-1", "file:ledger/importer/run.py"],
        }
        assert doc.problems == []


def test_new_records_can_then_be_superseded():
    _, content = new.new_record(
        "nygard",
        number=3,
        title="T",
        context="c",
        decision="d",
        consequences="q",
        provenance_refs=[],
        today="2026-09-11",
    )
    doc = parse.parse_adr(content, rel_path="0003-t.md")
    after = edit.add_superseded_by(content, doc, "ADR-0004", "[4. U](0004-u.md)")
    assert changed(content, after) == (["Proposed"], ["Superseded by [4. U](0004-u.md)"])


def test_it_numbers_above_the_high_water_mark():
    assert new.next_number([]) == 1
    assert new.next_number([1, 2, 5]) == 6
    assert new.next_number([5, 7, 5, 7, 3]) == 8


@pytest.mark.parametrize("fmt", ["nygard", "majordomus", "madr", "agentways", "log4brains"])
def test_it_cuts_a_long_title_at_a_word_boundary_in_the_file_name(fmt):
    title = "Refill rates are given in seconds and every bucket keeps a separate clock"
    name, _ = new.new_record(
        fmt,
        number=14,
        title=title,
        context="c",
        decision="d",
        consequences="e",
        provenance_refs=[],
        today="2026-09-11",
    )
    slug = name.removesuffix(".md").split("-", 2 if fmt == "agentways" else 1)[-1]
    assert slug == "refill-rates-are-given-in-seconds-and-every-bucket-keeps-a"
    assert len(slug) <= new.SLUG_MAX


def test_it_cuts_only_a_single_word_longer_than_a_file_name_allows():
    name, _ = new.new_record(
        "nygard",
        number=1,
        title="x" * 80 + " tail",
        context="c",
        decision="d",
        consequences="e",
        provenance_refs=[],
        today="2026-09-11",
    )
    assert name == "0001-" + "x" * 60 + ".md"
