"""The ledger pass log: when each ledger root was last read, and what its passes changed."""

from __future__ import annotations

from datetime import UTC, datetime

from ledger.importer import passlog

FIRST = datetime(2026, 11, 1, 10, 0, tzinfo=UTC)
LATER = datetime(2026, 11, 1, 10, 30, tzinfo=UTC)


def test_it_keeps_the_last_read_per_root_and_adds_up_what_changed():
    passlog.record([passlog.Read(passlog.ADRS, "/repo", files=3, added=3)], at=FIRST)
    passlog.record([passlog.Read(passlog.ADRS, "/repo", files=3, changed=1)], at=LATER)
    entry = passlog.load()[passlog.key(passlog.ADRS, "/repo")]
    assert (entry["files"], entry["added"], entry["changed"], entry["gone"]) == (3, 3, 1, 0)
    assert passlog.when(entry["read_at"]) == LATER and passlog.when(entry["changed_at"]) == LATER


def test_a_pass_that_changed_nothing_moves_the_last_read_not_the_last_change():
    passlog.record([passlog.Read(passlog.ENTRIES, "/ledger", files=2, added=2)], at=FIRST)
    passlog.record([passlog.Read(passlog.ENTRIES, "/ledger", files=2)], at=LATER)
    entry = passlog.load()[passlog.key(passlog.ENTRIES, "/ledger")]
    assert passlog.when(entry["read_at"]) == LATER and passlog.when(entry["changed_at"]) == FIRST


def test_roots_of_other_kinds_are_kept_when_one_kind_is_recorded():
    passlog.record([passlog.Read(passlog.ENTRIES, "/ledger", files=1)], at=FIRST)
    passlog.record([passlog.Read(passlog.KNOWLEDGE, "/k", files=4)], at=LATER)
    assert set(passlog.load()) == {
        passlog.key(passlog.ENTRIES, "/ledger"),
        passlog.key(passlog.KNOWLEDGE, "/k"),
    }


def test_an_unreadable_log_reads_as_empty_and_is_replaced_by_the_next_pass():
    passlog.path().write_bytes(b"[not, an object")
    assert passlog.load() == {}
    passlog.record([passlog.Read(passlog.ADRS, "/repo", files=1)], at=FIRST)
    assert passlog.load()[passlog.key(passlog.ADRS, "/repo")]["files"] == 1
