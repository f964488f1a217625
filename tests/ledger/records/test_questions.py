"""Rulings and forks read from records in every format: open, ruled and mixed questions, cited refs."""

from __future__ import annotations

from ledger.records import parse, questions
from tests.ledger.records.samples import (
    Q_AGENTWAYS_V1,
    Q_LOG4BRAINS,
    Q_MADR_OPEN,
    Q_MADR_RULED,
    Q_MAJORDOMUS,
    Q_NYGARD,
)


def read(raw: bytes, name: str) -> questions.Questions:
    doc = parse.parse_adr(raw, rel_path=name)
    return questions.read(raw, fmt=doc.format, date=doc.date, deciders=doc.deciders)


def test_it_reads_open_and_ruled_questions_and_forks_of_an_adr_tools_record():
    found = read(Q_NYGARD, "doc/adr/0014-contract.md")
    first, second = found.rulings
    assert (first.key, first.question, first.state) == ("R1", "Where does a ruling live?", "open")
    assert first.options == [("A", "in the record's own file"), ("B", "in the database only")]
    assert first.recommendation == "A, the file is the record." and questions.recommended_label(first) == "A"
    assert (second.key, second.state, second.chosen, second.ruled_at, second.ruled_by, second.quote) == (
        "R2",
        "ruled",
        "B",
        "2026-10-11",
        "aaron",
        "b",
    )
    assert [(f.key, f.state, f.resolved_by) for f in found.forks] == [
        ("F1", "resolved", "R2"),
        ("F2", "open", ""),
    ]
    assert found.forks[1].description == "Archive the old INDEX.md."


def test_it_reads_cited_rulings_and_specs_as_typed_refs():
    assert read(Q_NYGARD, "doc/adr/0014-contract.md").cited == ["rul:035", "spec:106"]


def test_it_maps_madr_considered_options_and_outcome_onto_one_ruling():
    (open_,) = read(Q_MADR_OPEN, "docs/decisions/0003-queue.md").rulings
    assert (open_.key, open_.state) == ("R1", "open")
    assert [label for label, _ in open_.options] == ["Redis streams", "PostgreSQL SKIP LOCKED"]
    (ruled,) = read(Q_MADR_RULED, "docs/decisions/0003-queue.md").rulings
    assert (ruled.chosen, ruled.quote, ruled.ruled_at, ruled.ruled_by) == (
        "PostgreSQL SKIP LOCKED",
        "one database",
        "2026-09-20",
        "aaron",
    )


def test_it_reads_a_log4brains_outcome_signed_by_its_deciders():
    (ruling,) = read(Q_LOG4BRAINS, "docs/adr/20210101-ssg.md").rulings
    assert (ruling.chosen, ruling.ruled_by) == ("Log4brains", "maria, tom")


def test_it_reads_heading_items_in_a_majordomus_record():
    found = read(Q_MAJORDOMUS, ".ai/repo/adrs/0020-rulings.md")
    (ruling,) = found.rulings
    assert (ruling.question, ruling.state, questions.recommended_label(ruling)) == (
        "Does a ruling need a reason?",
        "open",
        "A",
    )
    assert [(f.key, f.description, f.state) for f in found.forks] == [
        ("F1", "Whether a fork can be reopened", "open")
    ]


def test_it_reads_numbered_items_written_options_and_resolved_forks_of_an_agent_ways_record():
    found = read(Q_AGENTWAYS_V1, "docs/architecture/core/ADR-305-rulings.md")
    first, second = found.rulings
    assert (first.question, first.chosen, first.ruled_by, first.quote) == (
        "Where are rulings kept?",
        "in the file",
        "ops",
        "the file travels",
    )
    assert (second.state, second.recommendation) == ("open", "the operator")
    (fork,) = found.forks
    assert (fork.state, fork.resolved_by, fork.resolved_at, fork.who, fork.description) == (
        "resolved",
        "R1",
        "2026-10-12",
        "ops",
        "two signatures?",
    )


def test_it_finds_nothing_in_a_record_without_questions_and_leaves_the_sections_whole():
    raw = b"# 2. Use Go\n\nDate: 2020-01-01\n\n## Status\n\nAccepted\n\n## Decision\n\n- R1 is a road.\n"
    found = read(raw, "doc/adr/0002-go.md")
    assert found.rulings == [] and found.forks == []
    assert parse.parse_adr(raw, rel_path="doc/adr/0002-go.md").sections[-1] == ("Decision", "- R1 is a road.")


def test_it_keeps_questions_inside_fenced_code_out():
    raw = (
        b"# 3. X\n\n## Status\n\nProposed\n\n## Rulings\n\n```\n- R1 not a question\n```\n\n- R2 a question\n"
    )
    assert [r.key for r in read(raw, "doc/adr/0003-x.md").rulings] == ["R2"]


def test_it_reads_a_madr_choice_whose_name_has_commas_and_whose_reason_wraps():
    raw = Q_MADR_OPEN.replace(
        b"* Redis streams", b"* [Redis](https://redis.io) streams, with groups"
    ).replace(b"To be decided.", b'Chosen option: "Redis streams, with groups", because\n\n* it is there')
    (ruling,) = read(raw, "docs/decisions/0003-queue.md").rulings
    assert (ruling.state, ruling.chosen, ruling.options[0][0]) == (
        "ruled",
        "Redis streams, with groups",
        "Redis streams, with groups",
    )
