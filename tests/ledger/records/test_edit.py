"""Status changes and supersessions written into each format, every other byte kept (records/edit.py)."""

from __future__ import annotations

import pytest

from ledger.records import edit, parse
from tests.ledger.records.samples import (
    AGENTWAYS_PARTIAL,
    AGENTWAYS_V0,
    AGENTWAYS_V1,
    LOG4BRAINS_NEW,
    MADR2,
    MADR4_ACCEPTED,
    MAJORDOMUS,
    NYGARD_NEW,
    NYGARD_OLD,
    changed,
)

# ----------------------------------------------------------------------------------------- writers


def test_it_sets_a_majordomus_status_and_date_and_nothing_else():
    doc = parse.parse_adr(MAJORDOMUS, rel_path="adrs/0091-k.md")
    after = edit.set_status(MAJORDOMUS, doc, "rejected", today="2026-10-01")
    assert changed(MAJORDOMUS, after) == (
        ["status: accepted", "date: 2026-09-11"],
        ["status: rejected", "date: 2026-10-01"],
    )
    again = parse.parse_adr(after, rel_path="adrs/0091-k.md")
    assert (again.status, again.date, again.id) == ("rejected", "2026-10-01", "ADR-0091")


def test_it_sets_an_agent_ways_status_keeping_its_comment():
    doc = parse.parse_adr(AGENTWAYS_V0, rel_path="ADR-112-x.md")
    after = edit.set_status(AGENTWAYS_V0, doc, "deprecated", today="2026-10-01")
    removed, added = changed(AGENTWAYS_V0, after)
    assert removed == [AGENTWAYS_V0.decode().split("\n")[1]]
    assert added == [removed[0].replace("Accepted  ", "Deprecated")]
    assert parse.parse_adr(after, rel_path="ADR-112-x.md").status == "deprecated"


def test_it_sets_a_nygard_status_paragraph():
    doc = parse.parse_adr(NYGARD_NEW, rel_path="0003-x.md")
    after = edit.set_status(NYGARD_NEW, doc, "deprecated", today="2026-10-01")
    assert changed(NYGARD_NEW, after) == (["Accepted"], ["Deprecated"])
    again = parse.parse_adr(after, rel_path="0003-x.md")
    assert (again.status, again.supersedes, again.amended_by) == ("deprecated", ["ADR-0002"], ["ADR-0005"])


def test_it_sets_madr_statuses_in_front_matter_and_bullets():
    doc = parse.parse_adr(MADR4_ACCEPTED, rel_path="0008-x.md")
    after = edit.set_status(MADR4_ACCEPTED, doc, "deprecated", today="2026-10-01")
    assert changed(MADR4_ACCEPTED, after) == (
        ["status: accepted", "date: 2024-01-10"],
        ["status: deprecated", "date: 2026-10-01"],
    )
    doc = parse.parse_adr(MADR2, rel_path="0000-x.md")
    after = edit.set_status(MADR2, doc, "deprecated", today="2026-10-01")
    assert changed(MADR2, after) == (
        ["* Status: accepted <!-- optional -->", "* Date: 2017-12-13"],
        ["* Status: deprecated <!-- optional -->", "* Date: 2026-10-01"],
    )
    doc = parse.parse_adr(LOG4BRAINS_NEW, rel_path="20210101-use-adr-manager.md")
    after = edit.set_status(LOG4BRAINS_NEW, doc, "rejected", today="2026-10-01")
    assert changed(LOG4BRAINS_NEW, after) == (["- Status: accepted"], ["- Status: rejected"])


def test_it_preserves_crlf_line_endings():
    raw = NYGARD_NEW.replace(b"\n", b"\r\n")
    after = edit.set_status(raw, parse.parse_adr(raw, rel_path="0003-x.md"), "rejected", today="2026-10-01")
    assert after == raw.replace(b"\r\nAccepted\r\n", b"\r\nRejected\r\n")


def test_it_supersedes_adr_tools_records_in_upstream_spelling():
    old = NYGARD_NEW.replace(b"# 3. Use Go", b"# 2. Use Go")
    doc = parse.parse_adr(old, rel_path="0002-x.md")
    after = edit.add_superseded_by(old, doc, "ADR-0007", "[7. Use Rust](0007-use-rust.md)")
    assert changed(old, after) == (["Accepted"], ["Superceded by [7. Use Rust](0007-use-rust.md)"])
    again = parse.parse_adr(after, rel_path="0002-x.md")
    assert (again.status, again.superseded_by, again.amended_by) == ("superseded", ["ADR-0007"], ["ADR-0005"])
    plain = b"# 1. Record decisions\n\nDate: 2020-01-01\n\n## Status\n\nAccepted\n\n## Context\n\nC\n"
    after = edit.add_superseded_by(
        plain, parse.parse_adr(plain, rel_path="0001-r.md"), "ADR-0009", "[9. Better](0009-better.md)"
    )
    assert changed(plain, after) == (["Accepted"], ["Superseded by [9. Better](0009-better.md)"])


def test_it_adds_the_reciprocal_supersedes_line_to_a_nygard_record():
    new = b"# 9. Better\n\nDate: 2020-01-01\n\n## Status\n\nAccepted\n\n## Context\n\nC\n"
    after = edit.add_supersedes(
        new,
        parse.parse_adr(new, rel_path="0009-b.md"),
        "ADR-0001",
        "[1. Record decisions](0001-record-decisions.md)",
    )
    removed, added = changed(new, after)
    assert removed == []
    assert sorted(added) == ["", "Supersedes [1. Record decisions](0001-record-decisions.md)"]
    assert b"Accepted\n\nSupersedes [1. Record decisions](0001-record-decisions.md)\n\n## Context" in after
    again = parse.parse_adr(after, rel_path="0009-b.md")
    assert (again.status, again.supersedes) == ("accepted", ["ADR-0001"])
    old = parse.parse_adr(NYGARD_OLD, rel_path="0002-x.md")
    upstream = edit.add_supersedes(NYGARD_OLD, old, "ADR-0001", "")
    assert b"\nSupercedes ADR-0001\n" in upstream


def test_it_supersedes_majordomus_records_both_ways():
    old = MAJORDOMUS.replace(b"supersedes: [adr-0058]\n", b"")
    doc = parse.parse_adr(old, rel_path="adrs/0091-k.md")
    after = edit.add_superseded_by(old, doc, "ADR-0120", "", today="2026-10-02")
    assert changed(old, after) == (
        ["status: accepted", "date: 2026-09-11"],
        ["status: superseded", "date: 2026-10-02", "superseded_by: adr-0120"],
    )
    again = parse.parse_adr(after, rel_path="adrs/0091-k.md")
    assert (again.status, again.superseded_by, again.problems) == ("superseded", ["ADR-0120"], [])
    successor = parse.parse_adr(MAJORDOMUS, rel_path="adrs/0091-k.md")
    after = edit.add_supersedes(MAJORDOMUS, successor, "ADR-0070", "")
    assert changed(MAJORDOMUS, after) == (["supersedes: [adr-0058]"], ["supersedes: [adr-0058, adr-0070]"])
    assert parse.parse_adr(after, rel_path="adrs/0091-k.md").supersedes == ["ADR-0058", "ADR-0070"]


def test_it_supersedes_agent_ways_records_with_lists():
    doc = parse.parse_adr(AGENTWAYS_V0, rel_path="ADR-112-x.md")
    after = edit.add_superseded_by(AGENTWAYS_V0, doc, "ADR-0310", "")
    removed, added = changed(AGENTWAYS_V0, after)
    assert removed == [AGENTWAYS_V0.decode().split("\n")[1]]
    assert added == [removed[0].replace("Accepted  ", "Superseded"), "superseded_by: [ADR-310]"]
    again = parse.parse_adr(after, rel_path="ADR-112-x.md")
    assert (again.status, again.superseded_by, again.supersedes) == ("superseded", ["ADR-0310"], ["ADR-0099"])
    after = edit.add_supersedes(AGENTWAYS_V0, doc, "ADR-0100", "")
    assert changed(AGENTWAYS_V0, after) == (["supersedes: [ADR-099]"], ["supersedes: [ADR-099, ADR-100]"])
    v1 = parse.parse_adr(AGENTWAYS_V1, rel_path="ADR-304.1-x.md")
    after = edit.add_superseded_by(AGENTWAYS_V1, v1, "ADR-0400", "")
    assert changed(AGENTWAYS_V1, after) == (
        ["status: accepted"],
        ["status: superseded", "superseded_by: [ADR-400]"],
    )


def test_it_records_a_partial_supersession_without_retiring_the_record():
    doc = parse.parse_adr(AGENTWAYS_PARTIAL, rel_path="ADR-167-x.md")
    after = edit.add_superseded_by(AGENTWAYS_PARTIAL, doc, "ADR-0310#2", "")
    assert changed(AGENTWAYS_PARTIAL, after) == (
        ["superseded_by: [ADR-304#4]"],
        ["superseded_by: [ADR-304#4, ADR-310#2]"],
    )
    again = parse.parse_adr(after, rel_path="ADR-167-x.md")
    assert again.status == "accepted" and again.superseded_by == ["ADR-0304#4", "ADR-0310#2"]
    with pytest.raises(ValueError):
        edit.add_superseded_by(
            NYGARD_NEW, parse.parse_adr(NYGARD_NEW, rel_path="0003-x.md"), "ADR-0009#1", ""
        )


def test_it_appends_to_block_lists():
    raw = b"---\nstatus: Accepted\nsupersedes:\n  - ADR-001\n  - ADR-002\nrelated: []\n---\n\n# ADR-003: T\n"
    after = edit.add_supersedes(raw, parse.parse_adr(raw, rel_path="ADR-003-t.md"), "ADR-0004", "")
    assert changed(raw, after) == ([], ["  - ADR-004"])
    assert parse.parse_adr(after, rel_path="ADR-003-t.md").supersedes == ["ADR-0001", "ADR-0002", "ADR-0004"]


def test_it_supersedes_madr_records_with_status_strings():
    doc = parse.parse_adr(MADR4_ACCEPTED, rel_path="0008-x.md")
    after = edit.add_superseded_by(MADR4_ACCEPTED, doc, "ADR-0123", "[ADR-0123](0123-y.md)")
    assert changed(MADR4_ACCEPTED, after) == (["status: accepted"], ["status: superseded by ADR-0123"])
    assert parse.parse_adr(after, rel_path="0008-x.md").superseded_by == ["ADR-0123"]
    log = parse.parse_adr(LOG4BRAINS_NEW, rel_path="20210101-use-adr-manager.md")
    link = "[20220101-use-y](20220101-use-y.md)"
    after = edit.add_superseded_by(LOG4BRAINS_NEW, log, "20220101-use-y", link)
    assert changed(LOG4BRAINS_NEW, after) == (["- Status: accepted"], [f"- Status: superseded by {link}"])
    again = parse.parse_adr(after, rel_path="20210101-use-adr-manager.md")
    assert (again.status, again.superseded_by) == ("superseded", ["20220101-use-y"])
    after = edit.add_supersedes(
        LOG4BRAINS_NEW,
        log,
        "20200924-use-log4brains",
        "[20200924-use-log4brains](20200924-use-log4brains.md)",
    )
    assert changed(LOG4BRAINS_NEW, after)[0] == []
    again = parse.parse_adr(after, rel_path="20210101-use-adr-manager.md")
    assert again.supersedes == ["20200924-use-log4brains"]
    after = edit.add_supersedes(
        MADR2, parse.parse_adr(MADR2, rel_path="0000-x.md"), "ADR-0003", "[ADR-0003](0003-z.md)"
    )
    assert changed(MADR2, after) == ([], ["* Supersedes [ADR-0003](0003-z.md)"])


def test_writers_refuse_unknown_statuses():
    doc = parse.parse_adr(MAJORDOMUS, rel_path="adrs/0091-k.md")
    with pytest.raises(ValueError):
        edit.set_status(MAJORDOMUS, doc, "amended", today="2026-10-01")
