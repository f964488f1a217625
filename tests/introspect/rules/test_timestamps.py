"""Timestamps read as upstream reads them: whole UTC seconds from `…Z` stamps, nothing else."""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime, timedelta

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


def test_it_tells_the_stamps_the_code_can_move_from_those_in_the_calendars_first_and_last_year():
    assert timestamps.in_range(datetime(2026, 1, 1, tzinfo=UTC))
    assert timestamps.in_range(datetime(2, 1, 1, tzinfo=UTC))
    assert timestamps.in_range(datetime(9998, 12, 31, 23, 59, 59, tzinfo=UTC))
    assert not timestamps.in_range(datetime(9999, 1, 1, tzinfo=UTC))
    assert not timestamps.in_range(datetime(1, 12, 31, 23, 59, 59, tzinfo=UTC))


def test_it_holds_a_shifted_stamp_at_the_calendars_end():
    last = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)
    first = datetime(1, 1, 1, tzinfo=UTC)
    assert timestamps.shifted(last, timedelta(seconds=8)) == datetime.max.replace(tzinfo=UTC)
    assert timestamps.shifted(first, -timedelta(seconds=8)) == datetime.min.replace(tzinfo=UTC)
    assert timestamps.shifted(last, -timedelta(seconds=8)) == datetime(9999, 12, 31, 23, 59, 51, tzinfo=UTC)


def test_it_writes_a_second_as_the_events_do_with_the_years_zeros():
    assert timestamps.raw_second(datetime(1, 1, 1, 0, 0, 7, 5, tzinfo=UTC)) == "0001-01-01T00:00:07"
    assert timestamps.raw_second(datetime(2026, 11, 2, 10, 0, 0, tzinfo=UTC)) == "2026-11-02T10:00:00"


# The reading utc_second gives every stamp, whole seconds included (before they were read by places).
UTC_Z = re.compile(rb"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?Z$")


def by_pattern(ts: str) -> datetime | None:
    match = UTC_Z.match(ts.encode("ascii", "replace"))
    try:
        return None if match is None else datetime(*map(int, match.groups()), tzinfo=UTC)
    except ValueError:
        return None


def test_a_whole_second_read_by_its_places_is_the_stamp_the_pattern_reads():
    odd = [
        "2026-01-01T00:00:00Z",
        "2026-02-30T00:00:00Z",
        "2026-01-01T24:00:00Z",
        "2026-01-01T23:59:60Z",
        "0000-01-01T00:00:00Z",
        "0001-01-01T00:00:00Z",
        "9999-12-31T23:59:59Z",
        "2026-01-01T00:00:00Z\n",
        "2026-01-01T00:00:00.5Z",
        "2026-01-01 00:00:00Z",
        "2026-01-01T00:00:00z",
        "٢٠٢٦-01-01T00:00:00Z",
        "2026-1-01T00:00:00Z",
        "+026-01-01T00:00:00Z",
        "",
    ]
    rng = random.Random(29)
    for _ in range(3000):  # digits and separators shuffled: valid and invalid dates alike
        odd.append("".join(rng.choice("0123456789") if c.isdigit() else c for c in "2026-01-01T00:00:00Z"))
    for ts in odd:
        assert timestamps.utc_second(ts) == by_pattern(ts), ts
