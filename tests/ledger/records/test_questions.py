"""Rulings and forks read from records in every format: open, ruled and mixed questions, cited refs."""

from __future__ import annotations

from ledger.records import parse, questions

NYGARD_MIXED = """# 14. Contract amendments for v1 records

Date: 2026-10-01

## Status

Proposed

## Context

The contract changes.

## Rulings

Four points need a ruling:

- **R1** Where does a ruling live?
  - A) in the record's own file
  - B) in the database only
  Recommendation: A, the file is the record.
- **R2:** Who may rule?
  RULED 2026-10-11 — option B (aaron: "b")

## Forks found while amending the contract

- F1 Keep v0 records as they are. Resolved by R2.
- F2 Archive the old INDEX.md.

Rulings cited: RUL-035. Specs cited: SPEC-106.
""".encode()

MADR_OPEN = b"""---
status: proposed
date: 2026-09-20
decision-makers: [aaron]
---

# Choose a queue

## Context and Problem Statement

Jobs pile up.

## Considered Options

* Redis streams
* PostgreSQL SKIP LOCKED

## Decision Outcome

To be decided.
"""

MADR_RULED = MADR_OPEN.replace(
    b"To be decided.", b'Chosen option: "PostgreSQL SKIP LOCKED", because one database.'
)

LOG4BRAINS = b"""# Pick a static site generator

- Status: accepted
- Date: 2021-01-01
- Deciders: maria, tom
- Tags: docs

## Considered Options

* Log4brains
* Docusaurus

## Decision Outcome

Chosen option: "Log4brains", because it renders Markdown.
"""

MAJORDOMUS_OPEN = b"""---
schema: adr/v1
id: adr-0020
kind: adr
title: Rulings are a person's act
status: proposed
date: 2026-10-02
---

# Context

Agents propose.

# Open questions

## R1 Does a ruling need a reason?

A. yes, always
B. only for option C

Recommendation: option A

## F1 Whether a fork can be reopened
"""

AGENTWAYS_V1 = """---
contract: adr/v1
kind: decision
verb: change
status: proposed
---

# ADR-305: Rulings travel with the record

## Rulings

1. R1 — Where are rulings kept? RULED 2026-10-11 — option "in the file" (ops: "the file travels")
2. R2 — Who signs?
   Recommendation: the operator

## Forks

- F1 two signatures?
  RESOLVED 2026-10-12 — by R1 (ops: "one is enough")
""".encode()


def read(raw: bytes, name: str) -> questions.Questions:
    doc = parse.parse_adr(raw, rel_path=name)
    return questions.read(raw, fmt=doc.format, date=doc.date, deciders=doc.deciders)


def test_it_reads_open_and_ruled_questions_and_forks_of_an_adr_tools_record():
    found = read(NYGARD_MIXED, "doc/adr/0014-contract.md")
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
    assert read(NYGARD_MIXED, "doc/adr/0014-contract.md").cited == ["rul:035", "spec:106"]


def test_it_maps_madr_considered_options_and_outcome_onto_one_ruling():
    (open_,) = read(MADR_OPEN, "docs/decisions/0003-queue.md").rulings
    assert (open_.key, open_.state) == ("R1", "open")
    assert [label for label, _ in open_.options] == ["Redis streams", "PostgreSQL SKIP LOCKED"]
    (ruled,) = read(MADR_RULED, "docs/decisions/0003-queue.md").rulings
    assert (ruled.chosen, ruled.quote, ruled.ruled_at, ruled.ruled_by) == (
        "PostgreSQL SKIP LOCKED",
        "one database",
        "2026-09-20",
        "aaron",
    )


def test_it_reads_a_log4brains_outcome_signed_by_its_deciders():
    (ruling,) = read(LOG4BRAINS, "docs/adr/20210101-ssg.md").rulings
    assert (ruling.chosen, ruling.ruled_by) == ("Log4brains", "maria, tom")


def test_it_reads_heading_items_in_a_majordomus_record():
    found = read(MAJORDOMUS_OPEN, ".ai/repo/adrs/0020-rulings.md")
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
    found = read(AGENTWAYS_V1, "docs/architecture/core/ADR-305-rulings.md")
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
