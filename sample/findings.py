"""The sample's findings ledger (`findings.jsonl`, ADR-201; decisions-and-effectiveness.md §2), assembled
from the events the sessions logged, as `ways-audit assemble --write` would have written it.

Two runs of the assembler, each appending a snapshot of every claimed (way, control): the first before the
sample's last sessions, so a way's evidence grows between snapshots and the way page shows the latest.
Evidence folds `way_fired` events only (§2.2: `way_redisclosed` is not counted), logged before the run.
Derived from the built sessions without drawing from the random generator, so adding it changes no other
file. `determination` and its provenance stay null: nothing in agent-ways labels a finding (§2.3).
"""

from __future__ import annotations

from datetime import datetime

from sample import formats
from sample.state import Home
from sample.timeline import STATE

# Claimed controls, as a way's provenance sidecar lists them; a criterion makes the row outcome-tier.
CLAIMS: tuple[tuple[str, str, str | None], ...] = (
    ("security/secrets", "NIST IA-5", "no credential is written to a tracked file"),
    ("security/secrets", "NIST SC-28", None),
    ("softwaredev/code/testing", "NIST SA-11", "every change ships with a test that fails without it"),
    ("softwaredev/delivery/commits", "NIST CM-3", "commits follow conventional format"),
    ("softwaredev/delivery/commits", "NIST CM-5", None),
)
RUNS = ("2026-11-05T00:00:00Z", "2026-11-09T00:00:00Z")  # each `assemble --write` run, UTC


def stamp(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def evidence(h: Home, way: str, before: datetime) -> dict:
    """`index_firing` for one way: fires logged before the run, their sessions in first-seen order."""
    fires = sorted(
        (e["dt"], e["d"].get("session"))
        for e in h.events
        if e["d"].get("event") == "way_fired" and e["d"].get("way") == way and e["dt"] < before
    )
    sessions = list(dict.fromkeys(sid for _, sid in fires if sid))
    return {
        "total": len(fires),
        "sessions": sessions,
        "first_seen": stamp(fires[0][0]) if fires else None,
        "last_seen": stamp(fires[-1][0]) if fires else None,
    }


def findings_ledger(h: Home) -> None:
    """Write `findings.jsonl` where agent-ways keeps it: one line per claimed (way, control) per run."""
    lines = []
    for run in RUNS:
        before = datetime.fromisoformat(run.replace("Z", "+00:00"))
        for way, control, criterion in sorted(CLAIMS, key=lambda c: (c[0], c[1])):
            row = {
                "way": way,
                "control": control,
                "criterion": criterion,
                "tier": "outcome" if criterion else "process",
                "evidence": evidence(h, way, before),
                "determination": None,
                "assessed_by": None,
                "assessed_at": None,
                "basis": None,
                "assembled_at": run,
                "assembled_by": "ways-audit",
            }
            lines.append(formats.dumps(row))
    h.put_text(f"{STATE}/findings.jsonl", formats.jsonl(lines))
