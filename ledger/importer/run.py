"""The ledger side of a pass: ADR-112 entries, majordomus ledgers, decision records, knowledge records.

Called after the sessions are imported and derived, so entries and candidates link to sessions
that exist. It never derives: candidates are derived by the caller between `import_documents` and
`import_knowledge_dirs` (waysweb/passes.py).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from introspect.importer import loader, problems
from introspect.models import Project
from ledger.importer import (
    adr_load,
    document,
    entries,
    knowledge,
    majordomus_ledger,
    memory,
    memory_provenance,
    passlog,
)
from ledger.models import KnowledgeEvent
from lib import safefs
from lib.locations import SAMPLE_HOME, Locations


@dataclass
class LedgerPass:
    entries: document.DocumentResult = field(default_factory=document.DocumentResult)
    knowledge: document.DocumentResult = field(default_factory=document.DocumentResult)
    memory: document.DocumentResult = field(default_factory=document.DocumentResult)
    mj_lines: int = 0
    adrs: document.DocumentResult = field(default_factory=document.DocumentResult)
    derived: list[KnowledgeEvent] = field(default_factory=list)
    # The candidate files the pass's derive wrote (knowledge.Written), so that the knowledge import
    # takes them as written instead of reading and parsing them back (knowledge.index_files).
    written: knowledge.Written = field(default_factory=dict)
    problems: list[safefs.Problem] = field(default_factory=list)

    @property
    def found(self) -> bool:
        e, k, m = self.entries, self.knowledge, self.memory
        return bool(
            m.added
            or m.changed
            or m.gone
            or e.added
            or e.changed
            or e.gone
            or k.added
            or k.changed
            or k.gone
            or self.mj_lines
            or self.derived
            or self.adrs.added
            or self.adrs.changed
        )


def repositories(locs: Locations) -> list[Path]:
    """Where knowledge, decision records and majordomus ledgers are read: every repository listed
    in WAYSWEB_REPOS, and each absolute project path seen in sessions that lies under the user's
    home. A session's `project` is data (another machine's, in team mode): naming `/etc` there must
    not make this importer read `/etc`."""
    repos = list(locs.repos)
    home = safefs.real(locs.home)
    for path in Project.objects.values_list("path", flat=True):
        candidate = Path(path)
        if not candidate.is_absolute() or candidate in repos or not safefs.is_dir(candidate):
            continue
        if safefs.real(candidate).is_relative_to(home):
            repos.append(candidate)
    return [repo for repo in repos if safefs.is_dir(repo)]


def ensure_demo_repos(locs: Locations) -> None:
    """The demo's repositories: a copy of the bundled sample's. Files the sample gained since the copy
    was made are added; files a demo reviewer changed are left as they are."""
    for repo in locs.repos:
        source = SAMPLE_HOME / "repos" / repo.name
        for path in sorted(source.rglob("*")):
            target = repo / path.relative_to(source)
            if path.is_file() and not path.is_symlink() and not safefs.exists(target):
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)


def import_documents(locs: Locations, *, ledger_dir: Path | None = None) -> LedgerPass:
    """ADR-112 entries, majordomus ledgers and decision records. Knowledge comes after the
    candidates are derived (`import_knowledge_dirs`), so that the candidates derived are read in the
    same pass; the caller runs the three steps (waysweb/passes.py)."""
    result = LedgerPass()
    if locs.demo:
        ensure_demo_repos(locs)
    ledger_root = ledger_dir or locs.ledger_dir
    result.entries = entries.import_ledger(ledger_root)
    problems.record("ledger", result.entries.problems)
    e = result.entries
    reads = [passlog.Read(passlog.ENTRIES, str(ledger_root), e.files, e.added, e.changed, e.gone)]
    entries.link_entries_to_sessions()
    changed_memories: list[int] = []
    for claude_dir in locs.every_claude_dir:  # one root each on the status page
        found_memory, changed_here = memory.import_memory((claude_dir,))
        result.memory.add(found_memory)
        changed_memories += changed_here
        m = found_memory
        reads.append(passlog.Read(passlog.MEMORY, str(claude_dir), m.files, m.added, m.changed, m.gone))
    memory_provenance.link_memories(changed_memories + memory_provenance.waiting(skip=changed_memories))
    problems.record("memory", result.memory.problems)
    repos = repositories(locs)
    mj_problems: list[safefs.Problem] = []
    for source in majordomus_ledger.sources(repos, mj_problems):
        found = loader.import_file(source)
        result.mj_lines += found.counts.imported
        if found.problem is not None:
            mj_problems.append(found.problem)
    problems.record("majordomus", mj_problems)
    adr_dirs = tuple(d for d in settings.WAYSWEB_ADR_DIRS)
    record_problems: list[safefs.Problem] = []
    for repo in repos:
        found_adrs = adr_load.import_repo(repo, adr_dirs)
        result.adrs.added += found_adrs.added
        result.adrs.changed += found_adrs.changed + found_adrs.moved
        result.adrs.files += found_adrs.files
        record_problems += found_adrs.problems
        reads.append(
            passlog.Read(
                passlog.ADRS,
                str(repo),
                found_adrs.files,
                found_adrs.added,
                found_adrs.changed + found_adrs.moved,
                found_adrs.gone,
            )
        )
    problems.record("records", record_problems)
    passlog.record(reads)
    result.problems = result.entries.problems + result.memory.problems + mj_problems + record_problems
    return result


def import_knowledge_dirs(locs: Locations, result: LedgerPass) -> LedgerPass:
    """waysweb's own knowledge directory and each repository's, into `result`."""
    knowledge_problems: list[safefs.Problem] = []
    reads = []
    for directory, root in knowledge.knowledge_directories(repositories(locs), locs.knowledge_dir):
        found = knowledge.import_directory(directory, root, written=result.written)
        for name in ("files", "added", "changed", "quarantined", "gone"):
            setattr(result.knowledge, name, getattr(result.knowledge, name) + getattr(found, name))
        knowledge_problems += found.problems
        reads.append(
            passlog.Read(
                passlog.KNOWLEDGE, str(directory), found.files, found.added, found.changed, found.gone
            )
        )
    problems.record("knowledge", knowledge_problems)
    passlog.record(reads)
    result.problems += knowledge_problems
    return result
