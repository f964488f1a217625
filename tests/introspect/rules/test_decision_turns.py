"""Turns and pull joins as agent-ways' `decisions::Turns` (@8e1a61ba) builds them: its tests, then ours.

Upstream's tests keep their names (`test_` + the Rust test's name).
"""

from __future__ import annotations

from introspect.rules.decision_records import Pull, Scan, parse_line
from introspect.rules.decision_turns import Join, Joined, Orphan, Turn, group
from tests.introspect.rules.decision_log import READER_ARCHIVE, READER_LIVE, READER_S1, pull, scan


def records_of(lines: list[str]) -> list[Scan | Pull]:
    """Upstream's `lines`: every line parses (`filter_map(parse_line)` for the fixture split)."""
    return [record for record in map(parse_line, lines) if isinstance(record, Scan | Pull)]


def run(lines: list[str]) -> list:
    out: list = []
    group(records_of(lines), out.append)
    return out


def turns_of(out: list) -> list[tuple[str, list[str]]]:
    return [(item.start.scan_id, [s.scan_id for s in item.scans]) for item in out if isinstance(item, Turn)]


def joins_of(out: list) -> list[tuple[str, str, Join]]:
    return [(item.pull.agent, item.pull.way, item.join) for item in out if isinstance(item, Joined)]


def order_of(out: list) -> list[str]:
    return [
        item.start.scan_id if isinstance(item, Turn) else "pull" if isinstance(item, Joined) else "?"
        for item in out
    ]


def late_session() -> list[str]:
    """m1 fires d/a and its task scan t1 stashes d/y for sub1; main's next prompt m2 closes the turn
    before sub1, running in the background, pulls."""
    return [
        scan("2026-09-01T10:00:00Z", "m1", "main", True, [("d/a", "fired")]),
        scan("2026-09-01T10:00:10Z", "t1", "main", False, [("d/y", "stashed")]),
        scan("2026-09-01T10:01:00Z", "m2", "main", True),
        pull("2026-09-01T10:02:00Z", "sub1", "d/y", "t1"),
        pull("2026-09-01T10:02:10Z", "sub1", "d/a", "t1"),
        pull("2026-09-01T10:02:20Z", "main", "d/y", "m2"),
    ]


def test_turns_open_on_turn_start_and_pulls_are_judged_as_they_arrive():
    out = run(READER_ARCHIVE + READER_LIVE)
    assert turns_of(out) == [("a1", ["a2"]), ("b1", []), ("a3", [])], (
        "three turns, though s1's two turns share epoch 3"
    )
    assert joins_of(out) == [
        ("main", "d/a", Join.DELIVERED),
        ("main", "d/x", Join.RECALL_MISS),
        ("main", "d/c", Join.NO_SCAN_ID),
        ("main", "d/a", Join.RECALL_MISS),
    ], "a1 fired d/a; nothing in s1's turn fired d/x; s2's d/a was judge-blocked"


def test_a_continuing_scan_with_no_turn_in_its_session_is_an_orphan():
    out = run([READER_S1[1]])
    assert len(out) == 1
    assert isinstance(out[0], Orphan)
    assert out[0].scan.scan_id == "a2"


def test_a_late_subagent_pull_joins_the_dispatch_scan_after_the_next_prompt():
    out = run(late_session())
    assert turns_of(out) == [("m1", ["t1"]), ("m2", [])]
    joined = [(item.pull.way, item.turn) for item in out if isinstance(item, Joined)]
    assert joined == [("d/y", 0), ("d/a", 0), ("d/y", 1)], "sub1's pulls join m1's turn though m2 closed it"


def test_delivered_is_judged_per_context():
    lines = [*late_session(), pull("2026-09-01T10:00:20Z", "main", "d/y", "m1")]
    assert joins_of(run(lines)) == [
        ("sub1", "d/y", Join.DELIVERED),
        ("sub1", "d/a", Join.RECALL_MISS),
        ("main", "d/y", Join.RECALL_MISS),
        ("main", "d/y", Join.RECALL_MISS),
    ], "sub1 was stashed d/y, not d/a, which only main had; main was never given d/y, stashed only for sub1"


def test_a_main_pull_counts_only_what_its_turn_delivered_before_it():
    lines = [
        scan("2026-09-01T10:00:00Z", "m1", "main", True),
        pull("2026-09-01T10:00:05Z", "main", "d/a", "m1"),
        scan("2026-09-01T10:00:10Z", "m1b", "main", False, [("d/a", "fired")]),
        pull("2026-09-01T10:00:20Z", "main", "d/a", "m1"),
    ]
    assert joins_of(run(lines)) == [("main", "d/a", Join.RECALL_MISS), ("main", "d/a", Join.DELIVERED)]


def test_a_nested_dispatch_is_indexed_and_its_subagent_pull_joins_it():
    lines = [
        scan("2026-09-01T10:00:00Z", "m1", "main", True, [("d/a", "fired")]),
        scan("2026-09-01T10:00:10Z", "t1", "main", False, [("d/y", "stashed")]),
        scan("2026-09-01T10:00:30Z", "t2", "sub1", False, [("d/z", "stashed")]),
        pull("2026-09-01T10:00:40Z", "sub2", "d/z", "t2"),
        pull("2026-09-01T10:00:50Z", "sub2", "d/y", "t2"),
        pull("2026-09-01T10:00:55Z", "sub1", "d/a", "t2"),
    ]
    out = run(lines)
    assert turns_of(out) == [("m1", ["t1", "t2"])], (
        "sub1's dispatch belongs to the session's turn, not an orphan"
    )
    assert joins_of(out) == [
        ("sub2", "d/z", Join.DELIVERED),
        ("sub2", "d/y", Join.RECALL_MISS),
        ("sub1", "d/a", Join.RECALL_MISS),
    ], "sub1's own pull naming t2 reads t2, not main's turn it was counted with"


def test_a_main_scan_never_joins_a_teammates_turn():
    # Main's turn began before the window; teammate `mate` (same session) has a turn open when main's
    # queued-message scan q1 arrives.
    lines = [
        scan("2026-09-01T10:00:00Z", "tm", "mate", True, [("d/b", "fired")]),
        scan("2026-09-01T10:00:10Z", "q1", "main", False, [("d/q", "fired")]),
        pull("2026-09-01T10:00:20Z", "main", "d/q", "q1"),
        pull("2026-09-01T10:00:30Z", "main", "d/b", "q1"),
    ]
    out = run(lines)
    assert turns_of(out) == [("tm", [])], "q1 is main's, not the teammate's"
    assert any(isinstance(item, Orphan) and item.scan.scan_id == "q1" for item in out)
    assert joins_of(out) == [("main", "d/q", Join.DELIVERED), ("main", "d/b", Join.RECALL_MISS)], (
        "judged against main's own scan"
    )


def test_a_future_dated_record_does_not_hand_on_every_open_turn():
    lines = [
        scan("2026-09-01T10:00:00Z", "m1", "main", True),
        '{"ts":"2027-01-01T00:00:00Z","kind":"scan","scan_id":"f1","session":"f","agent":"main",'
        '"turn_start":true,"project":"/p","outcomes":[]}',
        pull("2026-09-01T10:00:20Z", "main", "d/a", "m1"),
    ]
    assert order_of(run(lines)) == ["pull", "m1", "f1"], (
        "m1 stays open past the future-dated f1, which is still read"
    )


def test_a_real_gap_in_the_log_is_confirmed_by_the_next_record():
    def other(ts: str, scan_id: str) -> str:
        return (
            f'{{"ts":"{ts}","kind":"scan","scan_id":"{scan_id}","session":"{scan_id}","agent":"main",'
            '"turn_start":true,"project":"/p","outcomes":[]}'
        )

    lines = [
        scan("2026-09-01T10:00:00Z", "m1", "main", True),
        other("2026-09-03T10:00:00Z", "x1"),
        other("2026-09-03T10:01:00Z", "y1"),
        pull("2026-09-03T10:02:00Z", "main", "d/a", "m1"),
    ]
    assert order_of(run(lines)) == ["m1", "pull", "x1", "y1"], (
        "y1 confirms the two-day gap and m1 is handed on"
    )


def test_an_idle_open_turn_is_handed_on_after_a_day():
    lines = [
        scan("2026-09-01T10:00:00Z", "m1", "main", True),
        '{"ts":"2026-09-02T11:00:00Z","kind":"scan","scan_id":"x1","session":"other","agent":"main",'
        '"turn_start":true,"project":"/p","outcomes":[]}',
        '{"ts":"2026-09-02T11:00:01Z","kind":"scan","scan_id":"x2","session":"other","agent":"main",'
        '"turn_start":true,"project":"/p","outcomes":[]}',
    ]
    assert order_of(run(lines)) == ["m1", "x1", "x2"], (
        "m1 is handed on as x1 arrives 25h later, before x2 closes x1"
    )


# Ours: hostile and unusual streams.


def test_it_joins_a_pull_naming_an_empty_or_missing_scan_id_as_unknown_and_a_null_one_as_no_scan_id():
    lines = [
        scan("2026-09-01T10:00:00Z", "", "main", True, [("d/a", "fired")]),
        pull("2026-09-01T10:00:05Z", "main", "d/a", ""),
        pull("2026-09-01T10:00:06Z", "main", "d/a", "nowhere"),
        '{"ts":"2026-09-01T10:00:07Z","kind":"pull","session":"s","agent":"main","way":"d/a","scan_id":null}',
        '{"ts":"2026-09-01T10:00:08Z","kind":"pull","session":"s","agent":"main","way":"d/a"}',
    ]
    assert [join for _, _, join in joins_of(run(lines))] == [
        Join.UNKNOWN,
        Join.UNKNOWN,
        Join.NO_SCAN_ID,
        Join.NO_SCAN_ID,
    ], "a scan without an id is never indexed; a missing scan_id is serde's default, None"


def test_a_repeated_scan_id_names_the_later_scan():
    lines = [
        scan("2026-09-01T10:00:00Z", "m1", "main", True, [("d/a", "fired")]),
        '{"ts":"2026-09-01T10:00:01Z","kind":"scan","scan_id":"m1","session":"t","agent":"main",'
        '"turn_start":true,"project":"/r","outcomes":[]}',
        pull("2026-09-01T10:00:05Z", "main", "d/a", "m1"),
    ]
    (joined,) = [item for item in run(lines) if isinstance(item, Joined)]
    assert (joined.join, joined.turn, joined.project) == (Join.RECALL_MISS, 1, "/r")


def test_a_scan_whose_ts_does_not_parse_is_still_grouped_and_moves_no_clock():
    lines = [
        scan("2026-09-01T10:00:00Z", "m1", "main", True),
        scan("yesterday", "m2", "main", False, [("d/a", "fired")]),
        scan("2026-09-03T10:00:00Z", "x1", "sub", False),
        pull("2026-09-03T10:00:01Z", "main", "d/a", "m1"),
    ]
    out = run(lines)
    assert turns_of(out) == [("m1", ["m2", "x1"])], "the two-day jump is held back once, so m1 is still open"
    assert joins_of(out) == [("main", "d/a", Join.DELIVERED)]


def test_a_nested_dispatch_with_no_open_turn_in_its_session_is_an_orphan():
    out = run([scan("2026-09-01T10:00:00Z", "t9", "sub1", False, [("d/z", "stashed")])])
    assert [type(item) for item in out] == [Orphan]
