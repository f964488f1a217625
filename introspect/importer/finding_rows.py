"""agent-ways' findings ledger (`findings.jsonl`, ADR-201) as Finding rows: the findings store
(importer/stores.py).

A line is read as upstream's reader reads it (rules/finding_records.py, serde's rules): a line
upstream refuses (malformed, a missing or mistyped field, an unknown tier) is quarantined with its
reason, a blank line is inert. Every snapshot row is kept, de-duplicated by the sha256 of its line:
`ways-audit assemble --write` only appends, and a line read again (a replay, a new generation of a
file rewritten by hand) is the row it was.
"""

from __future__ import annotations

import operator

from introspect.importer import parser, stores, tailer
from introspect.importer.decision_rows import clean, placed
from introspect.models import Finding, SourceFile
from introspect.rules import finding_records
from lib import bulk, column_fit

NAMES = tuple(f.attname for f in Finding._meta.concrete_fields if not f.primary_key)
finding_row = operator.itemgetter(*NAMES)


def parse_finding_line(data: bytes) -> parser.Parsed:
    """One line as upstream reads it: a finding, blank (inert), or why upstream refuses it (quarantined)."""
    parsed = finding_records.parse_line(data)
    if parsed is None:
        return parser.Parsed(inert="blank")
    if isinstance(parsed, finding_records.Rejected):
        return parser.Parsed(quarantine=(parsed.reason, parsed.detail))
    # Record.obj holds the typed finding here, not a dict: only this store reads it.
    return parser.Parsed(records=[parser.Record(obj=parsed, data=data)])  # type: ignore[arg-type]


def store_findings(row: SourceFile, lines: stores.NewLines, sessions: set[str]) -> bulk.Rows:
    """The findings not stored yet, as rows; a line stored before stays where it was first read."""
    candidates, shas, outcomes = lines.candidates, lines.shas, lines.outcomes
    known = set(bulk.chunked_in(Finding.objects.values_list("sha256", flat=True), "sha256", set(shas)))
    rows = bulk.Rows(Finding, NAMES, [])
    for (line, record), sha in zip(candidates, shas, strict=True):
        if sha in known:
            continue
        known.add(sha)
        rows.values.append(finding_row(finding_values(row, line, record, sha)))
        outcomes[(line.offset, line.index)] = "imported"
    return rows


def finding_values(row: SourceFile, line: tailer.Line, record: parser.Record, sha: str) -> dict:
    """The new finding's column values (attname → value)."""
    typed: finding_records.Finding = record.obj  # type: ignore[assignment]
    flags: list[str] = [f"nul_prefix={line.nul_prefix}"] if line.nul_prefix else []
    evidence = typed.evidence
    values = {
        "way": typed.way,
        "control": typed.control,
        "criterion": typed.criterion,
        "tier": typed.tier,
        "evidence_total": evidence.total,
        "first_seen": evidence.first_seen,
        "last_seen": evidence.last_seen,
        "determination": typed.determination,
        "assessed_by": typed.assessed_by,
        "assessed_at": typed.assessed_at,
        "basis": typed.basis,
        "assembled_at": typed.assembled_at,
        "assembled_by": typed.assembled_by,
    }
    for name, value in values.items():
        values[name] = clean(value, name, flags)
    values["evidence_sessions"] = [clean(sid, "evidence_sessions", flags) for sid in evidence.sessions]
    flags += column_fit.fit(Finding, values)
    values.update(placed(row, line, record, sha, flags))
    return values
