"""Decision records read in every format: identity, status, edges, and hostile input (records/parse.py)."""

from __future__ import annotations

import pytest

from ledger.records import edit, parse
from tests.ledger.records.samples import (
    AGENTWAYS_PARTIAL,
    AGENTWAYS_V0,
    AGENTWAYS_V1,
    ARCHIVED,
    LOG4BRAINS,
    MADR2,
    MADR4,
    MAJORDOMUS,
    NYGARD_NEW,
    NYGARD_OLD,
)

# ----------------------------------------------------------------------------------------- formats


def test_it_reads_an_adr_tools_record_that_was_superceded():
    doc = parse.parse_adr(NYGARD_OLD, rel_path="doc/adr/0002-implement-as-shell-scripts.md")
    assert (doc.format, doc.id, doc.number) == ("nygard", "ADR-0002", "2")
    assert doc.title == "Implement as shell scripts"
    assert (doc.status, doc.date) == ("superseded", "2016-02-12")
    assert doc.raw_status.startswith("Superceded by [3. Use Go")
    assert doc.superseded_by == ["ADR-0003"] and doc.supersedes == []
    assert [name for name, _ in doc.sections] == ["Status", "Context", "Decision", "Consequences"]
    assert dict(doc.sections)["Decision"] == "ADR tools will be implemented as a collection of Bash scripts."
    assert doc.quarantine is None and doc.problems == []


def test_it_reads_the_superseding_adr_tools_record_and_ignores_headings_in_code():
    doc = parse.parse_adr(NYGARD_NEW, rel_path="doc/adr/0003-use-go-for-the-command-line-tool.md")
    assert (doc.id, doc.status, doc.raw_status) == ("ADR-0003", "accepted", "Accepted")
    assert doc.supersedes == ["ADR-0002"] and doc.amended_by == ["ADR-0005"]
    assert [name for name, _ in doc.sections] == ["Status", "Context", "Decision", "Consequences"]
    assert "Rejected" in dict(doc.sections)["Context"]


def test_it_reads_madr4_front_matter_and_its_supersession_string():
    doc = parse.parse_adr(MADR4, rel_path="docs/decisions/0007-use-postgresql-for-the-ledger-store.md")
    assert (doc.format, doc.id, doc.title) == ("madr", "ADR-0007", "Use PostgreSQL for the ledger store")
    assert (doc.status, doc.raw_status, doc.date) == ("superseded", "superseded by ADR-0012", "2024-05-02")
    assert doc.superseded_by == ["ADR-0012"]
    assert doc.deciders == ["Alice Example", "Bob Example"]
    assert [name for name, _ in doc.sections] == [
        "Context and Problem Statement",
        "Decision Drivers",
        "Considered Options",
        "Decision Outcome",
        "More Information",
    ]
    assert "### Consequences" in dict(doc.sections)["Decision Outcome"]


def test_it_reads_the_madr2_bullet_header():
    doc = parse.parse_adr(MADR2, rel_path="docs/adr/0000-use-markdown-architectural-decision-records.md")
    assert (doc.format, doc.id, doc.number) == ("madr2", "ADR-0000", "0")
    assert (doc.status, doc.raw_status, doc.date) == ("accepted", "accepted", "2017-12-13")
    assert doc.deciders == ["Oliver Kopp", "Olaf Zimmermann"]
    assert doc.header["technical story"] == "https://example.org/issues/1"
    assert doc.title == "Use Markdown Architectural Decision Records" and doc.superseded_by == []


def test_it_reads_log4brains_records_by_slug():
    doc = parse.parse_adr(LOG4BRAINS, rel_path="docs/adr/20200924-use-log4brains-to-manage-the-adrs.md")
    assert (doc.format, doc.number) == ("log4brains", None)
    assert doc.id == doc.slug == "20200924-use-log4brains-to-manage-the-adrs"
    assert (doc.status, doc.date, doc.tags) == ("superseded", "2020-09-24", ["dev-tools", "doc"])
    assert doc.superseded_by == ["20210101-use-adr-manager"]
    assert doc.title == "Use Log4brains to manage the ADRs"


def test_it_reads_majordomus_adr_v1_with_h1_sections_and_provenance():
    doc = parse.parse_adr(MAJORDOMUS, rel_path=".ai/repo/adrs/0058-knowledge-is-derived-at-the-boundary.md")
    assert (doc.format, doc.id, doc.number) == ("majordomus", "ADR-0091", "91")
    assert doc.title == "Knowledge is derived at the episode boundary and a person promotes it"
    assert (doc.status, doc.date, doc.tags) == ("accepted", "2026-09-11", ["knowledge", "review"])
    assert [name for name, _ in doc.sections] == [
        "Context",
        "Decision",
        "Consequences",
        "Alternatives rejected",
    ]
    assert doc.supersedes == ["ADR-0058"]
    assert doc.related == ["rule:knowledge-is-reviewed", "file:crates/knowledge/src/derive.rs", "rul:035"]
    assert doc.provenance == {"origin": "extracted", "derived_from": ["session:s-20260911000001-aaaa"]}
    assert "file name number ADR-0058 differs from id ADR-0091" in doc.problems


def test_it_reads_agent_ways_v0():
    doc = parse.parse_adr(AGENTWAYS_V0, rel_path="docs/architecture/ledger/ADR-112-session-ledger.md")
    assert (doc.format, doc.id, doc.number) == ("agentways", "ADR-0112", "112")
    assert (doc.status, doc.raw_status, doc.date) == ("accepted", "Accepted", "2026-08-06")
    assert doc.title == "Session ledger entries are written at phase boundaries"
    assert doc.deciders == ["aaron", "claude"]
    assert doc.related == ["ADR-0110", "ADR-0302", "spec:106"] and doc.supersedes == ["ADR-0099"]
    assert [name for name, _ in doc.sections] == [
        "Context",
        "Decision",
        "Consequences",
        "Alternatives Considered",
    ]
    assert "### Negative" in dict(doc.sections)["Consequences"]


def test_it_tells_agent_ways_v1_from_majordomus_by_key_not_label():
    doc = parse.parse_adr(AGENTWAYS_V1, rel_path="docs/architecture/governance/ADR-304.1-numbers.md")
    assert (doc.format, doc.id, doc.number) == ("agentways-v1", "ADR-0304.1", "304.1")
    assert doc.title == "A record's number is its permanent identity" and doc.status == "accepted"
    assert doc.amends == ["ADR-0306#6"] and doc.supersedes == ["ADR-0167#4"] and doc.related == ["ADR-0303"]
    assert doc.provenance["enacted"] == "4f2c1aa"
    assert doc.provenance["agent"] == {"name": "claude", "model": "opus"}
    mislabelled = MAJORDOMUS.replace(b"schema: adr/v1", b"schema: adr/v1\ncontract_note: none")
    assert parse.parse_adr(mislabelled, rel_path="x/0091-k.md").format == "majordomus"


def test_it_marks_partial_supersession_and_keeps_the_section():
    doc = parse.parse_adr(AGENTWAYS_PARTIAL, rel_path="docs/architecture/ADR-167-folders.md")
    assert doc.superseded_by == ["ADR-0304#4"] and doc.status == "accepted" and doc.partially_superseded


def test_it_reads_archived_records_and_their_banner():
    doc = parse.parse_adr(ARCHIVED, rel_path="docs/architecture/archive/layout/ADR-201-flat-folder.md")
    assert (doc.status, doc.raw_status, doc.superseded_by) == ("archived", "superseded", ["ADR-0310"])
    banner_only = ARCHIVED.replace(b"superseded_by: [ADR-310]\n", b"")
    assert parse.parse_adr(banner_only, rel_path="archive/ADR-201-x.md").superseded_by == ["ADR-0310"]


# ----------------------------------------------------------------------------------------- identity


def test_it_takes_the_h1_number_over_a_different_file_name_number():
    doc = parse.parse_adr(AGENTWAYS_V0, rel_path="docs/architecture/ADR-110-old-slug.md")
    assert doc.id == "ADR-0112"
    assert "file name number ADR-0110 differs from id ADR-0112" in doc.problems
    nygard = parse.parse_adr(NYGARD_NEW, rel_path="doc/adr/0007-renamed.md")
    assert nygard.id == "ADR-0003"


def test_it_takes_the_front_matter_id_over_h1_and_file_name():
    raw = b"---\nschema: adr/v1\nid: adr-0009\ntitle: T\nstatus: proposed\n---\n\n# 12. Heading\n"
    doc = parse.parse_adr(raw, rel_path="adrs/0005-t.md")
    assert doc.id == "ADR-0009"
    v0 = b"---\nid: ADR-0200\nstatus: Draft\nrelated: []\n---\n\n# ADR-112: Title\n"
    assert parse.parse_adr(v0, rel_path="ADR-110-x.md").id == "ADR-0200"


def test_it_falls_back_to_the_file_name_then_the_slug():
    body = b"---\nstatus: accepted\n---\n\n# Use plain JUnit 5\n"
    assert parse.parse_adr(body, rel_path="docs/decisions/0042-use-junit.md").id == "ADR-0042"
    assert parse.parse_adr(body, rel_path="decisions/2024-01-02-use-junit.md").id == "2024-01-02-use-junit"
    assert parse.parse_adr(body, rel_path="use-junit.md").id == "use-junit"


# ----------------------------------------------------------------------------------------- status


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("draft", "draft"),
        ("Draft", "draft"),
        ("Proposed", "proposed"),
        ("Pending", "proposed"),
        ("proposed", "proposed"),
        ("Accepted", "accepted"),
        ("Approved", "accepted"),
        ("Rejected", "rejected"),
        ("Deprecated", "deprecated"),
        ("Superseded", "superseded"),
        ("Superceded by [3. X](0003-x.md)", "superseded"),
        ("superseded by ADR-0123", "superseded"),
        ("abandoned", "abandoned"),
        ("archived", "archived"),
        ("Amended by [4. Y](0004-y.md)", "unknown"),
        ("", "unknown"),
        ("in review", "unknown"),
        ("[proposed | rejected | accepted]", "unknown"),
        ("**Accepted**", "accepted"),
    ],
)
def test_it_normalises_statuses(raw, expected):
    assert parse.normalise_status(raw) == expected


def test_it_archives_anything_under_archive_and_keeps_the_in_file_status():
    assert parse.normalise_status("Accepted", archived_path=True) == "archived"
    doc = parse.parse_adr(AGENTWAYS_V0, rel_path="docs/architecture/archive/ledger/ADR-112-x.md")
    assert (doc.status, doc.raw_status) == ("archived", "Accepted")


def test_it_accepts_both_spellings_of_superseded():
    for verb in (b"Superceded by", b"Superseded by"):
        doc = parse.parse_adr(NYGARD_OLD.replace(b"Superceded by", verb), rel_path="0002-x.md")
        assert (doc.status, doc.superseded_by) == ("superseded", ["ADR-0003"])
    for verb in (b"Supercedes", b"Supersedes"):
        doc = parse.parse_adr(NYGARD_NEW.replace(b"Supercedes", verb), rel_path="0003-x.md")
        assert doc.supersedes == ["ADR-0002"]


def test_it_warns_about_a_superseded_record_without_a_successor():
    doc = parse.parse_adr(b"# 4. X\n\nDate: 2020-01-01\n\n## Status\n\nSuperseded\n", rel_path="0004-x.md")
    assert doc.status == "superseded" and "superseded by ?" in doc.problems


def test_it_keeps_the_status_of_an_amended_record():
    raw = b"# 4. X\n\n## Status\n\nAmended by [6. Y](0006-y.md)\n\nAccepted\n"
    doc = parse.parse_adr(raw, rel_path="0004-x.md")
    assert (doc.status, doc.amended_by) == ("accepted", ["ADR-0006"])


# ----------------------------------------------------------------------------------------- hostile input


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\x00\xff\xfe garbage",
        b"---\nstatus: [unclosed\n---\n# 3. T\n",
        b"---\n- a list\n---\n",
        b"---\nstatus: accepted\n",
        b"---\nstatus: !!python/object:os.system x\n---\n",
        b"---\n" + b"[" * 5000 + b"\n---\n",
        b"---\nstatus: {a: 1}\nid: [1, 2]\ndate: 12\n---\n# \n",
        b"---\na: &a [x, x, x, x]\nb: &b [*a, *a, *a, *a]\nstatus: &c [*b, *b, *b, *b]\n---\n# T\n",
        b"## Status\n\n```\n",
        b"#" * 10000,
        b"# ADR-99999999: x\n",
        b"---\nsupersedes: [{a: b}, null, 3]\n---\n",
        b"\xef\xbb\xbf# 5. BOM\n\n## Status\n\nAccepted\n",
        b"x" * (2 << 20),
        "not bytes",
    ],
)
def test_it_never_raises_on_hostile_input(raw):
    doc = parse.parse_adr(raw, rel_path="docs/adr/0003-t.md")
    assert isinstance(doc, parse.AdrDoc) and doc.status in parse.STATUSES and doc.id


def test_it_quarantines_unparsable_front_matter_but_keeps_the_identity():
    doc = parse.parse_adr(b"---\nstatus: [unclosed\n---\n\n# ADR-112: T\n", rel_path="ADR-112-t.md")
    assert doc.quarantine[0] == "yaml_invalid" and doc.id == "ADR-0112"
    assert parse.parse_adr(b"---\n- a\n---\n", rel_path="0001-x.md").quarantine[0] == "yaml_invalid"
    assert parse.parse_adr(b"\xff", rel_path="0001-x.md").quarantine[0] == "invalid_utf8"
    with pytest.raises(ValueError):
        edit.set_status(b"---\nstatus: [unclosed\n---\n", doc, "accepted", today="2026-01-01")
