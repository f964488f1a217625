"""The pydantic models the importer read events-log and transcript lines with, kept here as the
reference its plain readings (rules/event_fields.py, importer/transcripts.py) are compared against:
the importer no longer imports pydantic (a no-op `manage.py ingest` paid for it on every start)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, StrictStr, ValidationError

from introspect.rules.event_fields import KNOWN_EVENTS, schema_gen, str_or_float, str_or_u64

Num = Annotated[float | None, BeforeValidator(str_or_float)]
U64 = Annotated[int | None, BeforeValidator(str_or_u64)]


class EventLine(BaseModel):
    """The promoted columns of any events-log line (formats-agent-ways.md §12)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    ts: StrictStr | None = None
    event: StrictStr | None = None
    session: StrictStr | None = None
    project: StrictStr | None = None
    way: StrictStr | None = None
    domain: StrictStr | None = None
    trigger: StrictStr | None = None
    scope: StrictStr | None = None
    agent_id: StrictStr | None = None
    model: StrictStr | None = None
    token_position: U64 = None
    fire_score: Num = None
    surface: StrictStr | None = None
    matched_span: StrictStr | None = None
    reason: StrictStr | None = None
    verdict: StrictStr | None = None
    p_yes: Num = None
    threshold: Num = None
    check: StrictStr | None = None
    prob_en: Num = None
    prob_multi: Num = None
    tau_s: Num = None
    floor: Num = None
    margin: Num = None
    score_en: Num = None
    score_multi: Num = None
    thr_en: Num = None
    thr_multi: Num = None
    floor_en: Num = None
    floor_multi: Num = None


def model_event(obj: dict) -> tuple[dict, tuple[str, ...]]:
    """What the model made of an events-log object, as `schema.validate_event` gives it."""
    flags: list[str] = []
    try:
        line = EventLine.model_validate(obj)
    except ValidationError as exc:
        bad = sorted({str(err["loc"][0]) for err in exc.errors() if err["loc"]})
        line = EventLine.model_validate({k: v for k, v in obj.items() if k not in bad})
        flags.append("unparsed:" + ",".join(bad))
    if line.event not in KNOWN_EVENTS:
        flags.append("unknown_type")
    fields = line.model_dump()
    fields["schema_gen"] = schema_gen(fields)
    return fields, tuple(flags)


class Envelope(BaseModel):
    """The transcript line fields waysweb reads (camelCase as Claude Code writes them)."""

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)

    type: str | None = None
    uuid: str | None = None
    parentUuid: str | None = None
    logicalParentUuid: str | None = None
    sessionId: str | None = None
    timestamp: str | None = None
    isSidechain: bool | None = None
    agentId: str | None = None
    isMeta: bool | None = None
    isCompactSummary: bool | None = None
    promptId: str | None = None
    requestId: str | None = None
    version: str | None = None
    cwd: str | None = None
    subtype: str | None = None


def model_envelope(obj: dict) -> tuple[dict, list[str]]:
    """What the model made of a transcript line's envelope, as `transcripts.envelope` gives it."""
    try:
        return Envelope.model_validate(obj).model_dump(), []
    except ValidationError as exc:
        bad = sorted({str(err["loc"][0]) for err in exc.errors() if err["loc"]})
        env = Envelope.model_validate({k: v for k, v in obj.items() if k not in bad})
        return env.model_dump(), ["unparsed:" + ",".join(bad)]
