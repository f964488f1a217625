"""findings.jsonl lines read as upstream's serde derive reads `struct Finding` (ADR-201): missing
Options are null, unknown keys ignored, anything else upstream refuses is a Rejected with its reason."""

from __future__ import annotations

import orjson
import pytest

from introspect.rules.finding_records import (
    BAD_FIELD,
    MALFORMED,
    MISSING_FIELD,
    Evidence,
    Finding,
    Rejected,
    parse_line,
)

# decisions-and-effectiveness.md §2.2, built from finding.rs's test fixture values.
ROW = {
    "way": "sd/commits",
    "control": "NIST CM-3",
    "criterion": "commits follow conventional format",
    "tier": "outcome",
    "evidence": {
        "total": 3,
        "sessions": ["s1", "s2"],
        "first_seen": "2026-05-30T10:00:00Z",
        "last_seen": "2026-06-02T10:00:00Z",
    },
    "determination": None,
    "assessed_by": None,
    "assessed_at": None,
    "basis": None,
    "assembled_at": "2026-07-02T00:00:00Z",
    "assembled_by": "ways-audit",
}


def line(**changes) -> bytes:
    row = {**ROW, **changes}
    return orjson.dumps({key: value for key, value in row.items() if value is not ...})


def test_the_assembled_row_reads_field_by_field():
    assert parse_line(line()) == Finding(
        way="sd/commits",
        control="NIST CM-3",
        criterion="commits follow conventional format",
        tier="outcome",
        evidence=Evidence(3, ["s1", "s2"], "2026-05-30T10:00:00Z", "2026-06-02T10:00:00Z"),
        assembled_at="2026-07-02T00:00:00Z",
        assembled_by="ways-audit",
    )


def test_a_missing_option_is_null_and_an_unknown_key_is_ignored():
    finding = parse_line(line(criterion=..., determination=..., future_key={"a": 1}))
    assert isinstance(finding, Finding)
    assert (finding.criterion, finding.determination) == (None, None)


def test_a_blank_line_is_no_finding_and_no_rejection():
    assert parse_line(b" \t\r") is None


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b'{"way":', MALFORMED),
        (b"[1,2", MALFORMED),
        (b"42", MALFORMED),
        (b"[" * 200 + b"]" * 200, MALFORMED),  # past serde_json's recursion limit
        (line(way=...), MISSING_FIELD),
        (line(evidence={"sessions": []}), MISSING_FIELD),
        (b'["sd/commits"]', MISSING_FIELD),
        (line(tier="proof"), BAD_FIELD),
        (line(way=7), BAD_FIELD),
        (line(evidence={**ROW["evidence"], "total": -1}), BAD_FIELD),
        (line().replace(b'"total":3', b'"total":18446744073709551616'), BAD_FIELD),  # past u64: a float
        (line(evidence={**ROW["evidence"], "total": 1.5}), BAD_FIELD),
        (line(evidence={**ROW["evidence"], "sessions": [1]}), BAD_FIELD),
        (line(assembled_at=None), BAD_FIELD),
        (line()[:-1] + b',"way":"x"}', BAD_FIELD),  # a repeated known field
    ],
)
def test_a_line_upstream_refuses_is_rejected_with_its_reason(data, reason):
    rejected = parse_line(data)
    assert isinstance(rejected, Rejected)
    assert rejected.reason == reason
    assert rejected.detail
