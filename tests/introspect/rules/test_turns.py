"""Turns as agent-ways builds them (introspection.md §3, §6, §7), from events in event order."""

from __future__ import annotations

from dataclasses import astuple, dataclass, field

import orjson

from introspect.rules import turns
from introspect.rules.timestamps import utc_second


@dataclass
class Ev:
    """The attributes of a WaysEvent that turn building reads."""

    event: str
    ts_raw: str
    way: str | None = None
    trigger: str | None = None
    reason: str | None = None
    token_position: int | None = None
    fire_score: float | None = None
    matched_span: str | None = None
    verdict: str | None = None
    p_yes: float | None = None
    threshold: float | None = None
    occurrences: int = 1
    extra: dict = field(default_factory=dict)

    @property
    def ts(self):
        return utc_second(self.ts_raw)

    @property
    def raw(self) -> str:
        return orjson.dumps({"ts": self.ts_raw, "event": self.event, **self.extra}).decode()


def at(second: int) -> str:
    return f"2026-01-01T00:00:{second:02d}Z"


def fired(second: int, way: str, **kw) -> Ev:
    return Ev("way_fired", at(second), way=way, trigger=kw.pop("trigger", "keyword"), **kw)


def test_it_keeps_a_three_second_gap_in_one_turn_and_splits_at_four():
    built = turns.build_turns([fired(0, "a"), fired(3, "b"), fired(7, "c")])
    assert [[row.way_id for row in turn.rows] for turn in built] == [["a", "b"], ["c"]]
    assert [turn.epoch for turn in built] == [1, 2]


def test_it_measures_the_gap_from_the_previous_row_not_the_first():
    built = turns.build_turns([fired(0, "a"), fired(3, "b"), fired(6, "c"), fired(9, "d")])
    assert len(built) == 1 and built[0].ts_raw == at(0)


def test_it_skips_rows_whose_ts_is_not_utc_z_without_splitting_the_turn():
    odd = Ev("way_fired", "2026-01-01T00:00:01+00:00", way="odd", trigger="bash")
    built = turns.build_turns([fired(0, "a"), odd, fired(2, "b")])
    assert [[row.way_id for row in turn.rows] for turn in built] == [["a", "b"]]


def test_it_takes_the_largest_token_position_and_zero_when_none():
    built = turns.build_turns(
        [
            fired(0, "a", token_position=100),
            fired(1, "b", token_position=900),
            fired(10, "c", trigger="state"),
        ]
    )
    assert [turn.token_position for turn in built] == [900, 0]


def test_it_marks_redisclosed_gated_and_suppressed_rows_and_never_counts_them_as_fires():
    built = turns.build_turns(
        [
            fired(0, "a"),
            Ev("way_redisclosed", at(1), way="a", trigger="keyword"),
            Ev("way_keyword_gated", at(1), way="g", trigger="prompt", matched_span="remember"),
            Ev("way_suppressed", at(2), way="s", trigger="bash", reason="refire"),
            Ev("way_suppressed", at(2), way="u", trigger="bash"),
        ]
    )
    rows = built[0].rows
    assert [(r.way_id, r.trigger_channel, r.redisclosed, r.gated, r.suppressed) for r in rows] == [
        ("a", "keyword", False, False, ""),
        ("a", "keyword", True, False, ""),
        ("g", "keyword:gated", False, True, ""),
        ("s", "bash", False, False, "refire"),
        ("u", "bash", False, False, "unknown"),
    ]
    summary = turns.summarise(built)
    assert (summary.total_fires, summary.distinct_ways, summary.redisclosures) == (1, 1, 1)
    assert (summary.gated_candidates, summary.suppressed_candidates) == (1, 2)


def test_it_leaves_other_events_out_of_turns():
    built = turns.build_turns(
        [
            Ev("session_start", at(0)),
            Ev("way_nearmiss", at(1), way="n"),
            Ev("check_fired", at(2)),
            fired(30, "a"),
            Ev("way_fired", at(31), way=""),
        ]
    )
    assert [[row.way_id for row in turn.rows] for turn in built] == [["a"]]


def judged(second: int, way: str, verdict: str, p_yes: float = 0.8, **extra) -> Ev:
    return Ev(
        "way_judged",
        at(second),
        way=way,
        verdict=verdict,
        p_yes=p_yes,
        threshold=0.3,
        extra={"mode": "enforce", "judge_ms": "412", **extra},
    )


def test_it_attaches_a_pass_verdict_to_the_nearest_row_of_its_way_within_three_seconds():
    built = turns.build_turns([judged(10, "a", "pass"), fired(6, "a"), fired(12, "a"), fired(14, "a")])
    marked = [
        (row.ts_raw, row.judge["verdict"] if row.judge else None) for turn in built for row in turn.rows
    ]
    assert marked == [(at(6), None), (at(12), "pass"), (at(14), None)]
    assert built[-1].rows[0].judge["judge_ms"] == 412


def test_it_gives_equal_distances_to_the_first_row_in_event_order_and_one_verdict_per_row():
    built = turns.build_turns(
        [fired(8, "a"), fired(12, "a"), judged(10, "a", "pass"), judged(10, "a", "would_block")]
    )
    verdicts = [row.judge["verdict"] for turn in built for row in turn.rows]
    assert verdicts == ["pass", "would_block"]


def test_it_drops_a_verdict_with_no_row_close_enough():
    built = turns.build_turns([fired(0, "a"), judged(5, "a", "pass")])
    assert built[0].rows[0].judge is None


def test_it_makes_a_block_its_own_withheld_row_after_the_others():
    built = turns.build_turns(
        [judged(1, "b/c", "block", 0.05, reason="ancestor", ancestor="b"), fired(1, "a")]
    )
    rows = built[0].rows
    assert [(r.way_id, r.trigger_channel, r.suppressed) for r in rows] == [
        ("a", "keyword", ""),
        ("b/c", "judge", "judge"),
    ]
    assert rows[1].judge == {
        "verdict": "block",
        "p_yes": 0.05,
        "threshold": 0.3,
        "mode": "enforce",
        "engine": "",
        "model": "",
        "judge_ms": 412,
        "reason": "ancestor",
        "ancestor": "b",
    }
    assert turns.summarise(built).judge_blocked == 1


def test_it_ignores_verdicts_without_way_verdict_or_p_yes():
    built = turns.build_turns(
        [fired(0, "a"), judged(0, "", "pass"), Ev("way_judged", at(0), way="a", verdict="pass")]
    )
    assert built[0].rows[0].judge is None and len(built[0].rows) == 1


def test_it_attaches_a_verdict_in_the_calendars_last_second_to_its_row():
    last, first = "9999-12-31T23:59:5{}Z", "0001-01-01T00:00:0{}Z"
    built = turns.build_turns(
        [
            Ev("way_fired", first.format(1), way="a", trigger="keyword"),
            Ev("way_judged", first.format(0), way="a", verdict="pass", p_yes=0.8, threshold=0.3),
            Ev("way_fired", last.format(8), way="a", trigger="keyword"),
            Ev("way_judged", last.format(9), way="a", verdict="pass", p_yes=0.8, threshold=0.3),
        ]
    )
    assert [(turn.ts_raw, [row.judge["verdict"] for row in turn.rows]) for turn in built] == [
        (first.format(1), ["pass"]),
        (last.format(8), ["pass"]),
    ]


def test_it_marks_the_same_rows_without_reading_the_verdicts():
    events = [
        fired(8, "a"),
        fired(12, "a"),
        judged(10, "a", "pass"),
        judged(10, "a", "would_block"),
        judged(11, "b", "block", 0.05),
        Ev("way_judged", at(11), way="a", verdict="pass", p_yes=0.9, extra={"mode": "x"}),
    ]
    read, unread = turns.build_turns(events), turns.build_turns(events, verdicts=False)
    assert [(r.way_id, r.suppressed, r.judge_event) for t in unread for r in t.rows] == [
        (r.way_id, r.suppressed, r.judge_event) for t in read for r in t.rows
    ]
    assert [r.judge is turns.UNREAD_VERDICT for t in unread for r in t.rows] == [
        r.judge is not None for t in read for r in t.rows
    ]


def test_it_summarises_each_kind_of_row_once():
    rows = [
        turns.Row(event=None, way_id="a", trigger_channel="k", ts_raw="", ts=None, order=0),
        turns.Row(event=None, way_id="a", trigger_channel="k", ts_raw="", ts=None, order=1),
        turns.Row(event=None, way_id="b", trigger_channel="k", ts_raw="", ts=None, order=2, redisclosed=True),
        turns.Row(event=None, way_id="c", trigger_channel="k", ts_raw="", ts=None, order=3, gated=True),
        turns.Row(
            event=None, way_id="d", trigger_channel="j", ts_raw="", ts=None, order=4, suppressed="judge"
        ),
        turns.Row(event=None, way_id="e", trigger_channel="k", ts_raw="", ts=None, order=5, suppressed="cap"),
    ]
    built = [turns.TurnData(epoch=1, ts_raw="", ts=None, token_position=0, rows=rows)]
    summary = turns.summarise(built, keyed_turns=1)
    # turns, distinct ways and fires (the injected first fires: "a" twice), re-disclosed, gated,
    # withheld (the judge's block and the cap's), judge-blocked, keyed.
    assert astuple(summary) == (1, 1, 2, 1, 1, 2, 1, 1)
