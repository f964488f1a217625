"""Which files the importer reads, found under the configured roots (importer-reliability.md §1).

No Django here. The rank of a source fixes its place in event order (formats-agent-ways.md §2.3
rule 4): archives oldest day first, then the live log, then the legacy log, then extra paths.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from waysweb.locations import Locations

ARCHIVE_NAME = re.compile(r"^events-([0-9]{4})-([0-9]{2})-([0-9]{2})\.jsonl\.gz$", re.ASCII)
LIVE_RANK = 100_000_000
LEGACY_RANK = LIVE_RANK + 1
EXTRA_RANK = LIVE_RANK + 2


@dataclass(frozen=True)
class Source:
    kind: str
    root: Path
    rel_path: str
    rank: int
    session_key: str = ""
    agent_key: str = ""

    @property
    def path(self) -> Path:
        return self.root / self.rel_path

    @property
    def gzip(self) -> bool:
        return self.rel_path.endswith(".gz")


def archive_day(name: str) -> date | None:
    """event_archive.rs archive_day: exactly events-YYYY-MM-DD.jsonl.gz with a date that parses."""
    match = ARCHIVE_NAME.match(name)
    if match is None:
        return None
    try:
        return date(*(int(part) for part in match.groups()))
    except ValueError:
        return None


def event_sources(locs: Locations, *, state_dir: Path | None = None, legacy: Path | None = None,
                  extra: tuple[Path, ...] = ()) -> list[Source]:
    """Every events-log file that exists now, in rank order."""
    state = state_dir or locs.state_dir
    found: list[Source] = []
    if state.is_dir():
        for child in sorted(state.iterdir()):
            day = archive_day(child.name)
            if day is not None and child.is_file():
                found.append(Source("events_archive", state, child.name, int(day.strftime("%Y%m%d"))))
        if (state / "events.jsonl").is_file():
            found.append(Source("events", state, "events.jsonl", LIVE_RANK))
    legacy_path = legacy or locs.legacy_events
    if legacy_path.is_file():
        found.append(Source("events_legacy", legacy_path.parent, legacy_path.name, LEGACY_RANK))
    for number, path in enumerate(extra):
        if path.is_file():
            found.append(Source("events_extra", path.parent, path.name, EXTRA_RANK + number))
    return found


def transcript_sources(projects: Path) -> list[Source]:
    """Trunk transcripts, legacy `agent-*.jsonl` beside them, and `<session>/subagents/**/agent-*.jsonl`.

    formats-claude-code.md §1: a trunk belongs to the session named by its file stem; a subagent
    file to the session folder it sits under. Legacy agent files name their session in their lines.
    """
    if not projects.is_dir():
        return []
    found: list[Source] = []
    for folder in sorted(p for p in projects.iterdir() if p.is_dir()):
        for path in sorted(folder.glob("*.jsonl")):
            rel = path.relative_to(projects).as_posix()
            if path.name.startswith("agent-"):
                found.append(Source("subagent_transcript", projects, rel, 0, "", path.stem[len("agent-"):]))
            else:
                found.append(Source("transcript", projects, rel, 0, path.stem, ""))
        for path in sorted(folder.glob("*/subagents/**/agent-*.jsonl")):
            session = path.relative_to(folder).parts[0]
            found.append(Source("subagent_transcript", projects, path.relative_to(projects).as_posix(), 0,
                                session, path.stem[len("agent-"):]))
    return found
