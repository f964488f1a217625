"""ADRs in every format parse to one shape; identity is the id, never the path; writers touch one field."""

from __future__ import annotations

import difflib

import pytest

from ledger.importer import adrs

NYGARD_OLD = b"""# 2. Implement as shell scripts

Date: 2016-02-12

## Status


Superceded by [3. Use Go for the command line tool](0003-use-go-for-the-command-line-tool.md)

## Context

ADRs are plain text files, so a tool that creates and links them can be a handful of scripts.

## Decision

ADR tools will be implemented as a collection of Bash scripts.

## Consequences

Portable across Unix-like systems; Windows needs Cygwin or WSL.
"""

NYGARD_NEW = b"""# 3. Use Go for the command line tool

Date: 2016-03-01

## Status

Accepted

Supercedes [2. Implement as shell scripts](0002-implement-as-shell-scripts.md)

Amended by [5. Ship a Windows build](0005-ship-a-windows-build.md)

## Context

The scripts break on Windows and on BSD sed.

```markdown
## Status

Rejected
```

## Decision

Rewrite the tool in Go.

## Consequences

One static binary per platform.
"""

MADR4 = b"""---
status: "superseded by ADR-0012"
date: 2024-05-02
decision-makers: [Alice Example, Bob Example]
consulted: Platform team
informed: Everyone
---

# Use PostgreSQL for the ledger store

## Context and Problem Statement

The ledger outgrew one SQLite file shared by three importers.

## Decision Drivers

* concurrent writers
* point-in-time recovery

## Considered Options

* PostgreSQL
* SQLite in WAL mode

## Decision Outcome

Chosen option: "PostgreSQL", because it is the only option that handles concurrent writers.

### Consequences

* Good, because backups are a solved problem.
* Bad, because local development needs a server.

## More Information

See the capacity notes.
"""

MADR4_ACCEPTED = b"""---
status: accepted
date: 2024-01-10
---

# Keep importer offsets in the same transaction as the rows

## Context and Problem Statement

A crash between the row insert and the offset update duplicated lines.

## Decision Outcome

Chosen option: "one transaction".
"""

MADR2 = b"""# Use Markdown Architectural Decision Records

* Status: accepted <!-- optional -->
* Deciders: Oliver Kopp, Olaf Zimmermann
* Date: 2017-12-13

Technical Story: https://example.org/issues/1

## Context and Problem Statement

We want to record architectural decisions made in this project.

## Considered Options

* MADR 2.1.2
* Michael Nygard's template

## Decision Outcome

Chosen option: "MADR 2.1.2", because it is lean and structured.

## Links

* Refined by [ADR-0005](0005-example.md)
"""

LOG4BRAINS = b"""# Use Log4brains to manage the ADRs

- Status: superseded by [20210101-use-adr-manager](20210101-use-adr-manager.md)
- Date: 2020-09-24
- Tags: dev-tools, doc

## Context and Problem Statement

We want to record architectural decisions made in this project and publish them.

## Decision Outcome

Chosen option: "Log4brains", because it renders a static site from Markdown.
"""

LOG4BRAINS_NEW = b"""# Use adr-manager

- Status: accepted
- Date: 2021-01-01
- Tags: dev-tools

## Context and Problem Statement

Log4brains' editor never shipped.

## Decision Outcome

Chosen option: "adr-manager".
"""

MAJORDOMUS = b"""---
schema: adr/v1
id: adr-0091
kind: adr
title: Knowledge is derived at the episode boundary and a person promotes it
status: accepted
date: 2026-09-11
tags: [knowledge, review]
supersedes: [adr-0058]
related:
  - rule:knowledge-is-reviewed
  - file:crates/knowledge/src/derive.rs
  - RUL-035
provenance:
  origin: extracted
  derived_from:
    - session:s-20260911000001-aaaa
---

# Context

Candidates written mid-session were rewritten three times before the episode ended.

# Decision

Derive candidates at the episode boundary only; a person promotes them.

# Consequences

Nothing reaches `verified` without a reviewer.

# Alternatives rejected

Deriving on every turn.
"""

AGENTWAYS_V0 = b"""---
status: Accepted            # Draft | Proposed | Accepted | Superseded | Rejected | Deprecated
date: 2026-08-06
deciders:
  - aaron
  - claude
related:
  - ADR-110
  - 302
  - SPEC-106
supersedes: [ADR-099]
---

# ADR-112: Session ledger entries are written at phase boundaries

## Context

Sessions lost their thread after compaction.

## Decision

Write a ledger entry at each phase boundary.

## Consequences

### Positive

Resumes start from the last entry.

### Negative

One more file per phase.

## Alternatives Considered

- **Write on every turn** \xe2\x80\x94 Rejected because it floods the directory.
"""

AGENTWAYS_V1 = b"""---
contract: adr/v1
kind: decision
verb: change
capability: adr
status: accepted
date: 2026-09-02
basis:
  - operator
  - {operator: aaron, level: explicit, said: "numbers are identity", via: chat}
enacted: 4f2c1aa
amends: [ADR-306#6]
supersedes: [ADR-167#4]
agent: {name: claude, model: opus}
related: [ADR-303]
---

# ADR-304.1: A record's number is its permanent identity

## Context

Records moved between folders and changed slugs.

## Decision

The number never changes; folders follow classification.
"""

AGENTWAYS_PARTIAL = b"""---
status: Accepted
date: 2025-11-01
superseded_by: [ADR-304#4]
---

# ADR-167: ADR folders and numbering

## Context

Four areas.
"""

ARCHIVED = b"""---
contract: adr/v1
kind: decision
status: superseded
superseded_by: [ADR-310]
---

# ADR-201: Records live in one flat folder

> **Archived 2026-07-01** \xe2\x80\x94 folders follow classification. Superseded by ADR-310.

## Context

One folder was enough for forty records.
"""


def changed(before: bytes, after: bytes) -> tuple[list[str], list[str]]:
    """(removed lines, added lines) between two versions of a file."""
    old, new = before.decode().split("\n"), after.decode().split("\n")
    removed, added = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag != "equal":
            removed += old[i1:i2]
            added += new[j1:j2]
    return removed, added


# ----------------------------------------------------------------------------------------- formats


def test_it_reads_an_adr_tools_record_that_was_superceded():
    doc = adrs.parse_adr(NYGARD_OLD, rel_path="doc/adr/0002-implement-as-shell-scripts.md")
    assert (doc.format, doc.id, doc.number) == ("nygard", "ADR-0002", "2")
    assert doc.title == "Implement as shell scripts"
    assert (doc.status, doc.date) == ("superseded", "2016-02-12")
    assert doc.raw_status.startswith("Superceded by [3. Use Go")
    assert doc.superseded_by == ["ADR-0003"] and doc.supersedes == []
    assert [name for name, _ in doc.sections] == ["Status", "Context", "Decision", "Consequences"]
    assert dict(doc.sections)["Decision"] == "ADR tools will be implemented as a collection of Bash scripts."
    assert doc.quarantine is None and doc.problems == []


def test_it_reads_the_superseding_adr_tools_record_and_ignores_headings_in_code():
    doc = adrs.parse_adr(NYGARD_NEW, rel_path="doc/adr/0003-use-go-for-the-command-line-tool.md")
    assert (doc.id, doc.status, doc.raw_status) == ("ADR-0003", "accepted", "Accepted")
    assert doc.supersedes == ["ADR-0002"] and doc.amended_by == ["ADR-0005"]
    assert [name for name, _ in doc.sections] == ["Status", "Context", "Decision", "Consequences"]
    assert "Rejected" in dict(doc.sections)["Context"]


def test_it_reads_madr4_front_matter_and_its_supersession_string():
    doc = adrs.parse_adr(MADR4, rel_path="docs/decisions/0007-use-postgresql-for-the-ledger-store.md")
    assert (doc.format, doc.id, doc.title) == ("madr", "ADR-0007", "Use PostgreSQL for the ledger store")
    assert (doc.status, doc.raw_status, doc.date) == ("superseded", "superseded by ADR-0012", "2024-05-02")
    assert doc.superseded_by == ["ADR-0012"]
    assert doc.deciders == ["Alice Example", "Bob Example"]
    assert [name for name, _ in doc.sections] == [
        "Context and Problem Statement", "Decision Drivers", "Considered Options", "Decision Outcome",
        "More Information"]
    assert "### Consequences" in dict(doc.sections)["Decision Outcome"]


def test_it_reads_the_madr2_bullet_header():
    doc = adrs.parse_adr(MADR2, rel_path="docs/adr/0000-use-markdown-architectural-decision-records.md")
    assert (doc.format, doc.id, doc.number) == ("madr2", "ADR-0000", "0")
    assert (doc.status, doc.raw_status, doc.date) == ("accepted", "accepted", "2017-12-13")
    assert doc.deciders == ["Oliver Kopp", "Olaf Zimmermann"]
    assert doc.header["technical story"] == "https://example.org/issues/1"
    assert doc.title == "Use Markdown Architectural Decision Records" and doc.superseded_by == []


def test_it_reads_log4brains_records_by_slug():
    doc = adrs.parse_adr(LOG4BRAINS, rel_path="docs/adr/20200924-use-log4brains-to-manage-the-adrs.md")
    assert (doc.format, doc.number) == ("log4brains", None)
    assert doc.id == doc.slug == "20200924-use-log4brains-to-manage-the-adrs"
    assert (doc.status, doc.date, doc.tags) == ("superseded", "2020-09-24", ["dev-tools", "doc"])
    assert doc.superseded_by == ["20210101-use-adr-manager"]
    assert doc.title == "Use Log4brains to manage the ADRs"


def test_it_reads_majordomus_adr_v1_with_h1_sections_and_provenance():
    doc = adrs.parse_adr(MAJORDOMUS, rel_path=".ai/repo/adrs/0058-knowledge-is-derived-at-the-boundary.md")
    assert (doc.format, doc.id, doc.number) == ("majordomus", "ADR-0091", "91")
    assert doc.title == "Knowledge is derived at the episode boundary and a person promotes it"
    assert (doc.status, doc.date, doc.tags) == ("accepted", "2026-09-11", ["knowledge", "review"])
    assert [name for name, _ in doc.sections] == [
        "Context", "Decision", "Consequences", "Alternatives rejected"]
    assert doc.supersedes == ["ADR-0058"]
    assert doc.related == ["rule:knowledge-is-reviewed", "file:crates/knowledge/src/derive.rs", "rul:035"]
    assert doc.provenance == {"origin": "extracted", "derived_from": ["session:s-20260911000001-aaaa"]}
    assert "file name number ADR-0058 differs from id ADR-0091" in doc.problems


def test_it_reads_agent_ways_v0():
    doc = adrs.parse_adr(AGENTWAYS_V0, rel_path="docs/architecture/ledger/ADR-112-session-ledger.md")
    assert (doc.format, doc.id, doc.number) == ("agentways", "ADR-0112", "112")
    assert (doc.status, doc.raw_status, doc.date) == ("accepted", "Accepted", "2026-08-06")
    assert doc.title == "Session ledger entries are written at phase boundaries"
    assert doc.deciders == ["aaron", "claude"]
    assert doc.related == ["ADR-0110", "ADR-0302", "spec:106"] and doc.supersedes == ["ADR-0099"]
    assert [name for name, _ in doc.sections] == [
        "Context", "Decision", "Consequences", "Alternatives Considered"]
    assert "### Negative" in dict(doc.sections)["Consequences"]


def test_it_tells_agent_ways_v1_from_majordomus_by_key_not_label():
    doc = adrs.parse_adr(AGENTWAYS_V1, rel_path="docs/architecture/governance/ADR-304.1-numbers.md")
    assert (doc.format, doc.id, doc.number) == ("agentways-v1", "ADR-0304.1", "304.1")
    assert doc.title == "A record's number is its permanent identity" and doc.status == "accepted"
    assert doc.amends == ["ADR-0306#6"] and doc.supersedes == ["ADR-0167#4"] and doc.related == ["ADR-0303"]
    assert doc.provenance["enacted"] == "4f2c1aa"
    assert doc.provenance["agent"] == {"name": "claude", "model": "opus"}
    mislabelled = MAJORDOMUS.replace(b"schema: adr/v1", b"schema: adr/v1\ncontract_note: none")
    assert adrs.parse_adr(mislabelled, rel_path="x/0091-k.md").format == "majordomus"


def test_it_marks_partial_supersession_and_keeps_the_section():
    doc = adrs.parse_adr(AGENTWAYS_PARTIAL, rel_path="docs/architecture/ADR-167-folders.md")
    assert doc.superseded_by == ["ADR-0304#4"] and doc.status == "accepted" and doc.partially_superseded


def test_it_reads_archived_records_and_their_banner():
    doc = adrs.parse_adr(ARCHIVED, rel_path="docs/architecture/archive/layout/ADR-201-flat-folder.md")
    assert (doc.status, doc.raw_status, doc.superseded_by) == ("archived", "superseded", ["ADR-0310"])
    banner_only = ARCHIVED.replace(b"superseded_by: [ADR-310]\n", b"")
    assert adrs.parse_adr(banner_only, rel_path="archive/ADR-201-x.md").superseded_by == ["ADR-0310"]


# ----------------------------------------------------------------------------------------- identity


def test_it_takes_the_h1_number_over_a_different_file_name_number():
    doc = adrs.parse_adr(AGENTWAYS_V0, rel_path="docs/architecture/ADR-110-old-slug.md")
    assert doc.id == "ADR-0112"
    assert "file name number ADR-0110 differs from id ADR-0112" in doc.problems
    nygard = adrs.parse_adr(NYGARD_NEW, rel_path="doc/adr/0007-renamed.md")
    assert nygard.id == "ADR-0003"


def test_it_takes_the_front_matter_id_over_h1_and_file_name():
    raw = b"---\nschema: adr/v1\nid: adr-0009\ntitle: T\nstatus: proposed\n---\n\n# 12. Heading\n"
    doc = adrs.parse_adr(raw, rel_path="adrs/0005-t.md")
    assert doc.id == "ADR-0009"
    v0 = b"---\nid: ADR-0200\nstatus: Draft\nrelated: []\n---\n\n# ADR-112: Title\n"
    assert adrs.parse_adr(v0, rel_path="ADR-110-x.md").id == "ADR-0200"


def test_it_falls_back_to_the_file_name_then_the_slug():
    body = b"---\nstatus: accepted\n---\n\n# Use plain JUnit 5\n"
    assert adrs.parse_adr(body, rel_path="docs/decisions/0042-use-junit.md").id == "ADR-0042"
    assert adrs.parse_adr(body, rel_path="decisions/2024-01-02-use-junit.md").id == "2024-01-02-use-junit"
    assert adrs.parse_adr(body, rel_path="use-junit.md").id == "use-junit"


@pytest.mark.parametrize(("text", "expected"), [
    ("ADR-0086", "ADR-0086"), ("adr-0086", "ADR-0086"), ("0086", "ADR-0086"), ("86", "ADR-0086"),
    ("ADR 86", "ADR-0086"), ("[86](0086-x.md)", "ADR-0086"), ("[3. Use Go](0003-use-go.md)", "ADR-0003"),
    ("ADR-304.1", "ADR-0304.1"), ("ADR-167#4", "ADR-0167#4"), (86, "ADR-0086"), ("ADR-12345", "ADR-12345"),
    ("20200924-use-log4brains", None), ("2020-09-24", None), ("use-log4brains", None), ("", None),
    (None, None), (True, None), ("3D rendering", None),
])
def test_it_normalises_ids(text, expected):
    assert adrs.canonical_id(text) == expected


def test_it_normalises_typed_references():
    assert adrs.normalise_ref("rul:035") == "rul:035"
    assert adrs.normalise_ref("RUL-035") == "rul:035" and adrs.normalise_ref("SPEC-106") == "spec:106"
    assert adrs.normalise_ref("adr:86") == "ADR-0086"
    assert adrs.normalise_ref("file:src/x.rs") == "file:src/x.rs"
    assert adrs.normalise_ref("[Use X](20210101-use-x.md)") == "20210101-use-x"


# ----------------------------------------------------------------------------------------- status


@pytest.mark.parametrize(("raw", "expected"), [
    ("draft", "draft"), ("Draft", "draft"), ("Proposed", "proposed"), ("Pending", "proposed"),
    ("proposed", "proposed"), ("Accepted", "accepted"), ("Approved", "accepted"), ("Rejected", "rejected"),
    ("Deprecated", "deprecated"), ("Superseded", "superseded"),
    ("Superceded by [3. X](0003-x.md)", "superseded"),
    ("superseded by ADR-0123", "superseded"), ("abandoned", "abandoned"), ("archived", "archived"),
    ("Amended by [4. Y](0004-y.md)", "unknown"), ("", "unknown"), ("in review", "unknown"),
    ("[proposed | rejected | accepted]", "unknown"), ("**Accepted**", "accepted"),
])
def test_it_normalises_statuses(raw, expected):
    assert adrs.normalise_status(raw) == expected


def test_it_archives_anything_under_archive_and_keeps_the_in_file_status():
    assert adrs.normalise_status("Accepted", archived_path=True) == "archived"
    doc = adrs.parse_adr(AGENTWAYS_V0, rel_path="docs/architecture/archive/ledger/ADR-112-x.md")
    assert (doc.status, doc.raw_status) == ("archived", "Accepted")


def test_it_accepts_both_spellings_of_superseded():
    for verb in (b"Superceded by", b"Superseded by"):
        doc = adrs.parse_adr(NYGARD_OLD.replace(b"Superceded by", verb), rel_path="0002-x.md")
        assert (doc.status, doc.superseded_by) == ("superseded", ["ADR-0003"])
    for verb in (b"Supercedes", b"Supersedes"):
        doc = adrs.parse_adr(NYGARD_NEW.replace(b"Supercedes", verb), rel_path="0003-x.md")
        assert doc.supersedes == ["ADR-0002"]


def test_it_warns_about_a_superseded_record_without_a_successor():
    doc = adrs.parse_adr(b"# 4. X\n\nDate: 2020-01-01\n\n## Status\n\nSuperseded\n", rel_path="0004-x.md")
    assert doc.status == "superseded" and "superseded by ?" in doc.problems


def test_it_keeps_the_status_of_an_amended_record():
    raw = b"# 4. X\n\n## Status\n\nAmended by [6. Y](0006-y.md)\n\nAccepted\n"
    doc = adrs.parse_adr(raw, rel_path="0004-x.md")
    assert (doc.status, doc.amended_by) == ("accepted", ["ADR-0006"])


# ----------------------------------------------------------------------------------------- hostile input


@pytest.mark.parametrize("raw", [
    b"", b"\x00\xff\xfe garbage", b"---\nstatus: [unclosed\n---\n# 3. T\n", b"---\n- a list\n---\n",
    b"---\nstatus: accepted\n", b"---\nstatus: !!python/object:os.system x\n---\n",
    b"---\n" + b"[" * 5000 + b"\n---\n", b"---\nstatus: {a: 1}\nid: [1, 2]\ndate: 12\n---\n# \n",
    b"---\na: &a [x, x, x, x]\nb: &b [*a, *a, *a, *a]\nstatus: &c [*b, *b, *b, *b]\n---\n# T\n",
    b"## Status\n\n```\n", b"#" * 10000, b"# ADR-99999999: x\n", b"---\nsupersedes: [{a: b}, null, 3]\n---\n",
    b"\xef\xbb\xbf# 5. BOM\n\n## Status\n\nAccepted\n", b"x" * (2 << 20), "not bytes",
])
def test_it_never_raises_on_hostile_input(raw):
    doc = adrs.parse_adr(raw, rel_path="docs/adr/0003-t.md")
    assert isinstance(doc, adrs.AdrDoc) and doc.status in adrs.STATUSES and doc.id


def test_it_quarantines_unparsable_front_matter_but_keeps_the_identity():
    doc = adrs.parse_adr(b"---\nstatus: [unclosed\n---\n\n# ADR-112: T\n", rel_path="ADR-112-t.md")
    assert doc.quarantine[0] == "yaml_invalid" and doc.id == "ADR-0112"
    assert adrs.parse_adr(b"---\n- a\n---\n", rel_path="0001-x.md").quarantine[0] == "yaml_invalid"
    assert adrs.parse_adr(b"\xff", rel_path="0001-x.md").quarantine[0] == "invalid_utf8"
    with pytest.raises(ValueError):
        adrs.set_status(b"---\nstatus: [unclosed\n---\n", doc, "accepted", today="2026-01-01")


# ----------------------------------------------------------------------------------------- writers


def test_it_sets_a_majordomus_status_and_date_and_nothing_else():
    doc = adrs.parse_adr(MAJORDOMUS, rel_path="adrs/0091-k.md")
    after = adrs.set_status(MAJORDOMUS, doc, "rejected", today="2026-10-01")
    assert changed(MAJORDOMUS, after) == (["status: accepted", "date: 2026-09-11"],
                                          ["status: rejected", "date: 2026-10-01"])
    again = adrs.parse_adr(after, rel_path="adrs/0091-k.md")
    assert (again.status, again.date, again.id) == ("rejected", "2026-10-01", "ADR-0091")


def test_it_sets_an_agent_ways_status_keeping_its_comment():
    doc = adrs.parse_adr(AGENTWAYS_V0, rel_path="ADR-112-x.md")
    after = adrs.set_status(AGENTWAYS_V0, doc, "deprecated", today="2026-10-01")
    removed, added = changed(AGENTWAYS_V0, after)
    assert removed == [AGENTWAYS_V0.decode().split("\n")[1]]
    assert added == [removed[0].replace("Accepted  ", "Deprecated")]
    assert adrs.parse_adr(after, rel_path="ADR-112-x.md").status == "deprecated"


def test_it_sets_a_nygard_status_paragraph():
    doc = adrs.parse_adr(NYGARD_NEW, rel_path="0003-x.md")
    after = adrs.set_status(NYGARD_NEW, doc, "deprecated", today="2026-10-01")
    assert changed(NYGARD_NEW, after) == (["Accepted"], ["Deprecated"])
    again = adrs.parse_adr(after, rel_path="0003-x.md")
    assert (again.status, again.supersedes, again.amended_by) == ("deprecated", ["ADR-0002"], ["ADR-0005"])


def test_it_sets_madr_statuses_in_front_matter_and_bullets():
    doc = adrs.parse_adr(MADR4_ACCEPTED, rel_path="0008-x.md")
    after = adrs.set_status(MADR4_ACCEPTED, doc, "deprecated", today="2026-10-01")
    assert changed(MADR4_ACCEPTED, after) == (["status: accepted", "date: 2024-01-10"],
                                              ["status: deprecated", "date: 2026-10-01"])
    doc = adrs.parse_adr(MADR2, rel_path="0000-x.md")
    after = adrs.set_status(MADR2, doc, "deprecated", today="2026-10-01")
    assert changed(MADR2, after) == (["* Status: accepted <!-- optional -->", "* Date: 2017-12-13"],
                                     ["* Status: deprecated <!-- optional -->", "* Date: 2026-10-01"])
    doc = adrs.parse_adr(LOG4BRAINS_NEW, rel_path="20210101-use-adr-manager.md")
    after = adrs.set_status(LOG4BRAINS_NEW, doc, "rejected", today="2026-10-01")
    assert changed(LOG4BRAINS_NEW, after) == (["- Status: accepted"], ["- Status: rejected"])


def test_it_preserves_crlf_line_endings():
    raw = NYGARD_NEW.replace(b"\n", b"\r\n")
    after = adrs.set_status(raw, adrs.parse_adr(raw, rel_path="0003-x.md"), "rejected", today="2026-10-01")
    assert after == raw.replace(b"\r\nAccepted\r\n", b"\r\nRejected\r\n")


def test_it_supersedes_adr_tools_records_in_upstream_spelling():
    old = NYGARD_NEW.replace(b"# 3. Use Go", b"# 2. Use Go")
    doc = adrs.parse_adr(old, rel_path="0002-x.md")
    after = adrs.add_superseded_by(old, doc, "ADR-0007", "[7. Use Rust](0007-use-rust.md)")
    assert changed(old, after) == (["Accepted"], ["Superceded by [7. Use Rust](0007-use-rust.md)"])
    again = adrs.parse_adr(after, rel_path="0002-x.md")
    assert (again.status, again.superseded_by, again.amended_by) == ("superseded", ["ADR-0007"], ["ADR-0005"])
    plain = b"# 1. Record decisions\n\nDate: 2020-01-01\n\n## Status\n\nAccepted\n\n## Context\n\nC\n"
    after = adrs.add_superseded_by(plain, adrs.parse_adr(plain, rel_path="0001-r.md"), "ADR-0009",
                                   "[9. Better](0009-better.md)")
    assert changed(plain, after) == (["Accepted"], ["Superseded by [9. Better](0009-better.md)"])


def test_it_adds_the_reciprocal_supersedes_line_to_a_nygard_record():
    new = b"# 9. Better\n\nDate: 2020-01-01\n\n## Status\n\nAccepted\n\n## Context\n\nC\n"
    after = adrs.add_supersedes(new, adrs.parse_adr(new, rel_path="0009-b.md"), "ADR-0001",
                                "[1. Record decisions](0001-record-decisions.md)")
    removed, added = changed(new, after)
    assert removed == []
    assert sorted(added) == ["", "Supersedes [1. Record decisions](0001-record-decisions.md)"]
    assert b"Accepted\n\nSupersedes [1. Record decisions](0001-record-decisions.md)\n\n## Context" in after
    again = adrs.parse_adr(after, rel_path="0009-b.md")
    assert (again.status, again.supersedes) == ("accepted", ["ADR-0001"])
    old = adrs.parse_adr(NYGARD_OLD, rel_path="0002-x.md")
    upstream = adrs.add_supersedes(NYGARD_OLD, old, "ADR-0001", "")
    assert b"\nSupercedes ADR-0001\n" in upstream


def test_it_supersedes_majordomus_records_both_ways():
    old = MAJORDOMUS.replace(b"supersedes: [adr-0058]\n", b"")
    doc = adrs.parse_adr(old, rel_path="adrs/0091-k.md")
    after = adrs.add_superseded_by(old, doc, "ADR-0120", "", today="2026-10-02")
    assert changed(old, after) == (["status: accepted", "date: 2026-09-11"],
                                   ["status: superseded", "date: 2026-10-02", "superseded_by: adr-0120"])
    again = adrs.parse_adr(after, rel_path="adrs/0091-k.md")
    assert (again.status, again.superseded_by, again.problems) == ("superseded", ["ADR-0120"], [])
    successor = adrs.parse_adr(MAJORDOMUS, rel_path="adrs/0091-k.md")
    after = adrs.add_supersedes(MAJORDOMUS, successor, "ADR-0070", "")
    assert changed(MAJORDOMUS, after) == (["supersedes: [adr-0058]"], ["supersedes: [adr-0058, adr-0070]"])
    assert adrs.parse_adr(after, rel_path="adrs/0091-k.md").supersedes == ["ADR-0058", "ADR-0070"]


def test_it_supersedes_agent_ways_records_with_lists():
    doc = adrs.parse_adr(AGENTWAYS_V0, rel_path="ADR-112-x.md")
    after = adrs.add_superseded_by(AGENTWAYS_V0, doc, "ADR-0310", "")
    removed, added = changed(AGENTWAYS_V0, after)
    assert removed == [AGENTWAYS_V0.decode().split("\n")[1]]
    assert added == [removed[0].replace("Accepted  ", "Superseded"), "superseded_by: [ADR-310]"]
    again = adrs.parse_adr(after, rel_path="ADR-112-x.md")
    assert (again.status, again.superseded_by, again.supersedes) == ("superseded", ["ADR-0310"], ["ADR-0099"])
    after = adrs.add_supersedes(AGENTWAYS_V0, doc, "ADR-0100", "")
    assert changed(AGENTWAYS_V0, after) == (["supersedes: [ADR-099]"], ["supersedes: [ADR-099, ADR-100]"])
    v1 = adrs.parse_adr(AGENTWAYS_V1, rel_path="ADR-304.1-x.md")
    after = adrs.add_superseded_by(AGENTWAYS_V1, v1, "ADR-0400", "")
    assert changed(AGENTWAYS_V1, after) == (["status: accepted"],
                                            ["status: superseded", "superseded_by: [ADR-400]"])


def test_it_records_a_partial_supersession_without_retiring_the_record():
    doc = adrs.parse_adr(AGENTWAYS_PARTIAL, rel_path="ADR-167-x.md")
    after = adrs.add_superseded_by(AGENTWAYS_PARTIAL, doc, "ADR-0310#2", "")
    assert changed(AGENTWAYS_PARTIAL, after) == (["superseded_by: [ADR-304#4]"],
                                                 ["superseded_by: [ADR-304#4, ADR-310#2]"])
    again = adrs.parse_adr(after, rel_path="ADR-167-x.md")
    assert again.status == "accepted" and again.superseded_by == ["ADR-0304#4", "ADR-0310#2"]
    with pytest.raises(ValueError):
        adrs.add_superseded_by(NYGARD_NEW, adrs.parse_adr(NYGARD_NEW, rel_path="0003-x.md"), "ADR-0009#1", "")


def test_it_appends_to_block_lists():
    raw = b"---\nstatus: Accepted\nsupersedes:\n  - ADR-001\n  - ADR-002\nrelated: []\n---\n\n# ADR-003: T\n"
    after = adrs.add_supersedes(raw, adrs.parse_adr(raw, rel_path="ADR-003-t.md"), "ADR-0004", "")
    assert changed(raw, after) == ([], ["  - ADR-004"])
    assert adrs.parse_adr(after, rel_path="ADR-003-t.md").supersedes == ["ADR-0001", "ADR-0002", "ADR-0004"]


def test_it_supersedes_madr_records_with_status_strings():
    doc = adrs.parse_adr(MADR4_ACCEPTED, rel_path="0008-x.md")
    after = adrs.add_superseded_by(MADR4_ACCEPTED, doc, "ADR-0123", "[ADR-0123](0123-y.md)")
    assert changed(MADR4_ACCEPTED, after) == (["status: accepted"], ["status: superseded by ADR-0123"])
    assert adrs.parse_adr(after, rel_path="0008-x.md").superseded_by == ["ADR-0123"]
    log = adrs.parse_adr(LOG4BRAINS_NEW, rel_path="20210101-use-adr-manager.md")
    link = "[20220101-use-y](20220101-use-y.md)"
    after = adrs.add_superseded_by(LOG4BRAINS_NEW, log, "20220101-use-y", link)
    assert changed(LOG4BRAINS_NEW, after) == (["- Status: accepted"], [f"- Status: superseded by {link}"])
    again = adrs.parse_adr(after, rel_path="20210101-use-adr-manager.md")
    assert (again.status, again.superseded_by) == ("superseded", ["20220101-use-y"])
    after = adrs.add_supersedes(LOG4BRAINS_NEW, log, "20200924-use-log4brains",
                                "[20200924-use-log4brains](20200924-use-log4brains.md)")
    assert changed(LOG4BRAINS_NEW, after)[0] == []
    again = adrs.parse_adr(after, rel_path="20210101-use-adr-manager.md")
    assert again.supersedes == ["20200924-use-log4brains"]
    after = adrs.add_supersedes(MADR2, adrs.parse_adr(MADR2, rel_path="0000-x.md"), "ADR-0003",
                                "[ADR-0003](0003-z.md)")
    assert changed(MADR2, after) == ([], ["* Supersedes [ADR-0003](0003-z.md)"])


def test_writers_refuse_unknown_statuses():
    doc = adrs.parse_adr(MAJORDOMUS, rel_path="adrs/0091-k.md")
    with pytest.raises(ValueError):
        adrs.set_status(MAJORDOMUS, doc, "amended", today="2026-10-01")


# ----------------------------------------------------------------------------------------- new records


@pytest.mark.parametrize(("fmt", "width", "name", "status"), [
    ("majordomus", 4, "0012-commit-offsets-with-the-rows-always.md", "proposed"),
    ("nygard", 4, "0012-commit-offsets-with-the-rows-always.md", "proposed"),
    ("madr", 4, "0012-commit-offsets-with-the-rows-always.md", "proposed"),
    ("madr2", 4, "0012-commit-offsets-with-the-rows-always.md", "proposed"),
    ("agentways", 3, "ADR-012-commit-offsets-with-the-rows-always.md", "proposed"),
    ("agentways-v1", 3, "ADR-012-commit-offsets-with-the-rows-always.md", "proposed"),
    ("log4brains", 4, "20260911-commit-offsets-with-the-rows-always.md", "draft"),
])
def test_it_writes_new_records_that_read_back(fmt, width, name, status):
    title = "Commit offsets with the rows: always"
    file_name, content = adrs.new_record(
        fmt, number=12, title=title, context="Crashes duplicated lines.", decision="One transaction.",
        consequences="Slower commits.", provenance_refs=["session:s-1", "file:ledger/importer/run.py"],
        today="2026-09-11", width=width)
    assert file_name == name
    doc = adrs.parse_adr(content, rel_path=f"adrs/{file_name}")
    assert doc.format == fmt and doc.quarantine is None
    assert doc.id == (name[:-3] if fmt == "log4brains" else "ADR-0012")
    assert (doc.title, doc.status, doc.date) == (title, status, "2026-09-11")
    assert any("One transaction." in text for _, text in doc.sections)
    if fmt == "majordomus":
        assert doc.provenance == {"origin": "extracted",
                                  "derived_from": ["session:s-1", "file:ledger/importer/run.py"]}
        assert doc.problems == []


def test_new_records_can_then_be_superseded():
    _, content = adrs.new_record("nygard", number=3, title="T", context="c", decision="d", consequences="q",
                                 provenance_refs=[], today="2026-09-11")
    doc = adrs.parse_adr(content, rel_path="0003-t.md")
    after = adrs.add_superseded_by(content, doc, "ADR-0004", "[4. U](0004-u.md)")
    assert changed(content, after) == (["Proposed"], ["Superseded by [4. U](0004-u.md)"])


def test_it_numbers_above_the_high_water_mark():
    assert adrs.next_number([]) == 1
    assert adrs.next_number([1, 2, 5]) == 6
    assert adrs.next_number([5, 7, 5, 7, 3]) == 8
