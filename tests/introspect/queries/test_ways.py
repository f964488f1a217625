"""The way queries: the catalog as a tree of `/` segments and one way's record, counted as
introspection.md §7 counts (only injected rows are fires, re-disclosures apart, withheld rows never
fires) and scored as formats-agent-ways.md §8 says (calibrated and raw scores never compared)
(introspect/queries/ways.py). What the pages print of them: tests/introspect/views/test_ways.py."""

from __future__ import annotations

from datetime import UTC, date, datetime
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from introspect.models import Project, Way
from introspect.queries import ways as way_queries
from tests.conftest import append, line
from tests.introspect.ways_home import imported, leaves

pytestmark = pytest.mark.django_db


# ── The catalog tree ────────────────────────────────────────────────────────────────────────────


def test_it_builds_the_catalog_tree_from_files_and_events(home):
    imported(home)
    tree = way_queries.way_tree()
    assert [node.name for node in tree] == ["d", "ghost"]
    d = tree[0]
    assert [child.name for child in d.children] == ["a", "quiet"]
    assert (d.fires, d.way_count) == (3, 2)
    found = leaves(tree)
    a = found["d/a"]
    assert (a.fires, a.redisclosures, a.withheld, a.near_misses) == (3, 2, 3, 2)
    assert a.root_kinds == ["user", "core"] and a.root_kind == "user"
    assert a.last_fired.isoformat() == "2026-11-10T09:00:05+00:00"
    assert found["ghost/only-events"].no_file and not found["ghost/only-events"].file_gone
    assert found["d/quiet"].fires == 0 and found["d/quiet"].last_fired is None
    assert [node.name for node in way_queries.way_tree(q="ghost")] == ["ghost"]


def test_it_flags_a_way_whose_file_is_gone(home):
    imported(home)
    (home.core_ways / "d" / "quiet" / "quiet.md").unlink()
    call_command("ingest", stdout=StringIO())
    quiet = leaves(way_queries.way_tree())["d/quiet"]
    assert quiet.file_gone and not quiet.no_file and quiet.root_kind == ""


def test_it_nests_a_deep_way_id_no_deeper_than_the_tree_allows():
    deep = "w/" * 150 + "leaf"
    [top] = way_queries.build_tree([way_queries.WayLeaf(deep)])
    node, depth = top, 1
    while node.children:
        [node] = node.children
        depth += 1
    assert depth == way_queries.MAX_TREE_DEPTH
    assert node.way.way_id == node.path == deep  # the rest of the id is one node, slashes and all


def test_a_node_sums_the_fires_and_ways_below_it_and_sorts_its_children_by_name():
    nodes = way_queries.build_tree(
        [
            way_queries.WayLeaf("a/c", fires=3),
            way_queries.WayLeaf("a", fires=1),
            way_queries.WayLeaf("a/b", fires=2),
            way_queries.WayLeaf("z/y/x", fires=4),
        ]
    )
    [a, z] = nodes
    assert (a.path, a.way.way_id, a.fires, a.way_count, a.depth) == ("a", "a", 6, 3, 0)
    assert [(child.name, child.path, child.depth) for child in a.children] == [
        ("b", "a/b", 1),
        ("c", "a/c", 1),
    ]
    assert (z.way, z.fires, z.way_count) == (None, 4, 1)  # a prefix that is no way id of its own


def test_a_leaf_says_which_root_reads_it_or_that_no_file_or_only_a_gone_one_has_its_id():
    read = way_queries.WayLeaf("w", root_kinds=["project", "user"])
    assert (read.root_kind, read.no_file, read.file_gone) == ("project", False, False)
    gone = way_queries.WayLeaf("w", gone_kinds=["core"])
    assert (gone.root_kind, gone.no_file, gone.file_gone) == ("", False, True)
    events_only = way_queries.WayLeaf("w")
    assert (events_only.root_kind, events_only.no_file, events_only.file_gone) == ("", True, False)


# ── One way: its files and criteria ─────────────────────────────────────────────────────────────


def way_file(way_id: str, kind: str, root: str, *, present: bool = True, project=None, **fields) -> Way:
    now = timezone.now()
    return Way.objects.create(
        way_id=way_id,
        domain=way_id.split("/")[0],
        root_kind=kind,
        root=root,
        project=project,
        rel_path=f"{way_id}/{way_id.rsplit('/', 1)[-1]}.md",
        sha256="0" * 64,
        present=present,
        read_at=now,
        changed_at=now,
        **fields,
    )


def test_the_files_of_a_way_come_in_precedence_order_and_say_where_each_is_read():
    alpha = Project.objects.create(path="/src/alpha", name="alpha")
    core = way_file("d/w", Way.RootKind.CORE, "/core")
    gone = way_file("d/w", Way.RootKind.USER, "/old-user", present=False)
    user = way_file("d/w", Way.RootKind.USER, "/user")
    project = way_file("d/w", Way.RootKind.PROJECT, "/src/alpha/.claude/ways", project=alpha)
    files, primary = way_queries.way_files("d/w")
    assert [(row.way, row.note, row.resolves) for row in files] == [
        (project, "read only in alpha and shadows the user/core way there", True),
        (user, "resolves outside projects that carry their own", True),
        (core, "shadowed by the user way", False),
        (gone, "file gone: no longer under this root (last read shown)", False),
    ]
    assert primary == user  # the text shown is the one read outside projects


def test_a_way_only_a_project_carries_shows_that_projects_file():
    alpha = Project.objects.create(path="/src/alpha", name="alpha")
    project = way_file("d/w", Way.RootKind.PROJECT, "/src/alpha/.claude/ways", project=alpha)
    files, primary = way_queries.way_files("d/w")
    assert [(row.note, row.resolves) for row in files] == [("read only in alpha", True)]
    assert primary == project


def test_a_way_whose_files_are_all_gone_shows_the_last_read_and_is_still_known():
    gone = way_file("d/w", Way.RootKind.CORE, "/core", present=False)
    stats = way_queries.way_stats("d/w")
    assert (stats.primary, stats.file_state, stats.known) == (gone, "gone", True)


def test_a_way_never_read_nor_named_by_an_event_is_unknown():
    stats = way_queries.way_stats("never/seen")
    assert (stats.known, stats.file_state, stats.primary, stats.criteria) == (False, "none", None, [])
    assert stats.domain == "never"


def test_criteria_are_the_front_matter_as_read_today_gone_fields_marked():
    way = Way(frontmatter={"description": "commits", "pattern": "commit", "refire": 0.2, "curve": "steep"})
    assert [(c.key, c.text, c.fire_bearing, bool(c.gone_note)) for c in way_queries.criteria_rows(way)] == [
        ("description", "commits", True, False),
        ("pattern", "commit", True, False),
        ("refire", "0.2", False, False),
        ("curve", "steep", False, True),
    ]


def test_a_front_matter_value_is_shown_as_written_or_as_json():
    assert way_queries.field_text("a|b") == "a|b"
    assert way_queries.field_text(True) == "true"
    assert way_queries.field_text(["git commit", 2, 0.5]) == "git commit, 2, 0.5"
    assert way_queries.field_text({"k": ["é"]}) == '{"k": ["é"]}'
    assert way_queries.field_text([{"nested": 1}]) == '[{"nested": 1}]'


# ── One way: its numbers ────────────────────────────────────────────────────────────────────────


def test_it_counts_fires_per_iso_week_apart_from_redisclosures(home):
    imported(home)
    stats = way_queries.way_stats("d/a")
    assert [(w.label, w.start, w.fires, w.redisclosures) for w in stats.weeks] == [
        ("2026-W45", date(2026, 11, 2), 2, 2),
        ("2026-W46", date(2026, 11, 9), 1, 0),
    ]
    c = stats.counts
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
    weeks = way_queries.way_stats("d/w").weeks
    assert [(w.label, w.fires) for w in weeks] == [
        ("2026-W45", 1),
        ("2026-W46", 0),
        ("2026-W47", 0),
        ("2026-W48", 1),
    ]


def test_it_measures_redisclosure_distance_within_a_window(home):
    imported(home)
    latest, earlier = way_queries.way_stats("d/a").redisclosures
    # Window 2: the keyword fire at 2000 tokens, then a re-disclosure with no token position.
    assert (latest.window, latest.epoch, latest.previous_epoch, latest.token_position) == (2, 6, 5, 0)
    assert latest.distance is None and latest.why_no_distance == "token position not recorded (0)"
    # Window 1: the semantic fire at 1000 tokens, re-disclosed at 31000.
    assert (earlier.window, earlier.epoch, earlier.previous_epoch, earlier.distance) == (1, 2, 1, 30000)


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
    c = way_queries.way_stats("d/w").counts
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
    stats = way_queries.way_stats("d/w")
    assert stats.weeks_truncated and len(stats.weeks) == way_queries.WEEK_LIMIT
    assert (stats.weeks[-1].start, stats.weeks[-1].fires) == (date(2026, 11, 2), 1)
    assert sum(week.fires for week in stats.weeks) == 1  # the 2023 fire is before the chart


# ── Near-misses, scores and τ ───────────────────────────────────────────────────────────────────


def miss(**fields) -> way_queries.NearMiss:
    return way_queries.NearMiss(ts=None, ts_raw="", sid="s", surface="prompt", **fields)


def test_a_calibrated_near_miss_shows_the_probability_that_fell_short():
    calibrated = {"schema_gen": "calibrated"}
    assert miss(**calibrated, margin=0.03, prob_en=0.47, prob_multi=0.41, tau_s=0.5).probability == 0.47
    # No probability under τ (the one that fell short was not logged): τ − margin.
    assert miss(**calibrated, margin=0.02, prob_en=0.6, tau_s=0.5).probability == 0.48
    assert miss(**calibrated, margin=0.1, tau_s=0.5).probability == 0.4
    assert miss(**calibrated, margin=None, prob_en=0.3, prob_multi=0.4).probability == 0.4  # no τ logged
    assert miss(**calibrated, margin=None).probability is None


def test_a_raw_score_near_miss_has_no_probability_and_says_its_generation():
    raw = miss(schema_gen="raw_score", margin=0.019, score_en=0.441, thr_en=0.46)
    assert (raw.calibrated, raw.probability, raw.generation_label) == (
        False,
        None,
        "raw score, before ADR-156",
    )
    assert miss(schema_gen="calibrated", margin=None).generation_label == "calibrated probability"
    assert miss(schema_gen="", margin=None).generation_label == "no score recorded"


def test_tau_is_the_one_the_near_misses_recorded_else_the_default():
    tau, note = way_queries.threshold([])
    assert tau == way_queries.TAU_S and "default" in note
    assert way_queries.threshold([miss(schema_gen="calibrated", margin=None, tau_s=0.45)]) == (
        0.45,
        "τ 0.45 as the near-misses recorded it",
    )
    mixed = [miss(schema_gen="calibrated", margin=None, tau_s=t) for t in (0.5, 0.45, 0.5, None)]
    assert way_queries.threshold(mixed) == (0.5, "τ 0.5 as most near-misses recorded it; some recorded 0.45")


def test_a_redisclosures_distance_needs_an_earlier_injection_and_both_token_positions():
    def redisclosure(previous_epoch, previous_position, position):
        return way_queries.Redisclosure("s", 1, 3, None, position, previous_epoch, previous_position)

    measured = redisclosure(2, 1000, 31000)
    assert (measured.distance, measured.why_no_distance) == (30000, "")
    first = redisclosure(None, None, 31000)
    assert (first.distance, first.why_no_distance) == (None, "no earlier injection in this window")
    unrecorded = redisclosure(2, 0, 31000)
    assert (unrecorded.distance, unrecorded.why_no_distance) == (None, "token position not recorded (0)")
