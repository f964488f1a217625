"""The decisions section of `ways tune stats` as agent-ways' `stats/decisions.rs` (@906894e9) computes it:
its tests first (named `test_` + the Rust test's name), then ours."""

from __future__ import annotations

import math

from introspect.rules import rust_json
from introspect.rules.agent_fmt_when import parse_utc_iso
from introspect.rules.decision_reader import Window
from introspect.rules.decision_stats import TurnsPerDay, days_window, json_value, report
from tests.introspect.rules.decision_log import STATS_ARCHIVE, STATS_LIVE, source_lines, write_log


def run(tmp_path, project=None, window=None, span=None):
    directory = write_log(tmp_path / "state", STATS_ARCHIVE, STATS_LIVE)
    return report(source_lines(directory), window=window, project=project, span=span)


def run_live(lines: list[str]):
    """A report over `lines` alone, as the live file."""
    return report(line + "\n" for line in lines)


def counts(result) -> list[tuple[str, list[tuple[str, int]]]]:
    return [(way, list(results.items())) for way, results in result.by_way]


def test_a_days_window_starts_where_its_calendar_does(tmp_path):
    # Two days ending 09-03 09:00: the calendar is 09-02 and 09-03, so the window starts 09-02 00:00 and
    # leaves out s1's turns of 09-01.
    now = parse_utc_iso("2026-09-03T09:00:00Z")
    window, span = days_window(2, now)
    assert window.since == "2026-09-02T00:00:00Z"
    result = run(tmp_path, window=window, span=span)
    assert result.turns == 1, "b2 only"
    assert result.turns_per_day == TurnsPerDay(days=2, mean=0.5, median=0.5, p90=1), (
        "every counted turn is on the calendar"
    )
    _, one = days_window(1, now)
    assert one == (parse_utc_iso("2026-09-03T00:00:00Z"), now)


def test_a_turn_with_no_ts_is_counted_but_does_not_empty_the_calendar():
    result = run_live(
        [
            '{"kind":"scan","scan_id":"z0","session":"s0","agent":"main","turn_start":true,"project":"/p","outcomes":[]}',
            '{"ts":"2026-09-01T10:00:00Z","kind":"scan","scan_id":"z1","session":"s1","agent":"main",'
            '"turn_start":true,"project":"/p","outcomes":[]}',
            '{"ts":"2026-09-02T10:00:00Z","kind":"scan","scan_id":"z2","session":"s1","agent":"main",'
            '"turn_start":true,"project":"/p","outcomes":[]}',
        ]
    )
    assert result.turns == 3
    assert result.turns_per_day == TurnsPerDay(days=2, mean=1.0, median=1.0, p90=1)


def test_a_background_subagent_pull_after_the_next_prompt_is_judged_by_its_dispatch():
    pulls = run_live(
        [
            '{"ts":"2026-09-01T10:00:00Z","kind":"scan","scan_id":"m1","session":"s","agent":"main",'
            '"turn_start":true,"project":"/p","outcomes":[{"way":"d/a","result":"fired"}]}',
            '{"ts":"2026-09-01T10:00:10Z","kind":"scan","scan_id":"t1","session":"s","agent":"main",'
            '"turn_start":false,"project":"/p","outcomes":[{"way":"d/y","result":"stashed"}]}',
            '{"ts":"2026-09-01T10:01:00Z","kind":"scan","scan_id":"m2","session":"s","agent":"main",'
            '"turn_start":true,"project":"/p","outcomes":[]}',
            '{"ts":"2026-09-01T10:02:00Z","kind":"pull","session":"s","agent":"sub1","way":"d/y","stamped":true,"scan_id":"t1"}',
            '{"ts":"2026-09-01T10:02:10Z","kind":"pull","session":"s","agent":"sub1","way":"d/a","stamped":true,"scan_id":"t1"}',
        ]
    ).pulls
    assert (pulls.total, pulls.delivered, pulls.recall_miss, pulls.unjoined) == (2, 1, 1, 0)
    assert pulls.recall_miss_by_way == [("d/a", 1)], "sub1 was stashed d/y; d/a only main had"


def test_turns_are_counted_by_turn_start_across_archive_and_live_file(tmp_path):
    result = run(tmp_path)
    assert (result.records, result.skipped) == (10, 1), (
        "four archive records and six live; the malformed line is skipped"
    )
    assert result.turns == 4, "a1, b1, a3, b2: turn_start scans, though two pairs share an epoch"
    assert (result.scans, result.orphan_scans) == (5, 0), "the task scan joins s1's first turn"
    # 09-01: 3, 09-02: 0, 09-03: 1.
    assert result.turns_per_day == TurnsPerDay(days=3, mean=4.0 / 3.0, median=1.0, p90=3)


def test_outcomes_are_counted_per_way_and_result(tmp_path):
    result = run(tmp_path)
    assert counts(result) == [
        ("d/n", [("near_miss", 3)]),
        ("d/a", [("fired", 1), ("judge_block", 1)]),
        ("d/a/c", [("ancestor_block", 1)]),
        ("d/b", [("redisclosed", 1)]),
        ("d/h", [("held_context_cap", 1)]),
        ("d/k", [("keyword_gated", 1)]),
        ("d/p/c", [("withheld_for_parent", 1)]),
        ("d/r", [("held_refire", 1)]),
        ("d/t", [("stashed", 1)]),
        ("d/w", [("fired", 1)]),
    ]
    assert len(result.near_miss_leaders) == 1
    way, n, shortfall = result.near_miss_leaders[0]
    assert (way, n) == ("d/n", 3)
    assert math.isclose(shortfall, 0.04, abs_tol=1e-9), f"mean of 0.04, 0.02, 0.06: {shortfall}"


def test_the_judge_tally_reads_verdicts_blocks_fallbacks_and_caps(tmp_path):
    judge = run(tmp_path).judge
    assert (judge.pass_, judge.block, judge.would_block) == (1, 1, 1)
    assert (judge.judged_scans, judge.fallback_scans, judge.capped_scans, judge.capped_ways) == (2, 1, 1, 1)
    assert math.isclose(judge.rate(judge.pass_), 1.0 / 3.0, abs_tol=1e-9)


def test_a_pull_of_a_way_its_turn_never_delivered_is_a_recall_miss(tmp_path):
    pulls = run(tmp_path).pulls
    assert pulls.total == 5
    assert pulls.delivered == 1, "s1 pulled d/a, which a1 fired"
    assert pulls.recall_miss == 2, "d/x joined via the task scan; d/a in s2 was judge-blocked, not fired"
    assert pulls.recall_miss_by_way == [("d/a", 1), ("d/x", 1)]
    assert (pulls.out_of_band, pulls.out_of_band_by_way) == (1, [("d/x", 1)])
    assert (pulls.null_scan_id, pulls.unjoined, pulls.refused) == (1, 0, 1)


def test_a_project_filter_keeps_its_turns_and_drops_pulls_with_no_turn(tmp_path):
    result = run(tmp_path, project="/p")
    assert result.turns == 2, "s1's two turns"
    assert result.scans == 3
    assert all(way not in ("d/w", "d/a/c") for way, _ in result.by_way), "s2's ways are out"
    pulls = result.pulls
    assert (pulls.total, pulls.delivered, pulls.recall_miss, pulls.null_scan_id) == (2, 1, 1, 0)


def test_the_section_renders_and_its_absence_is_explicit(tmp_path):
    # Upstream also checks its human text (`head_lines`, `tail_lines`); waysweb prints only the JSON.
    value = json_value(run(tmp_path))
    assert value["present"] is True
    assert value["by_way"]["d/a"] == {"fired": 1, "judge_block": 1}
    assert value["pulls"]["recall_miss_by_way"] == {"d/a": 1, "d/x": 1}
    assert value["near_miss_leaders"][0] == {"way": "d/n", "near_miss": 3, "mean_shortfall": 0.04}
    assert json_value(None) == {"present": False}


# Ours: the section byte for byte, and what upstream's tests leave open.


def test_it_prints_the_section_as_serde_json_pretty_prints_it(tmp_path):
    text = rust_json.dumps(json_value(run(tmp_path)), pretty=True)
    assert text.startswith('{\n  "present": true,\n  "records": 10,\n  "skipped_lines": 1,\n  "turns": 4,\n')
    assert (
        '"turns_per_day": {\n    "days": 3,\n    "mean": 1.3333,\n    "median": 1.0,\n    "p90": 3\n  }'
        in text
    )
    assert '"pass_rate": 0.3333,' in text
    assert (
        '"near_miss_leaders": [\n    {\n      "way": "d/n",\n      "near_miss": 3,\n      "mean_shortfall": 0.04\n'
        in text
    )
    assert list(json_value(run(tmp_path))["by_way"])[:3] == ["d/n", "d/a", "d/a/c"], (
        "most outcomes first, ties by name"
    )


def test_an_empty_log_is_present_with_zeros_and_an_empty_calendar():
    value = json_value(report([]))
    assert value["present"] is True
    assert value["turns_per_day"] == {"days": 0, "mean": 0.0, "median": 0.0, "p90": 0}
    assert value["judge"]["pass_rate"] == 0.0
    assert rust_json.dumps(value["by_way"]) == "{}"


def test_a_project_filter_counts_records_and_skipped_lines_of_every_project(tmp_path):
    result = run(tmp_path, project="/q")
    assert (result.records, result.skipped, result.turns) == (10, 1, 2)
    assert (result.pulls.total, result.pulls.refused) == (2, 1), "b1's pull and b2's refused pull"


def test_a_sibling_project_is_not_under_the_filter_the_root_holds_all_and_an_empty_filter_nothing(tmp_path):
    assert run(tmp_path, project="/p/").turns == 2
    assert run(tmp_path, project="/").turns == 4, "'/' trims to '', and every absolute path lies under it"
    assert run(tmp_path, project="/p-2").turns == 0
    assert run(tmp_path, project="").turns == 0


def test_the_days_window_has_no_upper_end(tmp_path):
    window, span = days_window(1, parse_utc_iso("2026-09-01T12:00:00Z"))
    result = run(tmp_path, window=window, span=span)
    assert window == Window(since="2026-09-01T00:00:00Z")
    assert result.turns == 4, "records after now still count"
    assert result.turns_per_day.days == 1


def test_a_refused_pull_counts_only_as_refused_and_a_curveless_one_is_served():
    lines = [
        '{"ts":"2026-09-01T10:00:00Z","kind":"scan","scan_id":"m1","session":"s","agent":"main",'
        '"turn_start":true,"project":"/p","outcomes":[]}',
        '{"ts":"2026-09-01T10:00:01Z","kind":"pull","session":"s","agent":"main","way":"d/a","scan_id":"m1",'
        '"out_of_band":true,"reason":"disabled"}',
        '{"ts":"2026-09-01T10:00:02Z","kind":"pull","session":"s","agent":"main","way":"d/b","scan_id":"m1",'
        '"reason":"no refire curve"}',
    ]
    pulls = run_live(lines).pulls
    assert (pulls.total, pulls.refused, pulls.out_of_band, pulls.recall_miss) == (2, 1, 0, 1)


def test_near_miss_leaders_are_the_top_ten_most_first_ties_by_name_and_mean_only_what_has_a_shortfall():
    outcomes = ",".join(
        [f'{{"way":"w/{i:02}","result":"near_miss","shortfall":0.1}}' for i in range(12)]
        + ['{"way":"w/05","result":"near_miss"}', '{"way":"w/11","result":"near_miss","shortfall":0.3}']
    )
    lines = [
        '{"ts":"2026-09-01T10:00:00Z","kind":"scan","scan_id":"m1","session":"s","agent":"main",'
        f'"turn_start":true,"project":"/p","outcomes":[{outcomes}]}}'
    ]
    leaders = json_value(run_live(lines))["near_miss_leaders"]
    assert [row["way"] for row in leaders] == [
        "w/05",
        "w/11",
        "w/00",
        "w/01",
        "w/02",
        "w/03",
        "w/04",
        "w/06",
        "w/07",
        "w/08",
    ]
    assert leaders[0] == {"way": "w/05", "near_miss": 2, "mean_shortfall": 0.1}
    assert leaders[1] == {"way": "w/11", "near_miss": 2, "mean_shortfall": 0.2}
