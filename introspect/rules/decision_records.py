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


NONE = type(None)


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


def _in_range(limit: int):
    def check(value: int | None) -> int | None:
        if value is not None and not 0 <= value <= limit:
            raise _FieldError(f"invalid value: integer `{value}`, expected u{limit.bit_length()}")
        return value

    return check


def _to_f64(value: float | int | None) -> float | None:
    return value if value is None or type(value) is float else float(value)


def _strings(value: list) -> list:
    for item in value:
        if type(item) is not str:
            raise _FieldError(f"invalid type: {_kind(item)}, expected a string")
    return list(value)


# A field is (the exact types its JSON value may have, the conversion after that check or None). Exact
# types, so a bool is no integer and `Pairs` (an object with a repeated key) is no sequence.
STRING = ((str,), None)
OPTIONAL_STRING = ((str, NONE), None)
BOOLEAN = ((bool,), None)
U64 = ((int,), _in_range(U64_MAX))
OPTIONAL_U64 = ((int, NONE), _in_range(U64_MAX))
OPTIONAL_U32 = ((int, NONE), _in_range(U32_MAX))
OPTIONAL_F64 = ((float, int, NONE), _to_f64)
STRINGS = ((list,), _strings)
# The value types a field's conversion leaves as they are, so a plan may skip it.
_AS_IS = {OPTIONAL_U64: (NONE,), OPTIONAL_U32: (NONE,), OPTIONAL_F64: (float, NONE)}


def _sequence(read) -> tuple:
    return (list,), lambda value: [read(item) for item in value]


def _optional_struct(read) -> tuple:
    # serde's derived structs read a map by key or a sequence by position
    return (dict, Pairs, list, NONE), lambda value: None if value is None else read(value)


def _struct(cls: type, fields: dict[str, tuple]):
    """serde's derived `Deserialize` of a `#[serde(default)]` struct: from an object by key (unknown keys
    ignored, a repeated known key refused) or from an array by position (surplus elements refused)."""
    names = tuple(fields)

    def field_value(key: str, item: Any) -> Any:
        allowed, convert = fields[key]
        if type(item) not in allowed:
            expected = " or ".join("null" if t is NONE else t.__name__ for t in allowed)
            raise _FieldError(f"invalid type: {_kind(item)}, expected {expected} for `{key}`")
        return item if convert is None else convert(item)

    plans: dict[tuple, tuple] = {}

    def plan(value: dict, signature: tuple) -> tuple:
        # What reading an object of these keys and value types takes: the known keys with their
        # conversion (None for none), or the object as it is when every key is known and none converts.
        steps = []
        for key, item_type in zip(*signature, strict=True):
            spec = fields.get(key)
            if spec is None:
                continue
            allowed, convert = spec
            if item_type not in allowed:
                field_value(key, value[key])
            steps.append((key, None if item_type in _AS_IS.get(spec, ()) else convert))
        direct = len(steps) == len(value) and all(convert is None for _, convert in steps)
        found = (direct, tuple(steps))
        if len(plans) < 4096:
            plans[signature] = found
        return found

    def read(value: Any):
        kind = type(value)
        if kind is dict:  # the common case: one plan per shape of object
            signature = (tuple(value), tuple(map(type, value.values())))
            direct, steps = plans.get(signature) or plan(value, signature)
            if direct:
                return cls(**value)
            return cls(
                **{key: value[key] if convert is None else convert(value[key]) for key, convert in steps}
            )
        if kind is Pairs:
            seen: dict[str, Any] = {}
            for key, item in value:
                if key in fields:
                    if key in seen:
                        raise _FieldError(f"duplicate field `{key}`")
                    seen[key] = field_value(key, item)
            return cls(**seen)
        if kind is list:
            if len(value) > len(names):
                raise _FieldError(f"invalid length {len(value)}, expected fewer elements in array")
            return cls(**{name: field_value(name, item) for name, item in zip(names, value, strict=False)})
        raise _FieldError(f"invalid type: {_kind(value)}, expected struct {cls.__name__}")

    return read


_candidate = _struct(
    Candidate, {"way": STRING, "cosine": OPTIONAL_F64, "share": OPTIONAL_F64, "margin": OPTIONAL_F64}
)
_outcome = _struct(
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
_judge = _struct(
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
_scan = _struct(
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
        "candidates": _sequence(_candidate),
        "outcomes": _sequence(_outcome),
        "judge": _optional_struct(_judge),
    },
)
_pull = _struct(
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
        return Rejected(MALFORMED, f"invalid type: {_kind(value)}, expected internally tagged enum Record")
    if not tags:
        return Rejected(MISSING_KIND, "missing field `kind`")
    kind = tags[0]
    if type(kind) is not str:
        return Rejected(UNKNOWN_KIND, f"invalid type: {_kind(kind)}, expected variant identifier")
    read = _KINDS.get(kind)
    if read is None:
        return Rejected(UNKNOWN_KIND, f"unknown variant `{kind}`, expected `scan` or `pull`")
    try:
        return read(body)
    except _FieldError as error:
        return Rejected(BAD_FIELD, str(error))
