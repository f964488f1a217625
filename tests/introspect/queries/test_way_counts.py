"""One way's counts as introspection.md §7 counts them: only injected rows are fires,
re-disclosures apart, withheld rows by why, fires per ISO week (introspect/queries/way_counts.py)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from io import StringIO

import pytest
from django.core.management import call_command

from introspect.models import TurnWay
from introspect.queries import way_counts as way_queries
from tests.conftest import append, line
from tests.introspect.ways_home import imported

pytestmark = pytest.mark.django_db


def rows(way_id: str):
    return TurnWay.objects.filter(way_id=way_id)


def test_it_counts_fires_per_iso_week_apart_from_redisclosures(home):
    imported(home)
    weeks, _ = way_queries.fires_per_week(rows("d/a"))
    assert [(w.label, w.start, w.fires, w.redisclosures) for w in weeks] == [
        ("2026-W45", date(2026, 11, 2), 2, 2),
        ("2026-W46", date(2026, 11, 9), 1, 0),
    ]
    c = way_queries.way_counts("d/a", rows("d/a"))
    assert (c.fires, c.redisclosures, c.gated, c.suppressed_refire, c.judge_blocked, c.near_misses) == (
        3,
        2,
        1,
        1,
        1,
        2,
    )


def test_it_fills_empty_weeks_between_fires(home):
    append(
        home.live,
        line(ts="2026-11-02T10:00:00Z", event="way_fired", way="d/w", trigger="keyword", session="w1"),
        line(ts="2026-11-24T10:00:00Z", event="way_fired", way="d/w", trigger="keyword", session="w1"),
    )
    call_command("ingest", stdout=StringIO())
    weeks, _ = way_queries.fires_per_week(rows("d/w"))
    assert [(w.label, w.fires) for w in weeks] == [
        ("2026-W45", 1),
        ("2026-W46", 0),
        ("2026-W47", 0),
        ("2026-W48", 1),
    ]


def test_withheld_rows_are_counted_by_why_and_judge_verdicts_apart_from_rows(home):
    append(
        home.live,
        line(ts="2026-11-02T10:00:00Z", event="way_fired", way="d/w", trigger="keyword", session="s"),
        line(
            ts="2026-11-02T10:00:01Z", event="way_judged", way="d/w", verdict="pass", p_yes="0.9", session="s"
        ),
        line(ts="2026-11-02T10:01:00Z", event="way_suppressed", way="d/w", reason="context_cap", session="s"),
        line(ts="2026-11-02T10:02:00Z", event="way_suppressed", way="d/w", reason="budget", session="s"),
        line(ts="2026-11-02T10:03:00Z", event="way_fired", way="d/w", trigger="keyword", session="s"),
        line(
            ts="2026-11-02T10:03:01Z",
            event="way_judged",
            way="d/w",
            verdict="would_block",
            p_yes="0.2",
            session="s",
        ),
    )
    call_command("ingest", "--no-ways", stdout=StringIO())
    c = way_queries.way_counts("d/w", rows("d/w"))
    assert (c.rows, c.fires, c.suppressed_cap, c.suppressed_other, c.suppressed_refire, c.gated) == (
        4,
        2,
        1,
        1,
        0,
        0,
    )
    assert (c.events, c.judged_pass, c.judged_would_block, c.judge_blocked) == (6, 1, 1, 0)
    assert (c.first_fired, c.last_fired) == (
        datetime(2026, 11, 2, 10, 0, tzinfo=UTC),
        datetime(2026, 11, 2, 10, 3, tzinfo=UTC),
    )


def test_a_week_is_labelled_by_its_iso_year_and_number():
    assert way_queries.WeekBucket(date(2026, 11, 2), 1, 0).label == "2026-W45"
    assert way_queries.WeekBucket(date(2024, 12, 30), 1, 0).label == "2025-W01"  # the ISO year


def test_fires_further_apart_than_two_years_chart_the_last_two(home):
    append(
        home.live,
        line(ts="2023-01-02T10:00:00Z", event="way_fired", way="d/w", trigger="keyword", session="w1"),
        line(ts="2026-11-02T10:00:00Z", event="way_fired", way="d/w", trigger="keyword", session="w1"),
    )
    call_command("ingest", "--no-ways", stdout=StringIO())
    weeks, truncated = way_queries.fires_per_week(rows("d/w"))
    assert truncated and len(weeks) == way_queries.WEEK_LIMIT
    assert (weeks[-1].start, weeks[-1].fires) == (date(2026, 11, 2), 1)
    assert sum(week.fires for week in weeks) == 1  # the 2023 fire is before the chart
