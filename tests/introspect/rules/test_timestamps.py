"""Timestamps read as upstream reads them: whole UTC seconds from `…Z` stamps, nothing else."""

from __future__ import annotations

from datetime import UTC, datetime

from introspect.rules import timestamps


def test_it_reads_utc_seconds_and_truncates_fractions():
    assert timestamps.utc_second("2026-01-02T03:04:05Z") == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert timestamps.utc_second("2026-01-02T03:04:05.999Z") == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_it_refuses_timestamps_that_are_not_utc_z():
    for ts in (
        "2026-01-02T03:04:05+00:00",
        "2026-01-02T03:04:05",
        "1767323045",
        1767323045,
        None,
        "2026-13-02T03:04:05Z",
    ):
        assert timestamps.utc_second(ts) is None
