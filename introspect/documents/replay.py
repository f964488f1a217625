"""agent-ways' `ways session replay --json` document, the `SessionDump` (introspection.md §8, §9).

Replay is an "animation" projection of a session, separate from the turn model of `turns.py`: it
clusters **every** event (not only fire-bearing ones) into frames, keeps a cumulative set of active
ways per compaction window, and adds a summary counted over every event. waysweb prints it from
its database so that it can be diffed against upstream (`frames.rs` `build_frames`,
`cmd/introspect/dump.rs`); hence the exact key order, the text-only readings and the odd-looking
notes below, each of which mirrors upstream.

Pure functions over event-like objects (anything with the `WaysEvent` attributes used here): no
Django, no database. Fields without a column (`kind`, `switch`, `lane`, `agent`, `ancestor`,
`gate_ms`, `unjudged`, `prob_en` …) and the judge's `p_yes` *text* come from the event's raw line,
parsed once per event.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import orjson

from introspect.rules.channels import trigger_label
from introspect.rules.timestamps import utc_second

FRAME_GAP_SECS = 3  # introspection.md §8: a gap of more than 3 s opens a new frame
MAIN = "main"  # the top-level agent's id; a row without agent_id is main's (#814)
TOP_WAYS = 15  # introspection.md §9: top_ways holds at most 15 entries
SHOWN_OUTCOMES = frozenset({"injected", "would_block"})  # §8 step 6: a would-block was injected

# introspection.md §9 "Errors": the three error documents, by kind.
ERRORS = {
    "no_events": "no events recorded yet",
    "no_sessions": "no sessions found",
    "no_session_events": "no events for session",
}

_U64_TEXT = re.compile(r"\+?[0-9]+")  # Rust `str::parse::<u64>`: ASCII digits, an optional `+`
_F64_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_U64_MAX = 2**64 - 1


# ── Inputs ──────────────────────────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Item:
    """One occurrence of an event, with its raw line parsed (shared by every occurrence)."""

    event: object
    data: dict

    @property
    def kind(self) -> str:
        return self.event.event or ""

    @property
    def way(self) -> str:
        return self.event.way or ""

    @property
    def agent_id(self) -> str:
        return self.event.agent_id or ""

    def text(self, key: str) -> str:
        """Upstream reads these fields with `as_str()`: anything but a JSON string reads as ""."""
        value = self.data.get(key)
        return value if isinstance(value, str) else ""


def items_of(events: Sequence) -> list[Item]:
    """Each event as many times as its line occurred (like `turns.expand`), raw parsed once."""
    out: list[Item] = []
    for event in events:
        item = Item(event=event, data=parse_raw(event.raw))
        out.extend([item] * max(getattr(event, "occurrences", 1), 1))
    return out


def parse_raw(raw: str | bytes | None) -> dict:
    try:
        data = orjson.loads(raw or b"{}")
    except orjson.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def timed_timeline(token_timeline: Sequence[tuple[str, int]]) -> list[tuple[datetime, int]]:
    """The token timeline in file order; an entry whose stamp is not UTC Z is skipped (§3.2)."""
    return [(second, k) for ts, k in token_timeline if (second := utc_second(ts)) is not None]


def token_k_at(timeline: list[tuple[datetime, int]], second: datetime) -> int:
    """introspection.md §8 step 2: the last entry not later than `second`, stopping at the first later."""
    found = 0
    for entry_second, k in timeline:
        if entry_second > second:
            break
        found = k
    return found


@dataclass(frozen=True)
class Timeline:
    """`token_k_at` for many frames at once: the walk stops at the first entry later than the
    frame, which is the first whose running maximum is later, found by bisection (the running
    maximum never decreases, even where the timeline itself goes back in time)."""

    entries: list[tuple[datetime, int]]
    running_max: list[datetime]

    @classmethod
    def of(cls, entries: list[tuple[datetime, int]]) -> Timeline:
        running, latest = [], None
        for second, _ in entries:
            latest = second if latest is None or second > latest else latest
            running.append(latest)
        return cls(entries, running)

    def k_at(self, second: datetime) -> int:
        stop = bisect.bisect_right(self.running_max, second)
        return self.entries[stop - 1][1] if stop else 0


# ── Frames (introspection.md §8) ────────────────────────────────────────────────────────────────


@dataclass
class Row:
    """One `active_ways[]` entry: an active (way, agent) row, or a blocked or held row."""

    id: str
    trigger: str
    epoch_fired: int
    token_pos_k: int
    check_fires: int = 0
    is_new: bool = False
    is_redisclosed: bool = False
    refire_threshold_k: int = 0
    outcome: str = "injected"
    p_yes: str = ""
    ancestor: str = ""
    agent: str = ""

    @property
    def order(self) -> tuple[str, bool, str]:
        """§8 step 6: by id, then main's row before the subagents', then by agent."""
        return (self.id, self.agent != MAIN, self.agent)


@dataclass
class Frame:
    epoch: int
    window: int
    timestamp: str
    second: datetime
    elapsed_secs: int
    token_position_k: int
    new_events: list[str] = field(default_factory=list)
    fired_now: list[tuple[str, str]] = field(default_factory=list)
    verdicts: list[Item] = field(default_factory=list)
    held: list[Item] = field(default_factory=list)
    suppressed: list[dict] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)


@dataclass
class WindowState:
    """What carries from frame to frame, cleared at each compaction boundary (§8 step 1)."""

    refire_k: Mapping[str, int]
    fallback_k: int
    timeline: Timeline
    active: dict[tuple[str, str], Row] = field(default_factory=dict)
    checks: dict[tuple[str, str], int] = field(default_factory=dict)
    last_agent: dict[str, str] = field(default_factory=dict)
    epoch: int = 0
    window: int = 1

    @classmethod
    def start(
        cls, refire_k: Mapping[str, int], context_window_k: int, token_timeline: Sequence[tuple[str, int]]
    ) -> WindowState:
        """The state at a session's first frame: a way without a threshold of its own refires at a
        quarter of the context window."""
        return cls(
            refire_k=refire_k,
            fallback_k=context_window_k * 25 // 100,
            timeline=Timeline.of(timed_timeline(token_timeline)),
        )

    def refire_for(self, way: str) -> int:
        return self.refire_k.get(way, self.fallback_k)

    def reset(self) -> None:
        self.active.clear()
        self.checks.clear()
        self.last_agent.clear()
        self.window += 1
        self.epoch = 0


def clusters_of(items: list[Item]) -> list[list[tuple[datetime, Item]]]:
    """§8 "Frames": sort stably by `ts` string, skip non-UTC stamps, split on gaps over 3 s."""
    ordered = sorted(items, key=lambda item: item.event.ts_raw or "")
    clusters: list[list[tuple[datetime, Item]]] = []
    last: datetime | None = None
    for item in ordered:
        second = utc_second(item.event.ts_raw)
        if second is None:
            continue  # introspection.md §3.2: not UTC Z, skipped rather than read as 1970
        if last is None or (second - last).total_seconds() > FRAME_GAP_SECS:
            clusters.append([])
        clusters[-1].append((second, item))
        last = second
    return clusters


def open_frame(
    state: WindowState, cluster: list[tuple[datetime, Item]], start: datetime, first: bool
) -> Frame:
    """§8 steps 1–3: the boundary, the frame's epoch, time and position, and the is_new reset."""
    boundary = not first and any(item.kind == "session_start" for _, item in cluster)
    if boundary:
        state.reset()
    state.epoch += 1
    second, head = cluster[0]
    frame = Frame(
        epoch=state.epoch,
        window=state.window,
        timestamp=head.event.ts_raw,
        second=second,
        elapsed_secs=max(int((second - start).total_seconds()), 0),
        token_position_k=state.timeline.k_at(second),
    )
    if boundary:
        frame.new_events.append(f"⎯ compaction · window {state.window} ⎯")
    for row in state.active.values():
        row.is_new = False
        row.is_redisclosed = False
    return frame


def apply_event(state: WindowState, frame: Frame, item: Item) -> None:
    """§8 step 4: one event of the cluster, in order."""
    kind = item.kind
    if kind == "way_fired" and item.way:
        on_fired(state, frame, item)
    elif kind == "check_fired" and item.event.check_id:
        on_check(state, frame, item)
    elif kind == "way_redisclosed" and item.way:
        on_redisclosed(state, frame, item)
    elif kind == "way_judged" and item.way and item.event.verdict in ("block", "would_block"):
        frame.verdicts.append(item)
    elif kind == "way_suppressed" and item.way and item.text("kind") == "way":
        frame.held.append(item)  # a check's own suppression, or one without `kind`, makes no row
    elif kind == "injection_suppressed":
        frame.suppressed.append(suppression(item))
    # Every other event (a pass verdict, session_start, near-misses …) changes no row, adds no note.


def fired_by(item: Item) -> str:
    return item.agent_id or MAIN


def mark_fired(state: WindowState, frame: Frame, way: str, agent: str) -> None:
    """The way counts as fired in this frame by `agent`, now its last agent in the window."""
    frame.fired_now.append((way, agent))
    state.last_agent[way] = agent


def on_fired(state: WindowState, frame: Frame, item: Item) -> None:
    way, agent = item.way, fired_by(item)
    key = (way, agent)
    mark_fired(state, frame, way, agent)
    # The note names a way new to the window, whichever agent fired it; the row is new to its agent.
    if not any(active_way == way for active_way, _ in state.active):
        frame.new_events.append(f"{way} ({trigger_label(item.event.trigger or '')})")
    state.active[key] = Row(
        id=way,
        trigger=item.event.trigger or "",
        epoch_fired=frame.epoch,
        token_pos_k=frame.token_position_k,
        check_fires=state.checks.get(key, 0),
        is_new=key not in state.active,
        refire_threshold_k=state.refire_for(way),
        agent=agent,
    )


def on_check(state: WindowState, frame: Frame, item: Item) -> None:
    """The count is keyed by the `check` string as if it were a way id (upstream does so)."""
    check = item.event.check_id
    key = (check, item.agent_id or state.last_agent.get(check, MAIN))
    state.checks[key] = state.checks.get(key, 0) + 1
    if key in state.active:
        state.active[key].check_fires = state.checks[key]
    frame.new_events.append(f"✓ check {check}")


def on_redisclosed(state: WindowState, frame: Frame, item: Item) -> None:
    way, agent = item.way, fired_by(item)
    key = (way, agent)
    frame.new_events.append(f"↻ {way}")
    mark_fired(state, frame, way, agent)
    row = state.active.get(key)
    if row is None:
        # After a compaction reset a still-active way first reappears by re-disclosure.
        state.active[key] = Row(
            id=way,
            trigger=item.event.trigger or "",
            epoch_fired=frame.epoch,
            token_pos_k=frame.token_position_k,
            check_fires=state.checks.get(key, 0),
            is_redisclosed=True,
            refire_threshold_k=state.refire_for(way),
            agent=agent,
        )
        return
    # A new injection: the last verdict's mark goes; this frame's verdict, if any, marks it again.
    row.epoch_fired, row.token_pos_k = frame.epoch, frame.token_position_k
    row.is_redisclosed, row.is_new = True, False
    row.outcome, row.p_yes = "injected", ""


def suppression(item: Item) -> dict:
    """An `injection_suppressed` mark on the frame: `{switch, lane, agent?}`."""
    mark = {"switch": item.text("switch"), "lane": item.text("lane")}
    if item.text("agent"):
        mark["agent"] = item.text("agent")
    return mark


def settle_held(state: WindowState, frame: Frame) -> list[Row]:
    """§8 step 5: verdicts first, then withheld ways; returns the frame's blocked and held rows."""
    extra: list[Row] = []
    for item in frame.verdicts:
        if item.event.verdict == "would_block":
            mark_would_block(state, frame, item)
        elif not any(row.id == item.way and row.agent == item.agent_id for row in extra):
            extra.append(
                Row(
                    id=item.way,
                    trigger="judge",
                    epoch_fired=frame.epoch,
                    token_pos_k=frame.token_position_k,
                    outcome="blocked",
                    p_yes=item.text("p_yes"),
                    ancestor=item.text("ancestor"),
                    agent=item.agent_id,
                )
            )
    for item in frame.held:
        outcome = "context_cap" if item.event.reason == "context_cap" else "refire_suppressed"
        agent = fired_by(item)
        if any((row.id, row.agent, row.outcome) == (item.way, agent, outcome) for row in extra):
            continue
        extra.append(
            Row(
                id=item.way,
                trigger=item.event.trigger or "",
                epoch_fired=frame.epoch,
                token_pos_k=frame.token_position_k,
                outcome=outcome,
                agent=agent,
            )
        )
    return extra


def mark_would_block(state: WindowState, frame: Frame, item: Item) -> None:
    """Marks this frame's fires of the way by the verdict's agent (any agent when it names none).

    `p_yes` is the logged text; a JSON number reads as "" upstream, so the row then has none.
    """
    marked = False
    for way, agent in frame.fired_now:
        if way != item.way or (item.agent_id and item.agent_id != agent):
            continue
        row = state.active.get((way, agent))
        if row is not None:
            row.outcome, row.p_yes = "would_block", item.text("p_yes")
            marked = True
    if not marked:
        frame.new_events.append(f"◌ {item.way} (gate {item.text('p_yes')}, shadow)")


def frame_rows(state: WindowState, extra: list[Row], matched: bool) -> list[Row]:
    """§8 step 6: active rows by (epoch_fired, id, agent), then blocked and held rows by (id, agent).

    Rows are copied: the active ones go on changing in later frames.
    """
    active = sorted(state.active.values(), key=lambda row: (row.epoch_fired, *row.order))
    rows = [Row(**vars(row)) for row in active] + sorted(extra, key=lambda row: row.order)
    if matched:
        return rows
    return [row for row in rows if row.outcome in SHOWN_OUTCOMES]


def build_frames(
    items: list[Item], state: WindowState, matched: bool, only_window: int | None = None
) -> list[Frame]:
    """introspection.md §8 `build_frames`: every cluster of every event becomes a frame.

    With `only_window`, the frames of other windows are still built (the state runs through
    them) but get no rows: copying and sorting each frame's active set is most of the work.
    """
    clusters = clusters_of(items)
    frames: list[Frame] = []
    start = clusters[0][0][0] if clusters else None
    for cluster in clusters:
        frame = open_frame(state, cluster, start, first=not frames)
        for _, item in cluster:
            apply_event(state, frame, item)
        extra = settle_held(state, frame)  # always: a would-block verdict marks the active set
        if only_window is None or frame.window == only_window:
            frame.rows = frame_rows(state, extra, matched)
        frames.append(frame)
    return frames


def row_json(row: Row, agent_types: Mapping[str, str]) -> dict:
    """introspection.md §9: every row key always, the optional ones only when not empty."""
    out = {
        "id": row.id,
        "trigger": row.trigger,
        "epoch_fired": row.epoch_fired,
        "token_pos_k": row.token_pos_k,
        "check_fires": row.check_fires,
        "is_new": row.is_new,
        "is_redisclosed": row.is_redisclosed,
        "refire_threshold_k": row.refire_threshold_k,
        "outcome": row.outcome,
    }
    for key in ("p_yes", "ancestor", "agent"):
        if getattr(row, key):
            out[key] = getattr(row, key)
    if row.agent and agent_types.get(row.agent):
        out["agent_type"] = agent_types[row.agent]
    return out


def frame_json(frame: Frame, agent_types: Mapping[str, str]) -> dict:
    out = {
        "epoch": frame.epoch,
        "timestamp": frame.timestamp,
        "elapsed_secs": frame.elapsed_secs,
        "token_position_k": frame.token_position_k,
        "active_ways": [row_json(row, agent_types) for row in frame.rows],
        "new_events": list(frame.new_events),
    }
    if frame.suppressed:
        out["suppressed"] = frame.suppressed  # §9: left out when the frame has none
    return out


# ── Near-misses and summary (introspection.md §9) ───────────────────────────────────────────────


def f64_field(data: dict, key: str) -> float:
    """Text or a JSON number (`field_f64`); absent, "" or unparseable → 0.0."""
    value = data.get(key)
    if isinstance(value, str):
        return float(value) if _F64_TEXT.fullmatch(value) else 0.0
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return 0.0


def u64_text(value: object) -> int | None:
    """Upstream reads `gate_ms` and `unjudged` from text only: a JSON number counts as absent."""
    if isinstance(value, str) and _U64_TEXT.fullmatch(value) and int(value) <= _U64_MAX:
        return int(value)
    return None


def near_miss_epoch(frames: list[Frame], ts_raw: str | None) -> int:
    """The epoch of the last frame not later than the near-miss (whole seconds, §3.2).

    The first frame's epoch when none is, or when the stamp is not UTC Z (it cannot be placed).
    """
    if not frames:
        return 0
    epoch = frames[0].epoch
    second = utc_second(ts_raw)
    if second is None:
        return epoch
    for frame in frames:
        if frame.second > second:
            break
        epoch = frame.epoch
    return epoch


def near_misses_of(items: list[Item], frames: list[Frame]) -> list[dict]:
    return [
        {
            "epoch": near_miss_epoch(frames, item.event.ts_raw),
            "timestamp": item.event.ts_raw or "",
            "way": item.way,
            "prob_en": f64_field(item.data, "prob_en"),
            "prob_multi": f64_field(item.data, "prob_multi"),
            "tau_s": f64_field(item.data, "tau_s"),
            "margin": f64_field(item.data, "margin"),
        }
        for item in items
        if item.kind == "way_nearmiss"
    ]


def round_half_away(value: float) -> int:
    """Rust `f64::round` (halves away from zero), not Python's banker's rounding."""
    floor = math.floor(value)
    return floor + 1 if value - floor >= 0.5 else floor


def percentile(values: list[int], q: float) -> int | None:
    """The value at index round((n − 1) × q) of the sorted values; None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[round_half_away((len(ordered) - 1) * q)]


def gate_summary(items: list[Item]) -> dict:
    """§9 `gate`: the relevance judge's work in the session."""
    verdicts = Counter()
    blocked_ways: Counter = Counter()
    fallbacks: Counter = Counter()
    gate_ms: list[int] = []
    unjudged = 0
    for item in items:
        if item.kind == "way_judged":
            verdict = item.event.verdict
            verdicts[verdict if verdict in ("block", "would_block") else "pass"] += 1
            if verdict == "block" and item.event.way is not None:
                blocked_ways[item.event.way] += 1
        elif item.kind == "gate_fallback":
            fallbacks[(item.event.reason if item.event.reason is not None else "unknown").split(":")[0]] += 1
        elif item.kind == "gate_capped":
            unjudged += u64_text(item.data.get("unjudged")) or 0
        ms = u64_text(item.data.get("gate_ms")) if item.kind in ("way_judged", "gate_fallback") else None
        if ms is not None:
            gate_ms.append(ms)
    return {
        "judged": verdicts.total(),
        "passed": verdicts["pass"],
        "blocked": verdicts["block"],
        "would_block": verdicts["would_block"],
        "unjudged": unjudged,
        "fallbacks": dict(sorted(fallbacks.items())),
        "gate_ms_p50": percentile(gate_ms, 0.5),
        "gate_ms_p95": percentile(gate_ms, 0.95),
        "blocked_ways": dict(sorted(blocked_ways.items())),
    }


def suppressed_summary(items: list[Item]) -> dict:
    """§9 `suppressed`: `injection_suppressed` events, by lane (task = dispatch) and by switch."""
    marks = [item for item in items if item.kind == "injection_suppressed"]
    dispatches = sum(1 for item in marks if item.text("lane") == "task")
    by_switch = Counter(
        item.data["switch"] if isinstance(item.data.get("switch"), str) else "unknown" for item in marks
    )
    return {
        "total": len(marks),
        "dispatches": dispatches,
        "agents": len(marks) - dispatches,
        "by_switch": dict(sorted(by_switch.items())),
    }


def summary_of(items: list[Item], frames: list[Frame], near_miss_count: int) -> dict:
    """§9 `summary`: counted over every event, whatever its `ts` and whatever `--matched`."""
    fires = [item for item in items if item.kind == "way_fired"]
    triggers = Counter(item.event.trigger for item in fires if item.event.trigger is not None)
    way_fires = Counter(item.event.way for item in fires if item.event.way is not None)
    top = sorted(way_fires.items(), key=lambda pair: (-pair[1], pair[0]))[:TOP_WAYS]
    return {
        "epochs": len(frames),
        "duration_secs": frames[-1].elapsed_secs if frames else 0,
        "distinct_ways": len(way_fires),
        "total_fires": len(fires),
        "redisclosures": sum(1 for item in items if item.kind == "way_redisclosed"),
        "checks_fired": sum(1 for item in items if item.kind == "check_fired"),
        "near_misses": near_miss_count,
        "trigger_breakdown": dict(sorted(triggers.items())),
        "top_ways": [{"way": way, "fires": n} for way, n in top],
        "gate": gate_summary(items),
        "suppressed": suppressed_summary(items),
    }


# ── The document ────────────────────────────────────────────────────────────────────────────────


def replay_error(kind: str, session: str | None = None) -> dict:
    """introspection.md §9 "Errors": `no_events`, `no_sessions` or `no_session_events` (with its id)."""
    if kind not in ERRORS:
        raise ValueError(f"unknown replay error {kind!r}; expected one of {sorted(ERRORS)}")
    if kind == "no_session_events":
        if session is None:
            raise ValueError("the no_session_events error names its session")
        return {"error": ERRORS[kind], "session": session}
    return {"error": ERRORS[kind]}


def build_replay(
    *,
    session_id: str,
    project: str | None,
    events: Sequence,
    token_timeline: Sequence[tuple[str, int]],
    refire_k: Mapping[str, int],
    context_window_k: int,
    agent_types: Mapping[str, str] | None = None,
    matched: bool = False,
) -> dict:
    """The `SessionDump` of one session (introspection.md §9), keys in upstream order.

    `events` are the session's events in event order; `project` is that of its first
    session_start (None when it has none); `token_timeline` is the transcript's
    `(timestamp, K tokens)` in file order; `refire_k` today's per-way refire thresholds. A
    session with no events gets the "no events for session" error document, as upstream.
    """
    items = items_of(events)
    if not items:
        return replay_error("no_session_events", session_id)
    state = WindowState.start(refire_k, context_window_k, token_timeline)
    frames = build_frames(items, state, matched)
    near_misses = near_misses_of(items, frames)
    return {
        "session": session_id,
        "project": project if project is not None else "unknown",
        "context_window_k": context_window_k,
        "summary": summary_of(items, frames, len(near_misses)),
        "frames": [frame_json(frame, agent_types or {}) for frame in frames],
        "near_misses": near_misses,
    }


def build_replay_window(
    *,
    session_id: str,
    events: Sequence,
    token_timeline: Sequence[tuple[str, int]],
    refire_k: Mapping[str, int],
    context_window_k: int,
    window: int,
    agent_types: Mapping[str, str] | None = None,
    matched: bool = False,
) -> dict:
    """One compaction window's frames of the `SessionDump`, for the session page's replay panel.

    waysweb's own document, not upstream's: `frames` are exactly the full document's frames of
    window `window` (1-based; none when the session has fewer windows), and `windows` lists every
    window's frame count and the index of its first frame in the full `frames` list, so that a
    client can page through the replay one window at a time. Same inputs as `build_replay`.
    """
    items = items_of(events)
    if not items:
        return replay_error("no_session_events", session_id)
    state = WindowState.start(refire_k, context_window_k, token_timeline)
    frames = build_frames(items, state, matched, only_window=window)
    counts = Counter(frame.window for frame in frames)
    windows, offset = [], 0
    for number in sorted(counts):
        windows.append({"window": number, "frames": counts[number], "offset": offset})
        offset += counts[number]
    return {
        "session": session_id,
        "window": window,
        "frames_total": len(frames),
        "windows": windows,
        "frames": [frame_json(frame, agent_types or {}) for frame in frames if frame.window == window],
    }
