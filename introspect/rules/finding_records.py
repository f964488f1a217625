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

from introspect.rules.serde_json_read import Pairs
from introspect.rules.serde_structs import (
    BAD_FIELD,
    MALFORMED,
    MISSING_FIELD,
    NONE,
    OPTIONAL_STRING,
    STRING,
    STRINGS,
    U64,
    FieldError,
    MissingError,
    Rejected,
    kind_of,
    read_line,
    required,
    struct_of,
)

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
        raise FieldError(f"unknown variant `{value}`, expected `process` or `outcome`")
    return value


EVIDENCE_FIELDS = {
    "total": U64,
    "sessions": STRINGS,
    "first_seen": OPTIONAL_STRING,
    "last_seen": OPTIONAL_STRING,
}
_evidence = required(
    struct_of(Evidence, EVIDENCE_FIELDS), tuple(EVIDENCE_FIELDS), ("first_seen", "last_seen")
)
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
_finding = required(
    struct_of(Finding, FINDING_FIELDS),
    tuple(FINDING_FIELDS),
    tuple(name for name, spec in FINDING_FIELDS.items() if NONE in spec[0]),
)


def parse_line(raw: bytes | str) -> Finding | Rejected | None:
    """One line of `findings.jsonl`: its finding, `None` for a blank line, else why upstream refuses it."""
    value = read_line(raw)
    if value is None or type(value) is Rejected:
        return value
    if type(value) not in (dict, Pairs, list):
        return Rejected(MALFORMED, f"invalid type: {kind_of(value)}, expected struct Finding")
    try:
        return _finding(value)
    except MissingError as error:
        return Rejected(MISSING_FIELD, str(error))
    except FieldError as error:
        return Rejected(BAD_FIELD, str(error))
