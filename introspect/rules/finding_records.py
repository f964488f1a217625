"""The rows of agent-ways' findings ledger (`findings.jsonl`, ADR-201), typed as upstream types them.

agent-ways `tools/ways-core/src/finding.rs` (`struct Finding`, `struct FiringEvidence`): serde's
derived `Deserialize` without `#[serde(default)]`, so a missing field refuses the line unless it is an
`Option` (missing reads as null), an unknown field is ignored, a known field of the wrong type or a
repeated one refuses the line, `tier` is `process` or `outcome`, and `evidence.total` is a u64.
A line upstream would refuse is no finding: `parse_line` returns a `Rejected` with the reason
(decisions-and-effectiveness.md §2.2), which the importer quarantines.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from introspect.rules.decision_records import (
    BAD_FIELD,
    MALFORMED,
    NONE,
    OPTIONAL_STRING,
    STRING,
    STRINGS,
    U64,
    Rejected,
    _FieldError,
    _kind,
    _struct,
)
from introspect.rules.rust_json import rust_trim
from introspect.rules.serde_json_read import Pairs, SerdeError, loads

MISSING_FIELD = "missing_field"  # a field that is not an Option is absent

TIERS = ("process", "outcome")


@dataclass(slots=True)
class Evidence:
    """The firing evidence the row was assembled from: `way_fired` count, sessions, first and last ts."""

    total: int = 0
    sessions: list[str] = field(default_factory=list)
    first_seen: str | None = None
    last_seen: str | None = None


@dataclass(slots=True)
class Finding:
    """One assembled finding: a claimed (way, control), its criterion and evidence, its (empty) label."""

    way: str = ""
    control: str = ""
    criterion: str | None = None
    tier: str = ""
    evidence: Evidence = field(default_factory=Evidence)
    determination: str | None = None
    assessed_by: str | None = None
    assessed_at: str | None = None
    basis: str | None = None
    assembled_at: str = ""
    assembled_by: str = ""


def _tier(value: str) -> str:
    if value not in TIERS:
        raise _FieldError(f"unknown variant `{value}`, expected `process` or `outcome`")
    return value


def _required(read, names: tuple[str, ...], optional: tuple[str, ...]):
    """serde without `#[serde(default)]`: every field but an Option must be there (by key or position)."""

    def check(value: Any):
        read_value = read(value)  # a wrong type first, as serde meets fields in order
        if type(value) is list:
            if len(value) < len(names):
                raise _MissingError(f"invalid length {len(value)}, expected {len(names)} elements")
        else:
            keys = {key for key, _ in value} if type(value) is Pairs else set(value)
            for name in names:
                if name not in keys and name not in optional:
                    raise _MissingError(f"missing field `{name}`")
        return read_value

    return check


class _MissingError(_FieldError):
    pass


EVIDENCE_FIELDS = {
    "total": U64,
    "sessions": STRINGS,
    "first_seen": OPTIONAL_STRING,
    "last_seen": OPTIONAL_STRING,
}
_evidence = _required(_struct(Evidence, EVIDENCE_FIELDS), tuple(EVIDENCE_FIELDS), ("first_seen", "last_seen"))
FINDING_FIELDS = {
    "way": STRING,
    "control": STRING,
    "criterion": OPTIONAL_STRING,
    "tier": ((str,), _tier),
    "evidence": ((dict, Pairs, list), _evidence),
    "determination": OPTIONAL_STRING,
    "assessed_by": OPTIONAL_STRING,
    "assessed_at": OPTIONAL_STRING,
    "basis": OPTIONAL_STRING,
    "assembled_at": STRING,
    "assembled_by": STRING,
}
_finding = _required(
    _struct(Finding, FINDING_FIELDS),
    tuple(FINDING_FIELDS),
    tuple(name for name, spec in FINDING_FIELDS.items() if NONE in spec[0]),
)


def parse_line(raw: bytes | str) -> Finding | Rejected | None:
    """One line of `findings.jsonl`: its finding, `None` for a blank line, else why upstream refuses it."""
    line = rust_trim(raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw)
    if not line:
        return None
    try:
        value = loads(line)
    except SerdeError as error:
        return Rejected(MALFORMED, str(error))
    if type(value) not in (dict, Pairs, list):
        return Rejected(MALFORMED, f"invalid type: {_kind(value)}, expected struct Finding")
    try:
        return _finding(value)
    except _MissingError as error:
        return Rejected(MISSING_FIELD, str(error))
    except _FieldError as error:
        return Rejected(BAD_FIELD, str(error))
