"""The JSON documents waysweb prints and serves, as pydantic models (introspection.md §2, §9, §10).

Field names, order and omissions follow agent-ways' `ways session … --json` exactly; waysweb only
adds keys (`usage`, `transcript` on list entries). Serialise with `dump()`: an optional field (one
with a None default) is left out when None — builders set None where upstream omits an empty,
false or zero value — while a required nullable field prints as null (`scope`, `gate_ms_p50`).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MatchDetail(Out):
    matched_span: str
    confidence: str = "keyed"


class JudgeVerdict(Out):
    verdict: str
    p_yes: float
    threshold: float
    mode: str
    engine: str
    model: str
    judge_ms: int
    reason: str | None = None
    ancestor: str | None = None


class FiredWay(Out):
    way_id: str
    trigger_channel: str
    gated: bool | None = None  # omitted when false
    suppressed: str | None = None
    redisclosed: bool | None = None  # omitted when false
    fire_score: float | None = None
    way_path: str | None = None
    criteria: dict[str, str]
    match_detail: MatchDetail | None = None
    judge: JudgeVerdict | None = None


class Turn(Out):
    epoch: int
    token_position: int
    ts: str
    transcript_uuid: str | None = None
    join_confidence: str
    fired_ways: list[FiredWay]


class IntrospectionSummary(Out):
    turns: int
    distinct_ways: int
    total_fires: int
    redisclosures: int | None = None  # omitted when 0, like the three after it
    gated_candidates: int | None = None
    suppressed_candidates: int | None = None
    judge_blocked: int | None = None
    keyed_turns: int


class SessionIntrospection(Out):
    id: str
    project: str
    window_k: int
    summary: IntrospectionSummary
    turns: list[Turn]


class Usage(Out):
    input_tokens: int
    output_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int


class ListEntry(Out):
    id: str
    ts: str
    project: str
    event_count: int
    way_fires: int
    duration_secs: int
    usage: Usage
    transcript: str  # present | gone | none (waysweb addition)


class SessionList(Out):
    scope: str | None
    count: int
    sessions: list[ListEntry]


class SemanticFire(Out):
    score: float
    way: str
    surface: str
    redisclosed: bool


class JudgeBlock(JudgeVerdict):
    """A judge verdict that blocked a way, with where and when (the /fires listing)."""

    way: str
    ts: str


class Fires(Out):
    session: str | None
    total: int
    fires: list[SemanticFire]
    judge_blocks: list[JudgeBlock] | None = None  # present exactly with --matched


class Error(Out):
    error: str
    session: str | None = None


def dump(document: Out) -> dict:
    """The document as upstream prints it."""
    return _plain(document)


def _plain(value):
    if isinstance(value, BaseModel):
        out = {}
        for name, info in type(value).model_fields.items():
            item = getattr(value, name)
            if item is None and not info.is_required():
                continue  # optional and absent: upstream leaves the key out
            out[name] = _plain(item)
        return out
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


# `ways session replay --json` (introspection.md §9). The builder in introspect/replay.py emits plain
# dicts in upstream's key order; these models are the contract the tests hold it to.
class TopWay(Out):
    way: str
    fires: int


class Gate(Out):
    judged: int
    passed: int
    blocked: int
    would_block: int
    unjudged: int
    fallbacks: dict[str, int]
    gate_ms_p50: int | None
    gate_ms_p95: int | None
    blocked_ways: dict[str, int]


class SuppressedSummary(Out):
    total: int
    dispatches: int
    agents: int
    by_switch: dict[str, int]


class ReplaySummary(Out):
    epochs: int
    duration_secs: int
    distinct_ways: int
    total_fires: int
    redisclosures: int
    checks_fired: int
    near_misses: int
    trigger_breakdown: dict[str, int]
    top_ways: list[TopWay]
    gate: Gate
    suppressed: SuppressedSummary


class ActiveWay(Out):
    id: str
    trigger: str
    epoch_fired: int
    token_pos_k: int
    check_fires: int
    is_new: bool
    is_redisclosed: bool
    refire_threshold_k: int
    outcome: str
    p_yes: str | None = None
    ancestor: str | None = None
    agent: str | None = None
    agent_type: str | None = None


class SuppressedLane(Out):
    switch: str
    lane: str
    agent: str | None = None


class Frame(Out):
    epoch: int
    timestamp: str
    elapsed_secs: int
    token_position_k: int
    active_ways: list[ActiveWay]
    new_events: list[str]
    suppressed: list[SuppressedLane] | None = None


class NearMiss(Out):
    epoch: int
    timestamp: str
    way: str
    prob_en: float
    prob_multi: float
    tau_s: float
    margin: float


class SessionDump(Out):
    session: str
    project: str
    context_window_k: int
    summary: ReplaySummary
    frames: list[Frame]
    near_misses: list[NearMiss]


# The replay panel's window of the `SessionDump` (waysweb's own, replay.py `build_replay_window`).
class WindowCount(Out):
    window: int
    frames: int
    offset: int


class ReplayWindow(Out):
    session: str
    window: int
    frames_total: int
    windows: list[WindowCount]
    frames: list[Frame]
