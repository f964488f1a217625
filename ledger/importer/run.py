"""One ledger pass: ADR-112 entries, majordomus ledgers, knowledge records, then derivation.

Called by `manage.py ingest` after the sessions are imported, so entries and candidates link to
sessions that exist.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from introspect.importer import loader
from introspect.models import Session
from ledger import deriver
from ledger.importer import load, mj
from ledger.models import KnowledgeEvent
from waysweb.locations import SAMPLE_HOME, Locations


@dataclass
class LedgerPass:
    entries: load.DocumentResult = field(default_factory=load.DocumentResult)
    knowledge: load.DocumentResult = field(default_factory=load.DocumentResult)
    mj_lines: int = 0
    derived: list[KnowledgeEvent] = field(default_factory=list)

    @property
    def found(self) -> bool:
        e, k = self.entries, self.knowledge
        return bool(e.added or e.changed or e.gone or k.added or k.changed or k.gone or self.mj_lines or self.derived)


def ensure_demo_repos(locs: Locations) -> None:
    """The demo's majordomus repositories, copied once from the bundled sample."""
    for repo in locs.repos:
        if not repo.exists():
            shutil.copytree(SAMPLE_HOME / "repos" / repo.name, repo, symlinks=True)


def import_pass(locs: Locations, *, ledger_dir: Path | None = None, derive: bool = True) -> LedgerPass:
    result = LedgerPass()
    if locs.demo:
        ensure_demo_repos(locs)
    result.entries = load.import_ledger(ledger_dir or locs.ledger_dir)
    load.link_entries_to_sessions()
    directories = load.knowledge_directories(locs.repos, locs.knowledge_dir)
    repos = [directory.parent.parent.parent for directory in directories[1:]] + \
        [repo for repo in locs.repos if repo not in [d.parent.parent.parent for d in directories[1:]]]
    for source in mj.sources(repos):
        result.mj_lines += loader.import_file(source).counts.imported
    if derive:
        result.derived = deriver.derive_due(locs.knowledge_dir, Session.objects.all())
    for directory in directories:
        found = load.import_knowledge(directory)
        for name in ("files", "added", "changed", "quarantined", "gone"):
            setattr(result.knowledge, name, getattr(result.knowledge, name) + getattr(found, name))
    return result
