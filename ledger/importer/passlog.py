"""When each ledger source was last read and what its passes changed, in a small file.

The rows say what a ledger root holds now (entries, knowledge records, ADR files); they do not say
when the importer last looked at it, nor how often a file changed under it — a pass that finds a
file unchanged writes nothing. The status page shows both, so each ledger pass writes them here:
one small file beside the database per ledger pass (a follower runs one only when sessions changed
or every 30 s), as progress.py and health.py keep theirs, and without a table of its own.
Best effort: a full disk loses the "last read" column, never an import.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import orjson
from django.conf import settings

from lib import statefile

NAME = "ledger-import.json"

ENTRIES = "ledger_entries"
KNOWLEDGE = "knowledge"
ADRS = "adrs"
MEMORY = "memory"  # Claude Code's auto-memory, per Claude directory
KINDS = (ENTRIES, KNOWLEDGE, ADRS, MEMORY)


@dataclass(frozen=True)
class Read:
    """One root read by one pass: how many files it listed and what the pass found new or changed."""

    kind: str
    root: str
    files: int
    added: int = 0
    changed: int = 0
    gone: int = 0


def path() -> Path:
    return Path(settings.DATA_DIR) / NAME


def key(kind: str, root: str) -> str:
    return f"{kind}\t{root}"


def record(reads: list[Read], *, at: datetime | None = None) -> None:
    """Add one pass's reads: the counts accumulate per root, `read_at` is this pass, and
    `changed_at` the last pass that found something new, changed or gone there."""
    at = at or datetime.now(UTC)
    log = load()
    stamp = at.isoformat(timespec="seconds")
    for read in reads:
        before = log.get(key(read.kind, read.root), {})
        entry = {
            "kind": read.kind,
            "root": read.root,
            "files": read.files,
            "added": before.get("added", 0) + read.added,
            "changed": before.get("changed", 0) + read.changed,
            "gone": before.get("gone", 0) + read.gone,
            "read_at": stamp,
            "changed_at": stamp if read.added or read.changed or read.gone else before.get("changed_at"),
        }
        log[key(read.kind, read.root)] = entry
    statefile.write(path(), log)


def load() -> dict[str, dict]:
    """Every root's entry, by `key(kind, root)`; empty when nothing was recorded (or it is unreadable)."""
    try:
        data = orjson.loads(path().read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {name: entry for name, entry in data.items() if isinstance(entry, dict)}


def when(value: object) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None
