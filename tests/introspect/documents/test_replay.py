"""`ways session replay --json` as agent-ways builds it (introspection.md §8, §9), from events in order."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import orjson
import pytest

from introspect.documents import replay
from introspect.rules.timestamps import utc_second

SESSION = "8f3a2c1d-5e6f-4a7b-9c8d-0e1f2a3b4c5d"


@dataclass
class Ev:
    """The attributes of a WaysEvent that replay reads; `raw` is the line as agent-ways wrote it."""

    event: str
    ts_raw: str
    way: str | None = None
    trigger: str | None = None
    agent_id: str | None = None
    reason: str | None = None
    verdict: str | None = None
    p_yes: float | None = None
    check_id: str | None = None
    occurrences: int = 1
    extra: dict = field(default_factory=dict)
    raw_reads: int = 0

    @property
    def ts(self):
        return utc_second(self.ts_raw)

    @property
    def raw(self) -> str:
        self.raw_reads += 1
        columns = {
            "way": self.way,
            "trigger": self.trigger,
            "agent_id": self.agent_id,
            "reason": self.reason,
            "verdict": self.verdict,
            "check": self.check_id,
        }
        present = {key: value for key, value in columns.items() if value is not None}
        return orjson.dumps({"ts": self.ts_raw, "event": self.event, **present, **self.extra}).decode()


BASE = datetime(2026, 1, 1, tzinfo=UTC)


def at(second: int) -> str:
    return (BASE + timedelta(seconds=second)).strftime("%Y-%m-%dT%H:%M:%SZ")


def start(second: int, project: str = "/p") -> Ev:
    return Ev("session_start", at(second), extra={"project": project, "session": "s1"})


def fired(second: int, way: str, trigger: str = "keyword", **kw) -> Ev:
    return Ev("way_fired", at(second), way=way, trigger=trigger, **kw)


def redisclosed(second: int, way: str, trigger: str = "keyword", **kw) -> Ev:
    return Ev("way_redisclosed", at(second), way=way, trigger=trigger, **kw)


def check(second: int, check_id: str, **kw) -> Ev:
    return Ev("check_fired", at(second), check_id=check_id, trigger="bash", **kw)


def judged(second: int, way: str, verdict: str, p_yes: object = "0.050", **kw) -> Ev:
    extra = {"p_yes": p_yes, **kw.pop("extra", {})}
    number = float(p_yes) if isinstance(p_yes, (str, float)) else None
    return Ev("way_judged", at(second), way=way, verdict=verdict, p_yes=number, extra=extra, **kw)


def held(second: int, way: str, reason: str = "refire", kind: str | None = "way", **kw) -> Ev:
    extra = {"kind": kind} if kind is not None else {}
    return Ev(
        "way_suppressed",
        at(second),
        way=way,
        trigger=kw.pop("trigger", "bash"),
        reason=reason,
        extra=extra,
        **kw,
    )


def nearmiss(ts_raw: str, way: str, **probs) -> Ev:
    return Ev("way_nearmiss", ts_raw, way=way, trigger="prompt", extra=probs)


def build(events, **kw) -> dict:
    args = {
        "session_id": "s1",
        "project": "/p",
        "token_timeline": [],
        "refire_k": {},
        "context_window_k": 200,
    }
    return replay.build_replay(events=events, **{**args, **kw})


def rows(frame: dict) -> list[tuple]:
    return [(row["id"], row.get("agent"), row["outcome"]) for row in frame["active_ways"]]


# ── The 9-event two-window session of agent-ways' introspect tests (introspection.md §13) ─────


def nine_events() -> list[Ev]:
    return [
        Ev("session_start", "2026-07-03T16:52:00Z", extra={"project": "/home/dev/proj", "session": SESSION}),
        Ev(
            "way_fired",
            "2026-07-03T16:52:01Z",
            way="softwaredev/code/testing",
            trigger="semantic:embedding:en",
        ),
        Ev("way_fired", "2026-07-03T16:52:02Z", way="softwaredev/delivery/commits", trigger="keyword"),
        Ev("way_fired", "2026-07-03T16:53:00Z", way="softwaredev/docs/adr", trigger="file"),
        Ev("check_fired", "2026-07-03T16:53:01Z", check_id="softwaredev/delivery/commits"),
        Ev(
            "way_redisclosed",
            "2026-07-03T16:55:00Z",
            way="softwaredev/code/testing",
            trigger="semantic:embedding:en",
        ),
        Ev(
            "way_judged",
            "2026-07-03T16:55:01Z",
            way="itops/incident",
            verdict="block",
            p_yes=0.05,
            extra={"p_yes": "0.050", "threshold": "0.30"},
        ),
        Ev("session_start", "2026-07-03T17:52:00Z", extra={"project": "/home/dev/proj", "session": SESSION}),
        Ev("way_redisclosed", "2026-07-03T17:52:01Z", way="softwaredev/delivery/commits", trigger="keyword"),
    ]


def nine_event_replay(matched: bool = False) -> dict:
    return replay.build_replay(
        session_id=SESSION,
        project="/home/dev/proj",
        events=nine_events(),
        token_timeline=[
            ("2026-07-03T16:52:00Z", 18),
            ("2026-07-03T16:53:00Z", 64),
            ("2026-07-03T16:55:00Z", 132),
            ("2026-07-03T17:52:00Z", 31),
        ],
        refire_k={
            "softwaredev/code/testing": 40,
            "softwaredev/delivery/commits": 30,
            "softwaredev/docs/adr": 80,
        },
        context_window_k=200,
        matched=matched,
    )


NINE_EVENT_DOCUMENT = {
    "session": SESSION,
    "project": "/home/dev/proj",
    "context_window_k": 200,
    "summary": {
        "epochs": 4,
        "duration_secs": 3600,
        "distinct_ways": 3,
        "total_fires": 3,
        "redisclosures": 2,
        "checks_fired": 1,
        "near_misses": 0,
        "trigger_breakdown": {"file": 1, "keyword": 1, "semantic:embedding:en": 1},
        "top_ways": [
            {"way": "softwaredev/code/testing", "fires": 1},
            {"way": "softwaredev/delivery/commits", "fires": 1},
            {"way": "softwaredev/docs/adr", "fires": 1},
        ],
        "gate": {
            "judged": 1,
            "passed": 0,
            "blocked": 1,
            "would_block": 0,
            "unjudged": 0,
            "fallbacks": {},
            "gate_ms_p50": None,
            "gate_ms_p95": None,
            "blocked_ways": {"itops/incident": 1},
        },
        "suppressed": {"total": 0, "dispatches": 0, "agents": 0, "by_switch": {}},
    },
    "frames": [
        {
            "epoch": 1,
            "timestamp": "2026-07-03T16:52:00Z",
            "elapsed_secs": 0,
            "token_position_k": 18,
            "active_ways": [
                {
                    "id": "softwaredev/code/testing",
                    "trigger": "semantic:embedding:en",
                    "epoch_fired": 1,
                    "token_pos_k": 18,
                    "check_fires": 0,
                    "is_new": True,
                    "is_redisclosed": False,
                    "refire_threshold_k": 40,
                    "outcome": "injected",
                    "agent": "main",
                },
                {
                    "id": "softwaredev/delivery/commits",
                    "trigger": "keyword",
                    "epoch_fired": 1,
                    "token_pos_k": 18,
                    "check_fires": 0,
                    "is_new": True,
                    "is_redisclosed": False,
                    "refire_threshold_k": 30,
                    "outcome": "injected",
                    "agent": "main",
                },
            ],
            "new_events": ["softwaredev/code/testing (embed:en)", "softwaredev/delivery/commits (keyword)"],
        },
        {
            "epoch": 2,
            "timestamp": "2026-07-03T16:53:00Z",
            "elapsed_secs": 60,
            "token_position_k": 64,
            "active_ways": [
                {
                    "id": "softwaredev/code/testing",
                    "trigger": "semantic:embedding:en",
                    "epoch_fired": 1,
                    "token_pos_k": 18,
                    "check_fires": 0,
                    "is_new": False,
                    "is_redisclosed": False,
                    "refire_threshold_k": 40,
                    "outcome": "injected",
                    "agent": "main",
                },
                {
                    "id": "softwaredev/delivery/commits",
                    "trigger": "keyword",
                    "epoch_fired": 1,
                    "token_pos_k": 18,
                    "check_fires": 1,
                    "is_new": False,
                    "is_redisclosed": False,
                    "refire_threshold_k": 30,
                    "outcome": "injected",
                    "agent": "main",
                },
                {
                    "id": "softwaredev/docs/adr",
                    "trigger": "file",
                    "epoch_fired": 2,
                    "token_pos_k": 64,
                    "check_fires": 0,
                    "is_new": True,
                    "is_redisclosed": False,
                    "refire_threshold_k": 80,
                    "outcome": "injected",
                    "agent": "main",
                },
            ],
            "new_events": ["softwaredev/docs/adr (file)", "✓ check softwaredev/delivery/commits"],
        },
        {
            "epoch": 3,
            "timestamp": "2026-07-03T16:55:00Z",
            "elapsed_secs": 180,
            "token_position_k": 132,
            "active_ways": [
                {
                    "id": "softwaredev/delivery/commits",
                    "trigger": "keyword",
                    "epoch_fired": 1,
                    "token_pos_k": 18,
                    "check_fires": 1,
                    "is_new": False,
                    "is_redisclosed": False,
                    "refire_threshold_k": 30,
                    "outcome": "injected",
                    "agent": "main",
                },
                {
                    "id": "softwaredev/docs/adr",
                    "trigger": "file",
                    "epoch_fired": 2,
                    "token_pos_k": 64,
                    "check_fires": 0,
                    "is_new": False,
                    "is_redisclosed": False,
                    "refire_threshold_k": 80,
                    "outcome": "injected",
                    "agent": "main",
                },
                {
                    "id": "softwaredev/code/testing",
                    "trigger": "semantic:embedding:en",
                    "epoch_fired": 3,
                    "token_pos_k": 132,
                    "check_fires": 0,
                    "is_new": False,
                    "is_redisclosed": True,
                    "refire_threshold_k": 40,
                    "outcome": "injected",
                    "agent": "main",
                },
            ],
            "new_events": ["↻ softwaredev/code/testing"],
        },
        {
            "epoch": 1,
            "timestamp": "2026-07-03T17:52:00Z",
            "elapsed_secs": 3600,
            "token_position_k": 31,
            "active_ways": [
                {
                    "id": "softwaredev/delivery/commits",
                    "trigger": "keyword",
                    "epoch_fired": 1,
                    "token_pos_k": 31,
                    "check_fires": 0,
                    "is_new": False,
                    "is_redisclosed": True,
                    "refire_threshold_k": 30,
                    "outcome": "injected",
                    "agent": "main",
                },
            ],
            "new_events": ["⎯ compaction · window 2 ⎯", "↻ softwaredev/delivery/commits"],
        },
    ],
    "near_misses": [],
}


def test_it_builds_the_nine_event_two_window_session_exactly():
    document = nine_event_replay()
    assert document == NINE_EVENT_DOCUMENT
    assert orjson.dumps(document) == orjson.dumps(NINE_EVENT_DOCUMENT)  # key order included


def test_it_lists_the_judge_block_only_with_matched_and_changes_nothing_else():
    document = nine_event_replay(matched=True)
    blocked = {
        "id": "itops/incident",
        "trigger": "judge",
        "epoch_fired": 3,
        "token_pos_k": 132,
        "check_fires": 0,
        "is_new": False,
        "is_redisclosed": False,
        "refire_threshold_k": 0,
        "outcome": "blocked",
        "p_yes": "0.050",
    }
    assert document["frames"][2]["active_ways"][-1] == blocked
    document["frames"][2]["active_ways"].pop()
    assert document == NINE_EVENT_DOCUMENT


# ── Frames (introspection.md §8) ────────────────────────────────────────────────────────────


def test_it_opens_a_frame_after_a_gap_over_three_seconds_even_for_a_lone_near_miss():
    document = build(
        [fired(0, "d/a"), fired(3, "d/b"), nearmiss(at(7), "d/n", prob_en="0.4791"), fired(11, "d/c")]
    )
    frames = document["frames"]
    assert [(f["epoch"], f["timestamp"], f["elapsed_secs"]) for f in frames] == [
        (1, at(0), 0),
        (2, at(7), 7),
        (3, at(11), 11),
    ]
    assert frames[1]["new_events"] == [] and [row[0] for row in rows(frames[1])] == ["d/a", "d/b"]
    assert document["summary"]["epochs"] == 3 and document["summary"]["duration_secs"] == 11
    assert document["near_misses"][0]["epoch"] == 2


def test_it_measures_the_gap_from_the_previous_event_and_sorts_by_ts_string_first():
    document = build([fired(9, "d/c"), fired(0, "d/a"), fired(3, "d/b"), fired(6, "d/z")])
    assert len(document["frames"]) == 1
    assert document["frames"][0]["new_events"] == [
        "d/a (keyword)",
        "d/b (keyword)",
        "d/z (keyword)",
        "d/c (keyword)",
    ]


def test_it_opens_a_compaction_window_and_restarts_the_frame_epoch():
    document = build(
        [start(0), fired(1, "d/a"), fired(60, "d/b"), fired(200, "d/x"), start(201), fired(202, "d/c")]
    )
    frames = document["frames"]
    assert [f["epoch"] for f in frames] == [1, 2, 1]
    assert frames[0]["new_events"] == ["d/a (keyword)"]  # the origin session_start is no boundary
    boundary = frames[2]
    assert boundary["timestamp"] == at(200)  # the cluster's first event, whatever its type
    assert boundary["new_events"] == ["⎯ compaction · window 2 ⎯", "d/x (keyword)", "d/c (keyword)"]
    assert [(r["id"], r["epoch_fired"], r["is_new"]) for r in boundary["active_ways"]] == [
        ("d/c", 1, True),
        ("d/x", 1, True),
    ]


def test_it_numbers_a_third_window():
    document = build([start(0), fired(1, "d/a"), start(100), start(200), redisclosed(201, "d/a")])
    assert [f["new_events"][0] for f in document["frames"][1:]] == [
        "⎯ compaction · window 2 ⎯",
        "⎯ compaction · window 3 ⎯",
    ]
    last = document["frames"][-1]["active_ways"]
    assert [(r["id"], r["is_new"], r["is_redisclosed"], r["epoch_fired"]) for r in last] == [
        ("d/a", False, True, 1)
    ]


def test_it_reads_the_token_position_from_the_last_timeline_entry_not_later():
    timeline = [
        ("2026-01-01T00:00:05.900Z", 10),
        ("2026-01-01T00:00:20+00:00", 99),
        ("2026-01-01T00:00:30Z", 30),
        ("2026-01-01T00:00:25Z", 25),
    ]
    document = build(
        [
            fired(0, "d/a"),
            fired(5, "d/b", trigger="file"),
            fired(20, "d/c"),
            fired(28, "d/d"),
            fired(40, "d/e"),
        ],
        token_timeline=timeline,
    )
    frames = document["frames"]
    # 0: nothing yet; 5: .900 is dropped; 20: the +00:00 entry is skipped; 28: the walk stops at the
    # first later entry (30) and never reaches 25; 40: the last entry not later.
    assert [f["token_position_k"] for f in frames] == [0, 10, 10, 10, 25]
    assert [r["token_pos_k"] for r in frames[-1]["active_ways"]] == [0, 10, 10, 10, 25]


def test_it_labels_triggers_as_the_terminal_does():
    labels = {
        "semantic:embedding:en": "embed:en",
        "semantic:embedding:multi": "embed:multi",
        "semantic:embedding": "embed",
        "semantic": "embed",
        "semantic:bash:en": "embed:bash:en",
        "semantic:bash:multi": "embed:bash:multi",
        "keyword": "keyword",
        "check-pull": "check-pull",
    }
    events = [fired(i * 10, f"d/{i}", trigger=trigger) for i, trigger in enumerate(labels)]
    events.append(Ev("way_fired", at(200), way="d/none"))
    notes = [f["new_events"][0] for f in build(events)["frames"]]
    assert notes == [f"d/{i} ({label})" for i, label in enumerate(labels.values())] + ["d/none ()"]


def test_it_keeps_one_row_per_way_and_agent_with_main_first():
    hashed = "h0123456789abcdef"
    document = build(
        [fired(0, "d/a", agent_id="sub1"), fired(1, "d/a"), fired(1, "d/b", agent_id=hashed)],
        agent_types={"sub1": "Explore"},
        refire_k={"d/a": 7},
    )
    frame = document["frames"][0]
    assert frame["new_events"] == ["d/a (keyword)", "d/b (keyword)"]  # a way new to the window, once
    assert frame["active_ways"] == [
        {
            "id": "d/a",
            "trigger": "keyword",
            "epoch_fired": 1,
            "token_pos_k": 0,
            "check_fires": 0,
            "is_new": True,
            "is_redisclosed": False,
            "refire_threshold_k": 7,
            "outcome": "injected",
            "agent": "main",
        },
        {
            "id": "d/a",
            "trigger": "keyword",
            "epoch_fired": 1,
            "token_pos_k": 0,
            "check_fires": 0,
            "is_new": True,
            "is_redisclosed": False,
            "refire_threshold_k": 7,
            "outcome": "injected",
            "agent": "sub1",
            "agent_type": "Explore",
        },
        {
            "id": "d/b",
            "trigger": "keyword",
            "epoch_fired": 1,
            "token_pos_k": 0,
            "check_fires": 0,
            "is_new": True,
            "is_redisclosed": False,
            "refire_threshold_k": 50,
            "outcome": "injected",
            "agent": hashed,
        },
    ]


def test_it_falls_back_to_a_quarter_of_the_window_for_the_refire_threshold():
    document = build([fired(0, "d/a")], context_window_k=1000)
    assert document["frames"][0]["active_ways"][0]["refire_threshold_k"] == 250


def test_it_replaces_a_row_fired_again_and_resets_is_new_next_frame():
    document = build([fired(0, "d/a", trigger="file"), fired(10, "d/a", trigger="keyword")])
    first, second = (f["active_ways"][0] for f in document["frames"])
    assert (first["is_new"], first["epoch_fired"]) == (True, 1)
    assert (second["is_new"], second["epoch_fired"], second["trigger"]) == (False, 2, "keyword")
    assert document["frames"][1]["new_events"] == []  # the way was active: no note


def test_it_counts_checks_by_check_string_and_carries_the_count_into_a_later_fire():
    document = build(
        [
            check(0, "d/c"),  # no row yet: main's count for d/c becomes 1
            fired(10, "d/c"),  # starts from that count
            check(11, "d/c"),  # shows on the active row at once
            fired(20, "d/s", agent_id="sub"),
            check(21, "d/s"),  # no agent_id: the way's last agent in the window
            check(22, "d/s", agent_id="main"),  # main's count, no main row
        ]
    )
    frames = document["frames"]
    assert frames[0]["new_events"] == ["✓ check d/c"] and frames[0]["active_ways"] == []
    assert [r["check_fires"] for r in frames[1]["active_ways"]] == [2]
    assert [(r["id"], r["agent"], r["check_fires"]) for r in frames[2]["active_ways"]] == [
        ("d/c", "main", 2),
        ("d/s", "sub", 1),
    ]
    assert frames[2]["new_events"] == ["d/s (keyword)", "✓ check d/s", "✓ check d/s"]
    assert document["summary"]["checks_fired"] == 4


def test_it_clears_check_counts_at_a_compaction():
    document = build([start(0), fired(1, "d/c"), check(2, "d/c"), start(100), fired(101, "d/c")])
    assert [f["active_ways"][0]["check_fires"] for f in document["frames"]] == [1, 0]


def test_it_marks_a_would_block_until_the_way_fires_or_rediscloses_again():
    document = build(
        [
            judged(0, "d/a", "would_block", "0.200"),
            fired(0, "d/a"),
            fired(10, "d/b"),
            redisclosed(20, "d/a"),
            judged(30, "d/a", "would_block", "0.150"),
            redisclosed(30, "d/a"),
            fired(40, "d/a", trigger="file"),
        ]
    )
    marks = [
        (r["outcome"], r.get("p_yes"))
        for f in document["frames"]
        for r in f["active_ways"]
        if r["id"] == "d/a"
    ]
    assert marks == [
        ("would_block", "0.200"),
        ("would_block", "0.200"),
        ("injected", None),
        ("would_block", "0.150"),
        ("injected", None),
    ]
    assert all(not note.startswith("◌") for f in document["frames"] for note in f["new_events"])


def test_it_notes_a_would_block_that_marks_no_fire_of_its_frame():
    document = build(
        [
            fired(0, "d/a"),
            judged(10, "d/a", "would_block", "0.300"),  # active, but not fired in this frame
            fired(20, "d/b"),
            judged(20, "d/b", "would_block", "0.100", agent_id="sub"),  # main fired it
            fired(30, "d/c", agent_id="sub"),
            judged(30, "d/c", "would_block", "0.250", agent_id="sub"),
        ]
    )
    frames = document["frames"]
    assert frames[1]["new_events"] == ["◌ d/a (gate 0.300, shadow)"]
    assert frames[2]["new_events"] == ["d/b (keyword)", "◌ d/b (gate 0.100, shadow)"]
    assert [(r["id"], r["outcome"]) for r in frames[3]["active_ways"]] == [
        ("d/a", "injected"),
        ("d/b", "injected"),
        ("d/c", "would_block"),
    ]


def test_it_makes_a_block_a_row_beside_the_active_one_for_that_frame_only():
    document = build(
        [
            fired(0, "d/a"),
            judged(1, "d/a", "block", "0.050", extra={"reason": "ancestor", "ancestor": "d"}),
            judged(2, "d/a", "block", "0.040"),  # same (way, agent): one row
            judged(2, "d/a", "block", "0.030", agent_id="sub"),
            fired(10, "d/b"),
        ],
        matched=True,
    )
    first, second = document["frames"]
    assert first["active_ways"][1:] == [
        {
            "id": "d/a",
            "trigger": "judge",
            "epoch_fired": 1,
            "token_pos_k": 0,
            "check_fires": 0,
            "is_new": False,
            "is_redisclosed": False,
            "refire_threshold_k": 0,
            "outcome": "blocked",
            "p_yes": "0.050",
            "ancestor": "d",
        },
        {
            "id": "d/a",
            "trigger": "judge",
            "epoch_fired": 1,
            "token_pos_k": 0,
            "check_fires": 0,
            "is_new": False,
            "is_redisclosed": False,
            "refire_threshold_k": 0,
            "outcome": "blocked",
            "p_yes": "0.030",
            "agent": "sub",
        },
    ]
    assert rows(first)[0] == ("d/a", "main", "injected")
    assert first["new_events"] == ["d/a (keyword)"]  # a block adds no note
    assert rows(second) == [("d/a", "main", "injected"), ("d/b", "main", "injected")]


def test_it_makes_held_rows_for_withheld_ways_deduped_by_way_agent_and_outcome():
    events = [
        fired(0, "d/a"),
        held(1, "d/z", "refire"),
        held(1, "d/z", "refire"),  # the same held row: once
        held(1, "d/z", "context_cap"),
        held(1, "d/m", "refire", agent_id="sub", trigger="prompt"),
        held(1, "d/m", "refire"),
        held(2, "d/k", "refire", kind="check"),  # a check's own suppression: no row
        held(2, "d/n", "refire", kind=None),  # no kind: no row
        judged(2, "d/y", "block", "0.010", agent_id="sub"),
    ]
    frame = build(events, matched=True)["frames"][0]
    assert rows(frame) == [
        ("d/a", "main", "injected"),
        ("d/m", "main", "refire_suppressed"),
        ("d/m", "sub", "refire_suppressed"),
        ("d/y", "sub", "blocked"),
        ("d/z", "main", "refire_suppressed"),
        ("d/z", "main", "context_cap"),
    ]
    assert frame["active_ways"][2] == {
        "id": "d/m",
        "trigger": "prompt",
        "epoch_fired": 1,
        "token_pos_k": 0,
        "check_fires": 0,
        "is_new": False,
        "is_redisclosed": False,
        "refire_threshold_k": 0,
        "outcome": "refire_suppressed",
        "agent": "sub",
    }
    assert frame["new_events"] == ["d/a (keyword)"]


def test_it_lists_only_injected_and_would_block_rows_without_matched():
    events = [
        fired(0, "d/a"),
        judged(0, "d/a", "would_block", "0.2"),
        judged(1, "d/b", "block"),
        held(1, "d/c", "context_cap"),
        judged(2, "d/x", "would_block", "0.1"),
    ]
    default, matched = build(events), build(events, matched=True)
    assert rows(default["frames"][0]) == [("d/a", "main", "would_block")]
    assert rows(matched["frames"][0]) == [
        ("d/a", "main", "would_block"),
        ("d/b", None, "blocked"),
        ("d/c", "main", "context_cap"),
    ]
    for key in ("summary", "near_misses"):
        assert default[key] == matched[key]
    assert (
        default["frames"][0]["new_events"]
        == matched["frames"][0]["new_events"]
        == ["d/a (keyword)", "◌ d/x (gate 0.1, shadow)"]
    )


def test_it_puts_injection_suppressed_marks_on_their_frame_and_leaves_the_key_out_otherwise():
    events = [
        Ev(
            "injection_suppressed",
            at(0),
            reason="subagents_off",
            extra={"switch": "session", "lane": "subagent_start", "agent": "Explore"},
        ),
        Ev("injection_suppressed", at(1), extra={"switch": "config", "lane": "task"}),
        fired(10, "d/a"),
        Ev("injection_suppressed", at(20), extra={"lane": "prompt", "agent": ""}),
    ]
    document = build(events)
    frames = document["frames"]
    assert frames[0]["suppressed"] == [
        {"switch": "session", "lane": "subagent_start", "agent": "Explore"},
        {"switch": "config", "lane": "task"},
    ]
    assert frames[0]["new_events"] == [] and "suppressed" not in frames[1]
    assert frames[2]["suppressed"] == [{"switch": "", "lane": "prompt"}]
    assert document["summary"]["suppressed"] == {
        "total": 3,
        "dispatches": 1,
        "agents": 2,
        "by_switch": {"config": 1, "session": 1, "unknown": 1},
    }


def test_it_skips_non_utc_events_in_frames_but_counts_them_in_the_summary():
    odd = Ev("way_fired", "2026-01-01T00:00:05+00:00", way="d/odd", trigger="bash")
    document = build([fired(0, "d/a"), odd, fired(2, "d/b"), Ev("way_redisclosed", "", way="d/a")])
    assert len(document["frames"]) == 1
    assert [row[0] for row in rows(document["frames"][0])] == ["d/a", "d/b"]
    summary = document["summary"]
    assert (summary["total_fires"], summary["distinct_ways"], summary["redisclosures"]) == (3, 3, 1)
    assert summary["trigger_breakdown"] == {"bash": 1, "keyword": 2}


def test_it_expands_repeated_lines_and_parses_each_raw_line_once():
    event = fired(0, "d/a", occurrences=2)
    verdict = judged(0, "d/a", "would_block", "0.3", occurrences=3)
    document = build([event, verdict])
    assert document["summary"]["total_fires"] == 2 and document["summary"]["gate"]["would_block"] == 3
    assert document["summary"]["top_ways"] == [{"way": "d/a", "fires": 2}]
    assert (event.raw_reads, verdict.raw_reads) == (1, 1)


# ── Summary and near-misses (introspection.md §9) ───────────────────────────────────────────


def test_it_takes_gate_percentiles_rounding_halves_away_from_zero():
    times = [60, 10, 50, 20, 40]
    events = [judged(i, "d/a", "pass", extra={"gate_ms": str(ms)}) for i, ms in enumerate(times)]
    events += [
        Ev("gate_fallback", at(10), reason="deadline", extra={"gate_ms": "30"}),
        Ev("gate_fallback", at(11), reason="config: no key"),
        Ev("gate_fallback", at(12), extra={"gate_ms": 999}),  # a JSON number is not read
        judged(13, "d/b", "block", extra={"gate_ms": " 70"}),  # nor is text that is not digits
        Ev("way_judged", at(14), way="d/c"),  # no verdict: passed
        Ev("gate_capped", at(15), extra={"judged": "8", "unjudged": "2"}),
        Ev("gate_capped", at(16), extra={"unjudged": 3}),
    ]
    gate = build(events)["summary"]["gate"]
    # six values 10..60: p50 at round(2.5) = 3 (banker's rounding would say 2), p95 at round(4.75) = 5
    assert gate == {
        "judged": 7,
        "passed": 6,
        "blocked": 1,
        "would_block": 0,
        "unjudged": 2,
        "fallbacks": {"config": 1, "deadline": 1, "unknown": 1},
        "gate_ms_p50": 40,
        "gate_ms_p95": 60,
        "blocked_ways": {"d/b": 1},
    }


def test_it_takes_the_higher_of_two_gate_times_as_the_median():
    events = [
        judged(0, "d/a", "pass", extra={"gate_ms": "100"}),
        judged(0, "d/b", "pass", extra={"gate_ms": "200"}),
    ]
    gate = build(events)["summary"]["gate"]
    assert (gate["gate_ms_p50"], gate["gate_ms_p95"]) == (200, 200)


def test_it_orders_top_ways_by_fires_then_id_and_keeps_fifteen():
    events = [fired(0, f"w/{n:02d}") for n in range(20)]
    events += [fired(1, "w/19"), fired(1, "w/18"), fired(1, "w/19")]
    summary = build(events)["summary"]
    assert summary["top_ways"][:3] == [
        {"way": "w/19", "fires": 3},
        {"way": "w/18", "fires": 2},
        {"way": "w/00", "fires": 1},
    ]
    assert len(summary["top_ways"]) == 15 and summary["top_ways"][-1] == {"way": "w/12", "fires": 1}
    assert summary["distinct_ways"] == 20


def test_it_gives_a_near_miss_the_epoch_of_the_last_frame_not_later_and_reads_floats():
    events = [
        start(0),
        fired(1, "d/a"),
        nearmiss(at(3), "d/n1", prob_en="0.4791", prob_multi="", tau_s="0.5000", margin=0.0209),
        start(100),
        nearmiss("2026-01-01T00:01:41.700Z", "d/n2", prob_en="x"),
        fired(200, "d/b"),
        nearmiss(at(202), "d/n3", score_en="0.4410"),
        nearmiss("2026-01-01T00:03:22+00:00", "d/n4", tau_s="0.5"),
    ]
    document = build(events)
    assert [f["epoch"] for f in document["frames"]] == [1, 1, 2]
    assert document["near_misses"] == [
        {
            "epoch": 1,
            "timestamp": at(3),
            "way": "d/n1",
            "prob_en": 0.4791,
            "prob_multi": 0.0,
            "tau_s": 0.5,
            "margin": 0.0209,
        },
        {
            "epoch": 1,
            "timestamp": "2026-01-01T00:01:41.700Z",
            "way": "d/n2",
            "prob_en": 0.0,
            "prob_multi": 0.0,
            "tau_s": 0.0,
            "margin": 0.0,
        },
        {
            "epoch": 2,
            "timestamp": at(202),
            "way": "d/n3",
            "prob_en": 0.0,
            "prob_multi": 0.0,
            "tau_s": 0.0,
            "margin": 0.0,
        },
        # not UTC Z: in no frame and not placeable in time, so the first frame's epoch
        {
            "epoch": 1,
            "timestamp": "2026-01-01T00:03:22+00:00",
            "way": "d/n4",
            "prob_en": 0.0,
            "prob_multi": 0.0,
            "tau_s": 0.5,
            "margin": 0.0,
        },
    ]
    assert document["summary"]["near_misses"] == 4


def test_it_gives_a_near_miss_epoch_zero_when_there_are_no_frames():
    document = build([nearmiss("2026-01-01 00:00:00", "d/n")])
    assert document["frames"] == [] and document["near_misses"][0]["epoch"] == 0
    assert (document["summary"]["epochs"], document["summary"]["duration_secs"]) == (0, 0)


def test_it_says_unknown_when_the_session_has_no_session_start():
    document = build([fired(0, "d/a")], project=None)
    assert document["project"] == "unknown"
    assert list(document) == ["session", "project", "context_window_k", "summary", "frames", "near_misses"]


def test_it_marks_no_p_yes_when_the_verdict_logs_it_as_a_json_number():
    events = [
        fired(0, "d/a"),
        judged(0, "d/a", "would_block", 0.2),
        judged(0, "d/b", "block", 0.05),
        judged(0, "d/c", "would_block", 0.3),
    ]
    frame = build(events, matched=True)["frames"][0]
    assert [(r["id"], r["outcome"], "p_yes" in r) for r in frame["active_ways"]] == [
        ("d/a", "would_block", False),
        ("d/b", "blocked", False),
    ]
    assert frame["new_events"] == ["d/a (keyword)", "◌ d/c (gate , shadow)"]


# ── Errors (introspection.md §9) ────────────────────────────────────────────────────────────


def test_it_builds_the_three_error_documents():
    assert replay.replay_error("no_events") == {"error": "no events recorded yet"}
    assert replay.replay_error("no_sessions") == {"error": "no sessions found"}
    assert replay.replay_error("no_session_events", "s9") == {
        "error": "no events for session",
        "session": "s9",
    }
    assert orjson.dumps(replay.replay_error("no_session_events", "s9")) == (
        b'{"error":"no events for session","session":"s9"}'
    )


def test_it_answers_a_session_without_events_with_the_error_document():
    assert build([], session_id="s9") == {"error": "no events for session", "session": "s9"}


def test_it_refuses_an_unknown_error_kind_or_a_session_error_without_its_session():
    with pytest.raises(ValueError):
        replay.replay_error("nope")
    with pytest.raises(ValueError):
        replay.replay_error("no_session_events")


# ── One window at a time (the session page's replay panel) ──────────────────────────────────────


def three_windows() -> list[Ev]:
    return [
        start(0),
        fired(1, "d/a"),
        fired(10, "d/b"),
        judged(11, "d/b", "would_block"),
        start(100),
        redisclosed(101, "d/a"),
        fired(110, "d/c"),
        held(111, "d/c"),
        start(200),
        fired(201, "d/a"),
        check(210, "d/a"),
    ]


@pytest.mark.parametrize("matched", [False, True])
def test_it_serves_exactly_the_full_documents_frames_of_one_window(matched):
    events = three_windows()
    full = build(events, matched=matched)
    offset = 0
    for window, count in ((1, 2), (2, 2), (3, 2)):
        doc = replay.build_replay_window(
            events=events,
            session_id="s1",
            token_timeline=[],
            refire_k={},
            context_window_k=200,
            window=window,
            matched=matched,
        )
        assert doc["frames"] == full["frames"][offset : offset + count]
        assert doc["frames_total"] == len(full["frames"]) == 6
        assert doc["windows"] == [
            {"window": 1, "frames": 2, "offset": 0},
            {"window": 2, "frames": 2, "offset": 2},
            {"window": 3, "frames": 2, "offset": 4},
        ]
        offset += count


def test_it_serves_no_frames_for_a_window_the_session_does_not_have():
    doc = replay.build_replay_window(
        events=three_windows(),
        session_id="s1",
        token_timeline=[],
        refire_k={},
        context_window_k=200,
        window=4,
    )
    assert doc["frames"] == [] and doc["frames_total"] == 6 and doc["window"] == 4
