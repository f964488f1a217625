"""majordomus `ledger.jsonl` (and its `.archived` rotations) through the shared line importer."""

from __future__ import annotations

from pathlib import Path

from introspect.importer.sources import Source
from ledger.importer.load import mj_ledger_row
from ledger.models import MjLedgerLine
from lib import bulk, safefs
from lib.hashing import sha256


def sources(repos: list[Path], problems: list[safefs.Problem] | None = None) -> list[Source]:
    """Archives first (oldest name first), then the live ledger, per repository; each file read
    inside its repository only (lib/safefs.py), what is refused put in `problems`."""
    problems = [] if problems is None else problems
    found = []
    for repo in repos:
        state = repo / ".ai" / "local" / "state"
        if not safefs.is_dir(state):
            continue
        archives, live = [], False
        for entry in safefs.entries(repo, state, problems, want=ledger_name):
            if entry.kind != "file":
                continue
            if entry.name == "ledger.jsonl":
                live = True
            elif ledger_name(entry.name):
                archives.append(entry.name)
        names = sorted(archives) + (["ledger.jsonl"] if live else [])
        found += [Source("mj_ledger", state, name, rank, confine_to=str(repo)) for rank, name in enumerate(names)]
    return found


def ledger_name(name: str) -> bool:
    return name == "ledger.jsonl" or (name.startswith("ledger.") and name.endswith(".jsonl.archived"))


def store_lines(row, candidates, outcomes, sessions) -> list[MjLedgerLine]:
    """Rows for new lines; a line already stored (a rotation re-wrote it) is a duplicate (fault case 35)."""
    shas = [sha256(record.data) for _, record in candidates]
    known = set(bulk.chunked_in(MjLedgerLine.objects.values_list("sha256", flat=True), "sha256", set(shas)))
    repo = str(Path(row.root).parent.parent.parent)
    fresh: dict[str, MjLedgerLine] = {}
    for (line, record), sha in zip(candidates, shas, strict=True):
        if sha in known or sha in fresh:
            continue
        fresh[sha] = mj_ledger_row(row, line, record, sha, repo)
        outcomes[(line.offset, line.index)] = "imported"
    return list(fresh.values())
