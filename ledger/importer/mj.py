"""majordomus `ledger.jsonl` (and its `.archived` rotations) through the shared line importer."""

from __future__ import annotations

import hashlib
from pathlib import Path

from introspect.importer.sources import Source
from ledger.importer.load import mj_ledger_row
from waysweb import bulk
from ledger.models import MjLedgerLine


def sources(repos: list[Path]) -> list[Source]:
    """Archives first (oldest name first), then the live ledger, per repository."""
    found = []
    for repo in repos:
        state = repo / ".ai" / "local" / "state"
        if not state.is_dir():
            continue
        for rank, path in enumerate(sorted(state.glob("ledger.*.jsonl.archived")) + [state / "ledger.jsonl"]):
            if path.is_file():
                found.append(Source("mj_ledger", state, path.name, rank))
    return found


def store_lines(row, candidates, outcomes, sessions) -> list[MjLedgerLine]:
    """Rows for new lines; a line already stored (a rotation re-wrote it) is a duplicate (fault case 35)."""
    shas = [hashlib.sha256(record.data).hexdigest() for _, record in candidates]
    known = set(bulk.chunked_in(MjLedgerLine.objects.values_list("sha256", flat=True), "sha256", set(shas)))
    repo = str(Path(row.root).parent.parent.parent)
    fresh: dict[str, MjLedgerLine] = {}
    for (line, record), sha in zip(candidates, shas, strict=True):
        if sha in known or sha in fresh:
            continue
        fresh[sha] = mj_ledger_row(row, line, record, sha, repo)
        outcomes[(line.offset, line.index)] = "imported"
    return list(fresh.values())
