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

from introspect.rules.rust_json import rust_trim
from introspect.rules.serde_json_read import Pairs, SerdeError, loads

U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1

# Why a line is not a record. Blank lines are neither records nor rejected.
MALFORMED = "malformed"  # not JSON serde_json reads
MISSING_KIND = "missing_kind"
UNKNOWN_KIND = "unknown_kind"
BAD_FIELD = "bad_field"  # a known field of the wrong type, or repeated


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


@dataclass(frozen=True, slots=True)
class Rejected:
    """A non-blank line that is no record, and why (one of the reason codes above, and the detail)."""

    reason: str
    detail: str


class _FieldError(ValueError):
    pass


def _string(value: Any) -> str:
    if isinstance(value, str):
        return value
    raise _FieldError(f"invalid type: {_kind(value)}, expected a string")


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise _FieldError(f"invalid type: {_kind(value)}, expected a boolean")


def _unsigned(limit: int):
    def read(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _FieldError(f"invalid type: {_kind(value)}, expected an unsigned integer")
        if not 0 <= value <= limit:
            raise _FieldError(f"invalid value: integer `{value}`, expected u{limit.bit_length()}")
        return value

    return read


def _f64(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _FieldError(f"invalid type: {_kind(value)}, expected f64")
    return float(value)


def _optional(read):
    def optional(value: Any):
        return None if value is None else read(value)

    return optional


def _sequence(read):
    def sequence(value: Any) -> list:
        if not isinstance(value, list) or isinstance(value, Pairs):
            raise _FieldError(f"invalid type: {_kind(value)}, expected a sequence")
        return [read(item) for item in value]

    return sequence


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean `{str(value).lower()}`"
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{value!r}`"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict | Pairs):
        return "map"
    return "sequence"


def _struct(cls: type, fields: dict[str, Any]):
    """serde's derived `Deserialize` of a `#[serde(default)]` struct: from an object by key (unknown keys
    ignored, a repeated known key refused) or from an array by position (surplus elements refused)."""
    names = tuple(fields)

    def read(value: Any):
        if isinstance(value, Pairs):
            seen: dict[str, Any] = {}
            for key, item in value:
                if key in fields:
                    if key in seen:
                        raise _FieldError(f"duplicate field `{key}`")
                    seen[key] = fields[key](item)
            return cls(**seen)
        if isinstance(value, dict):
            return cls(**{key: fields[key](item) for key, item in value.items() if key in fields})
        if isinstance(value, list):
            if len(value) > len(names):
                raise _FieldError(f"invalid length {len(value)}, expected fewer elements in array")
            return cls(**{name: fields[name](item) for name, item in zip(names, value, strict=False)})
        raise _FieldError(f"invalid type: {_kind(value)}, expected struct {cls.__name__}")

    return read


_string_or_none = _optional(_string)
_f64_or_none = _optional(_f64)
_u64 = _unsigned(U64_MAX)

_candidate = _struct(
    Candidate, {"way": _string, "cosine": _f64_or_none, "share": _f64_or_none, "margin": _f64_or_none}
)
_outcome = _struct(
    Outcome,
    {
        "way": _string,
        "result": _string,
        "rank": _optional(_unsigned(U32_MAX)),
        "channel": _string_or_none,
        "p": _f64_or_none,
        "p_yes": _f64_or_none,
        "verdict": _string_or_none,
        "threshold": _f64_or_none,
        "mode": _string_or_none,
        "ancestor": _string_or_none,
        "shortfall": _f64_or_none,
        "tau_s": _f64_or_none,
        "prob_en": _f64_or_none,
        "prob_multi": _f64_or_none,
    },
)
_judge = _struct(
    Judge,
    {
        "status": _string,
        "reason": _string_or_none,
        "engine": _string_or_none,
        "model": _string_or_none,
        "judge_ms": _optional(_u64),
        "capped": _sequence(_string),
    },
)
_scan = _struct(
    Scan,
    {
        "ts": _string,
        "scan_id": _string,
        "session": _string,
        "agent": _string,
        "epoch": _u64,
        "turn_start": _boolean,
        "token_position": _optional(_u64),
        "surface": _string,
        "hook_event": _string,
        "scope": _string,
        "project": _string,
        "lane": _string_or_none,
        "basis": _string_or_none,
        "sidecar": _boolean,
        "candidates": _sequence(_candidate),
        "outcomes": _sequence(_outcome),
        "judge": _optional(_judge),
    },
)
_pull = _struct(
    Pull,
    {
        "ts": _string,
        "session": _string,
        "agent": _string,
        "epoch": _u64,
        "token_position": _optional(_u64),
        "way": _string,
        "window": _string,
        "out_of_band": _boolean,
        "stamped": _boolean,
        "reason": _string_or_none,
        "scan_id": _string_or_none,
    },
)
_KINDS = {"scan": _scan, "pull": _pull}


def decode_line(raw: bytes | str) -> str:
    """A line's text as upstream reads it: `String::from_utf8_lossy` (U+FFFD per invalid sequence)."""
    return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw


def is_blank(line: str) -> bool:
    """Upstream skips a line that is empty after `str::trim` without counting it."""
    return not rust_trim(line)


def parse_line(raw: bytes | str) -> Record | Rejected | None:
    """`decisions::parse_line`: the record of one line, `None` for a blank line, else why it is none."""
    line = rust_trim(decode_line(raw))
    if not line:
        return None
    try:
        value = loads(line)
    except SerdeError as error:
        return Rejected(MALFORMED, str(error))
    return _record(value)


def _record(value: Any) -> Record | Rejected:
    # serde's internally tagged enum: the tag is taken out of an object, or is an array's first element.
    if isinstance(value, Pairs):
        tags = [item for key, item in value if key == "kind"]
        if len(tags) > 1:
            return Rejected(BAD_FIELD, "duplicate field `kind`")
        body: Any = Pairs((key, item) for key, item in value if key != "kind")
    elif isinstance(value, dict):
        tags = [value["kind"]] if "kind" in value else []
        body = {key: item for key, item in value.items() if key != "kind"}
    elif isinstance(value, list):
        tags, body = value[:1], value[1:]
    else:
        return Rejected(MALFORMED, f"invalid type: {_kind(value)}, expected internally tagged enum Record")
    if not tags:
        return Rejected(MISSING_KIND, "missing field `kind`")
    kind = tags[0]
    if not isinstance(kind, str):
        return Rejected(UNKNOWN_KIND, f"invalid type: {_kind(kind)}, expected variant identifier")
    read = _KINDS.get(kind)
    if read is None:
        return Rejected(UNKNOWN_KIND, f"unknown variant `{kind}`, expected `scan` or `pull`")
    try:
        return read(body)
    except _FieldError as error:
        return Rejected(BAD_FIELD, str(error))
