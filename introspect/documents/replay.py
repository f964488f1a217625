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

This module builds the two documents; their parts are `replay_items.py` (events and the token
timeline), `replay_frames.py` (frames and their rows) and `replay_summary.py` (near-misses, summary).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from introspect.documents.replay_frames import WindowState, build_frames, frame_json
from introspect.documents.replay_items import items_of
from introspect.documents.replay_summary import near_misses_of, summary_of

# introspection.md §9 "Errors": the three error documents, by kind.
ERRORS = {
    "no_events": "no events recorded yet",
    "no_sessions": "no sessions found",
    "no_session_events": "no events for session",
}


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
