"""The replay's frames (introspection.md §8 `build_frames`, upstream `frames.rs`): every event clustered
into frames, the active ways of each compaction window carried from frame to frame, and each frame
printed as its `SessionDump` entry (§9, keys in upstream order). No Django."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from introspect.documents.replay_items import Item, Timeline, timed_timeline
from introspect.rules.channels import trigger_label
from introspect.rules.timestamps import utc_second

FRAME_GAP_SECS = 3  # introspection.md §8: a gap of more than 3 s opens a new frame
MAIN = "main"  # the top-level agent's id; a row without agent_id is main's (#814)
SHOWN_OUTCOMES = frozenset({"injected", "would_block"})  # §8 step 6: a would-block was injected


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
