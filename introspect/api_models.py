"""The JSON documents waysweb prints and serves, as pydantic models (introspection.md §2, §9, §10).

Field names, order and omissions follow agent-ways' `ways session … --json` exactly; waysweb only
adds keys (`usage`, `transcript` on list entries). Serialise with `exclude_none=True`: a field
upstream omits when empty, false or zero is set to None by the builder.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict


class Out(BaseModel):
    model_config = ConfigDict(extra="forbid")
    # Top-level keys printed as null rather than left out (`scope`, `session`).
    always: ClassVar[tuple[str, ...]] = ()


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
    always: ClassVar[tuple[str, ...]] = ("scope",)
    scope: str | None
    count: int
    sessions: list[ListEntry]


class SemanticFire(Out):
    score: float
    way: str
    surface: str
    redisclosed: bool


class JudgeBlock(Out):
    way: str
    ts: str
    verdict: str
    p_yes: float
    threshold: float
    mode: str
    engine: str
    model: str
    judge_ms: int
    reason: str | None = None
    ancestor: str | None = None


class Fires(Out):
    always: ClassVar[tuple[str, ...]] = ("session",)
    session: str | None
    total: int
    fires: list[SemanticFire]
    judge_blocks: list[JudgeBlock] | None = None  # present exactly with --matched


class Error(Out):
    error: str
    session: str | None = None


def dump(document: Out) -> dict:
    """The document as upstream prints it: None means "left out", except the keys it prints as null."""
    data = document.model_dump(mode="json", exclude_none=True)
    return {name: data.get(name) for name in type(document).model_fields
            if name in data or name in type(document).always}
