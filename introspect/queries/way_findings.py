"""One way's findings for its page: the controls it claims, each as its latest snapshot (ADR-201:
"a consumer that wants current state reduces by (way, control) to the latest assembled_at"),
with its criterion, tier, firing evidence and label (decisions-and-effectiveness.md §2, §8.7).

One query. Snapshots tie on `assembled_at` only when one run wrote a (way, control) twice; the
row read last (stream order) then wins, as a reader of the ledger top to bottom would keep it.
"""

from __future__ import annotations

from dataclasses import dataclass

from introspect.models import Finding

SHOWN_SESSIONS = 10  # evidence session links per control; the page says how many more


@dataclass(frozen=True)
class ControlRow:
    control: str
    tier: str
    criterion: str | None
    evidence_total: int | None  # None: past a signed 64-bit column (kept in the raw line)
    sessions: list[str]
    first_seen: str | None
    last_seen: str | None
    determination: str | None
    assessed_by: str | None
    assessed_at: str | None
    basis: str | None
    assembled_at: str
    assembled_by: str
    snapshots: int  # rows of this (way, control) in the ledger

    @property
    def shown_sessions(self) -> list[str]:
        return self.sessions[:SHOWN_SESSIONS]

    @property
    def hidden_sessions(self) -> int:
        return max(0, len(self.sessions) - SHOWN_SESSIONS)


@dataclass
class WayFindings:
    """The way's claimed controls; `present` False when no findings ledger was imported."""

    present: bool
    controls: list[ControlRow]


def way_findings(way_id: str, *, present: bool) -> WayFindings:
    """The latest snapshot of each control the way claims, by control."""
    if not present:
        return WayFindings(False, [])
    latest: dict[str, Finding] = {}
    snapshots: dict[str, int] = {}
    rows = Finding.objects.filter(way=way_id).order_by(
        "control", "assembled_at", "order_generation", "order_offset", "order_index"
    )
    for finding in rows.defer("raw", "flags"):
        latest[finding.control] = finding  # the last of its control in this order is the latest
        snapshots[finding.control] = snapshots.get(finding.control, 0) + 1
    return WayFindings(
        True,
        [
            ControlRow(
                f.control,
                f.tier,
                f.criterion,
                f.evidence_total,
                list(f.evidence_sessions),
                f.first_seen,
                f.last_seen,
                f.determination,
                f.assessed_by,
                f.assessed_at,
                f.basis,
                f.assembled_at,
                f.assembled_by,
                snapshots[control],
            )
            for control, f in latest.items()
        ],
    )
