"""An extension moves the session's turn counters by what it replaced, and they equal a full recount."""

from __future__ import annotations

import copy

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from introspect.derive import session_inputs, turn_counts
from introspect.importer.run import Options, absolute
from introspect.models import Session, Turn
from tests.conftest import line
from tests.introspect.derive import test_extend
from tests.introspect.derive.test_extend import (
    SID,
    fire,
    grow,
    home_locations,
    judged,
    rebuilt_whole,
    snapshot,
    start,
)
from waysweb import passes

pytestmark = pytest.mark.django_db

COUNTERS = (
    "turn_count",
    "keyed_turns",
    "total_fires",
    "distinct_ways",
    "redisclosures",
    "gated",
    "suppressed",
    "judge_blocked",
)


def counters(session: Session) -> dict:
    return {name: getattr(session, name) for name in COUNTERS}


def recounted(session: Session) -> dict:
    again = copy.copy(session)
    turn_counts.recount(again)
    return counters(again)


def event(second: int, kind: str, way: str, **extra) -> bytes:
    return line(
        ts=f"2026-11-29T10:{second // 60:02d}:{second % 60:02d}Z",
        event=kind,
        way=way,
        trigger="keyword",
        session=SID,
        **extra,
    )


APPENDS = [
    [start(0), fire(10, "a/one"), fire(30, "a/two"), fire(30, "a/three")],
    [judged(32, "a/three", "block")],  # a withheld candidate row in the last turn
    [fire(50, "a/one")],  # a new turn firing a way fired before: no new way
    [event(51, "way_redisclosed", "a/one"), event(52, "way_keyword_gated", "a/five")],
    [event(70, "way_suppressed", "a/six", reason="cooldown"), fire(70, "a/four")],  # a new way
    [fire(71, "a/two"), fire(90, "a/seven")],  # the last turn grows, and a new turn
    [fire(110, "a/three")],  # a way fired before, in a turn long past
]


FOUND_BY = pytest.mark.parametrize(
    ("recent_rows", "by_ids"),
    [(session_inputs.RECENT_ROWS, session_inputs.BY_IDS), (0, session_inputs.BY_IDS), (0, 0)],
    ids=["id-range", "session-index", "session-and-bound"],
)


@FOUND_BY
def test_after_every_append_the_counters_equal_a_full_recount_and_a_rebuild(
    home, extended, monkeypatch, recent_rows, by_ids
):
    """However the appended rows are found (session_inputs.appended_ids), the same session."""
    monkeypatch.setattr(session_inputs, "RECENT_ROWS", recent_rows)
    monkeypatch.setattr(session_inputs, "BY_IDS", by_ids)
    seen = []
    for chunks in APPENDS:
        grow(home, *chunks)
        session = Session.objects.get(sid=SID)
        assert counters(session) == recounted(session)
        seen.append(session.distinct_ways)
    assert extended == [False] + [True] * (len(APPENDS) - 1)  # every append after the first extended
    assert seen == [3, 3, 3, 3, 4, 5, 5]
    session = Session.objects.get(sid=SID)
    assert (session.redisclosures, session.gated, session.suppressed, session.judge_blocked) == (1, 1, 2, 1)
    assert snapshot() == rebuilt_whole()


@FOUND_BY
def test_transcript_lines_however_found_extend_the_session_as_a_rebuild_would(
    home, extended, monkeypatch, recent_rows, by_ids
):
    monkeypatch.setattr(session_inputs, "RECENT_ROWS", recent_rows)
    monkeypatch.setattr(session_inputs, "BY_IDS", by_ids)
    test_extend.test_transcript_lines_written_after_the_fires_join_them_on_the_tail_path(home, extended)


def test_fired_before_names_the_ways_fired_in_earlier_turns_only(home):
    grow(
        home,
        start(0),
        fire(10, "a/one"),
        event(11, "way_keyword_gated", "a/gated"),
        fire(30, "a/two"),
        fire(50, "a/three"),
    )
    session = Session.objects.get(sid=SID)
    assert list(Turn.objects.filter(session=session).order_by("epoch").values_list("epoch", flat=True)) == [
        1,
        2,
        3,
    ]
    ways = {"a/one", "a/two", "a/three", "a/gated", "a/never"}
    assert turn_counts.fired_before(session, 3, ways) == {"a/one", "a/two"}
    assert turn_counts.fired_before(session, 1, ways) == set()


def test_a_tally_counts_what_summarise_counts():
    tally = turn_counts.Tally()
    tally.add_row("a/one", False, "", False)
    tally.add_row("a/one", False, "", True)
    tally.add_row("a/two", True, "", False)
    tally.add_row("a/three", False, "judge", False)
    assert (tally.fires, tally.redisclosed, tally.gated, tally.suppressed, tally.judge) == (1, 1, 1, 1, 1)
    assert tally.ways == {"a/one"}


def pass_queries(home, chunk: bytes) -> int:
    """The queries of a follower's pass over the live log alone, after `chunk` was appended to it."""
    with open(home.live, "ab") as fh:
        fh.write(chunk)
    options = Options(ways=False, only=frozenset({absolute(home.live)}))
    with CaptureQueriesContext(connection) as queries:
        result = passes.sessions_pass(home_locations(), options)
    assert result.totals.imported == 1
    return len(queries)


# A followed append's whole pass (import, spills, derive), as this test counts it (its savepoints
# included). Every query is a round trip and, through the ORM, Django's compilation of it.
PASS_QUERIES = 47


def test_an_appended_event_costs_as_many_queries_in_a_long_session_as_in_a_short_one(home, extended):
    grow(home, start(0), *(fire(10 + 20 * n, f"a/{n % 7}") for n in range(60)))  # 60 turns
    long = [pass_queries(home, fire(1300 + 20 * n, "a/3")) for n in range(3)]  # the last turn's way
    assert extended[1:] == [True] * 3
    short_sid = "short-session"
    grow(home, line(ts="2026-11-29T11:00:00Z", event="session_start", project="/p", session=short_sid))
    short = [
        pass_queries(
            home,
            line(ts=f"2026-11-29T11:00:{10 * (n + 1)}Z", event="way_fired", way="a/0", session=short_sid),
        )
        for n in range(3)
    ]
    assert long[1:] == short[1:]  # a short session's first fire is a way new to it
    assert max(long + short) <= PASS_QUERIES, (long, short)
    assert snapshot() == rebuilt_whole()
