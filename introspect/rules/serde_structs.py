"""serde's derived `Deserialize` of Rust structs, as agent-ways' readers apply it to a JSON line.

The decision log (decision_records.py) and the findings ledger (finding_records.py) are read by
upstream with serde: a line is trimmed (`str::trim`), blank lines skipped, the rest read by
serde_json; a struct is read from an object by key or from an array by position, a field of the
wrong type or a repeated one refuses the whole line. Each field is a spec below; a line upstream
refuses is a `Rejected` with the reason, which the importer quarantines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from introspect.rules.rust_json import rust_trim
from introspect.rules.serde_json_read import Pairs, SerdeError, loads

U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1

# Why a line is not a record. Blank lines are neither records nor rejected.
MALFORMED = "malformed"  # not JSON serde_json reads
BAD_FIELD = "bad_field"  # a known field of the wrong type, or repeated
MISSING_FIELD = "missing_field"  # a field that is not an Option is absent (structs without defaults)


@dataclass(frozen=True, slots=True)
class Rejected:
    """A non-blank line that is no record, and why (one of the reason codes above, and the detail)."""

    reason: str
    detail: str


class FieldError(ValueError):
    pass


NONE = type(None)


def kind_of(value: Any) -> str:
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


def in_range(limit: int):
    def check(value: int | None) -> int | None:
        if value is not None and not 0 <= value <= limit:
            raise FieldError(f"invalid value: integer `{value}`, expected u{limit.bit_length()}")
        return value

    return check


def to_f64(value: float | int | None) -> float | None:
    return value if value is None or type(value) is float else float(value)


def strings(value: list) -> list:
    for item in value:
        if type(item) is not str:
            raise FieldError(f"invalid type: {kind_of(item)}, expected a string")
    return list(value)


# A field is (the exact types its JSON value may have, the conversion after that check or None). Exact
# types, so a bool is no integer and `Pairs` (an object with a repeated key) is no sequence.
STRING = ((str,), None)
OPTIONAL_STRING = ((str, NONE), None)
BOOLEAN = ((bool,), None)
U64 = ((int,), in_range(U64_MAX))
OPTIONAL_U64 = ((int, NONE), in_range(U64_MAX))
OPTIONAL_U32 = ((int, NONE), in_range(U32_MAX))
OPTIONAL_F64 = ((float, int, NONE), to_f64)
STRINGS = ((list,), strings)
# The value types a field's conversion leaves as they are, so a plan may skip it.
_AS_IS = {OPTIONAL_U64: (NONE,), OPTIONAL_U32: (NONE,), OPTIONAL_F64: (float, NONE)}


def sequence(read) -> tuple:
    return (list,), lambda value: [read(item) for item in value]


def optional_struct(read) -> tuple:
    # serde's derived structs read a map by key or a sequence by position
    return (dict, Pairs, list, NONE), lambda value: None if value is None else read(value)


def struct_of(cls: type, fields: dict[str, tuple]):
    """serde's derived `Deserialize` of a `#[serde(default)]` struct: from an object by key (unknown keys
    ignored, a repeated known key refused) or from an array by position (surplus elements refused)."""
    names = tuple(fields)

    def field_value(key: str, item: Any) -> Any:
        allowed, convert = fields[key]
        if type(item) not in allowed:
            expected = " or ".join("null" if t is NONE else t.__name__ for t in allowed)
            raise FieldError(f"invalid type: {kind_of(item)}, expected {expected} for `{key}`")
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
                        raise FieldError(f"duplicate field `{key}`")
                    seen[key] = field_value(key, item)
            return cls(**seen)
        if kind is list:
            if len(value) > len(names):
                raise FieldError(f"invalid length {len(value)}, expected fewer elements in array")
            return cls(**{name: field_value(name, item) for name, item in zip(names, value, strict=False)})
        raise FieldError(f"invalid type: {kind_of(value)}, expected struct {cls.__name__}")

    return read


class MissingError(FieldError):
    pass


def required(read, names: tuple[str, ...], optional: tuple[str, ...]):
    """serde without `#[serde(default)]`: every field but an Option must be there (by key or position)."""

    def check(value: Any):
        read_value = read(value)  # a wrong type first, as serde meets fields in order
        if type(value) is list:
            if len(value) < len(names):
                raise MissingError(f"invalid length {len(value)}, expected {len(names)} elements")
        else:
            keys = {key for key, _ in value} if type(value) is Pairs else set(value)
            for name in names:
                if name not in keys and name not in optional:
                    raise MissingError(f"missing field `{name}`")
        return read_value

    return check


def decode_line(raw: bytes | str) -> str:
    """A line's text as upstream reads it: `String::from_utf8_lossy` (U+FFFD per invalid sequence)."""
    return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw


def read_line(raw: bytes | str) -> Any:
    """A line's JSON value as serde_json reads it; `None` for a blank line, a `Rejected` when it is no JSON."""
    line = rust_trim(decode_line(raw))
    if not line:
        return None
    try:
        return loads(line)
    except SerdeError as error:
        return Rejected(MALFORMED, str(error))
