"""One ledger pass: ADR-112 entries, majordomus ledgers, knowledge records, then derivation.

Called by `manage.py ingest` after the sessions are imported, so entries and candidates link to
sessions that exist.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from introspect.importer import loader
from introspect.models import Project, Session
from ledger import deriver
from ledger.importer import adr_load, load, mj
from ledger.models import KnowledgeEvent
from waysweb.locations import SAMPLE_HOME, Locations


@dataclass
class LedgerPass:
    entries: load.DocumentResult = field(default_factory=load.DocumentResult)
    knowledge: load.DocumentResult = field(default_factory=load.DocumentResult)
    mj_lines: int = 0
    adrs: load.DocumentResult = field(default_factory=load.DocumentResult)
    derived: list[KnowledgeEvent] = field(default_factory=list)

    @property
    def found(self) -> bool:
        e, k = self.entries, self.knowledge
        return bool(e.added or e.changed or e.gone or k.added or k.changed or k.gone or self.mj_lines or self.derived
                    or self.adrs.added or self.adrs.changed)


def adr_repositories(locs: Locations) -> list[Path]:
    """Configured repositories and every absolute project path seen in sessions."""
    repos = list(locs.repos)
    for path in Project.objects.values_list("path", flat=True):
        candidate = Path(path)
        if candidate.is_absolute() and candidate.is_dir() and candidate not in repos:
            repos.append(candidate)
    return [repo for repo in repos if repo.is_dir()]


def ensure_demo_repos(locs: Locations) -> None:
    """The demo's repositories: a copy of the bundled sample's. Files the sample gained since the copy
    was made are added; files a demo reviewer changed are left as they are."""
    for repo in locs.repos:
        source = SAMPLE_HOME / "repos" / repo.name
        for path in sorted(source.rglob("*")):
            target = repo / path.relative_to(source)
            if path.is_file() and not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)


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
    adr_dirs = tuple(d for d in settings.WAYSWEB_ADR_DIRS)
    for repo in adr_repositories(locs):
        found_adrs = adr_load.import_repo(repo, adr_dirs)
        result.adrs.added += found_adrs.added
        result.adrs.changed += found_adrs.changed + found_adrs.moved
        result.adrs.files += found_adrs.files
    for directory in directories:
        found = load.import_knowledge(directory)
        for name in ("files", "added", "changed", "quarantined", "gone"):
            setattr(result.knowledge, name, getattr(result.knowledge, name) + getattr(found, name))
    return result
