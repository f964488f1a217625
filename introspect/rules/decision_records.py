"""The records of agent-ways' decision log (`decisions.jsonl`), typed as upstream's reader types them.

agent-ways `tools/ways-core/src/decisions.rs` (@8e1a61ba): `enum Record` is serde's internally tagged
`kind` (`scan` or `pull`), every struct `#[serde(default)]`. So a missing field takes its default, an
unknown field is ignored, and the whole line is refused (`parse_line` returns a `Rejected` with the
reason) when the kind is missing or unknown, when a known field has the wrong type (a string where a
number goes, `null` for a field that is not optional, a float or a negative number for an integer,
an integer past u32 for `rank`), or when a known field is repeated. serde's derived structs also take
a JSON array, field by field in declaration order, and so does this reader.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from introspect.rules.serde_json_read import Pairs
from introspect.rules.serde_structs import (
    BAD_FIELD,
    BOOLEAN,
    MALFORMED,
    OPTIONAL_F64,
    OPTIONAL_STRING,
    OPTIONAL_U32,
    OPTIONAL_U64,
    STRING,
    STRINGS,
    U64,
    FieldError,
    Rejected,
    kind_of,
    optional_struct,
    read_line,
    sequence,
    struct_of,
)

# Why a line is not a record, besides serde_structs' MALFORMED and BAD_FIELD.
MISSING_KIND = "missing_kind"
UNKNOWN_KIND = "unknown_kind"


@dataclass(slots=True)
class Candidate:
    """One of the top candidates a scan logged."""

    way: str = ""
    cosine: float | None = None
    share: float | None = None
    margin: float | None = None


@dataclass(slots=True)
class Outcome:
    """What became of one way a scan matched or nearly matched."""

    way: str = ""
    result: str = ""
    rank: int | None = None
    channel: str | None = None
    p: float | None = None
    p_yes: float | None = None
    verdict: str | None = None
    threshold: float | None = None
    mode: str | None = None
    ancestor: str | None = None
    shortfall: float | None = None
    tau_s: float | None = None
    prob_en: float | None = None
    prob_multi: float | None = None


@dataclass(slots=True)
class Judge:
    """How the relevance gate ran on a scan (`off`, `idle`, `judged` or `fallback`)."""

    status: str = ""
    reason: str | None = None
    engine: str | None = None
    model: str | None = None
    judge_ms: int | None = None
    capped: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Scan:
    """A `kind: scan` record: one prompt or task scan."""

    ts: str = ""
    scan_id: str = ""
    session: str = ""
    agent: str = ""
    epoch: int = 0
    turn_start: bool = False
    token_position: int | None = None
    surface: str = ""
    hook_event: str = ""
    scope: str = ""
    project: str = ""
    lane: str | None = None
    basis: str | None = None
    sidecar: bool = False
    candidates: list[Candidate] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    judge: Judge | None = None


@dataclass(slots=True)
class Pull:
    """A `kind: pull` record: one `ways_read` the hook saw, stamped or refused."""

    ts: str = ""
    session: str = ""
    agent: str = ""
    epoch: int = 0
    token_position: int | None = None
    way: str = ""
    window: str = ""
    out_of_band: bool = False
    stamped: bool = False
    reason: str | None = None
    scan_id: str | None = None


Record = Scan | Pull


_candidate = struct_of(
    Candidate, {"way": STRING, "cosine": OPTIONAL_F64, "share": OPTIONAL_F64, "margin": OPTIONAL_F64}
)
_outcome = struct_of(
    Outcome,
    {
        "way": STRING,
        "result": STRING,
        "rank": OPTIONAL_U32,
        "channel": OPTIONAL_STRING,
        "p": OPTIONAL_F64,
        "p_yes": OPTIONAL_F64,
        "verdict": OPTIONAL_STRING,
        "threshold": OPTIONAL_F64,
        "mode": OPTIONAL_STRING,
        "ancestor": OPTIONAL_STRING,
        "shortfall": OPTIONAL_F64,
        "tau_s": OPTIONAL_F64,
        "prob_en": OPTIONAL_F64,
        "prob_multi": OPTIONAL_F64,
    },
)
_judge = struct_of(
    Judge,
    {
        "status": STRING,
        "reason": OPTIONAL_STRING,
        "engine": OPTIONAL_STRING,
        "model": OPTIONAL_STRING,
        "judge_ms": OPTIONAL_U64,
        "capped": STRINGS,
    },
)
_scan = struct_of(
    Scan,
    {
        "ts": STRING,
        "scan_id": STRING,
        "session": STRING,
        "agent": STRING,
        "epoch": U64,
        "turn_start": BOOLEAN,
        "token_position": OPTIONAL_U64,
        "surface": STRING,
        "hook_event": STRING,
        "scope": STRING,
        "project": STRING,
        "lane": OPTIONAL_STRING,
        "basis": OPTIONAL_STRING,
        "sidecar": BOOLEAN,
        "candidates": sequence(_candidate),
        "outcomes": sequence(_outcome),
        "judge": optional_struct(_judge),
    },
)
_pull = struct_of(
    Pull,
    {
        "ts": STRING,
        "session": STRING,
        "agent": STRING,
        "epoch": U64,
        "token_position": OPTIONAL_U64,
        "way": STRING,
        "window": STRING,
        "out_of_band": BOOLEAN,
        "stamped": BOOLEAN,
        "reason": OPTIONAL_STRING,
        "scan_id": OPTIONAL_STRING,
    },
)
_KINDS = {"scan": _scan, "pull": _pull}


def parse_line(raw: bytes | str) -> Record | Rejected | None:
    """`decisions::parse_line`: the record of one line, `None` for a blank line, else why it is none."""
    value = read_line(raw)
    return value if value is None or type(value) is Rejected else _record(value)


def _record(value: Any) -> Record | Rejected:
    # serde's internally tagged enum: the tag is taken out of an object (the structs have no `kind`
    # field, so they pass over it), or is an array's first element.
    shape = type(value)
    if shape is dict:
        tags = [value["kind"]] if "kind" in value else []
        body: Any = value
    elif shape is Pairs:
        tags = [item for key, item in value if key == "kind"]
        if len(tags) > 1:
            return Rejected(BAD_FIELD, "duplicate field `kind`")
        body = value
    elif shape is list:
        tags, body = value[:1], value[1:]
    else:
        return Rejected(MALFORMED, f"invalid type: {kind_of(value)}, expected internally tagged enum Record")
    if not tags:
        return Rejected(MISSING_KIND, "missing field `kind`")
    kind = tags[0]
    if type(kind) is not str:
        return Rejected(UNKNOWN_KIND, f"invalid type: {kind_of(kind)}, expected variant identifier")
    read = _KINDS.get(kind)
    if read is None:
        return Rejected(UNKNOWN_KIND, f"unknown variant `{kind}`, expected `scan` or `pull`")
    try:
        return read(body)
    except FieldError as error:
        return Rejected(BAD_FIELD, str(error))
