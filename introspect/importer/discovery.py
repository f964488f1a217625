"""Which files the importer reads, found under the configured roots (importer-reliability.md §1).

No Django here. The rank of a source fixes its place in event order (formats-agent-ways.md §2.3
rule 4): archives oldest day first, then the live log, then the legacy log, then extra paths. The
order a pass *reads* them in is another matter (`newest_first`): the rank, not the reading order,
places an event.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from lib import safefs
from lib.locations import Locations

ARCHIVE_NAME = re.compile(r"^events-([0-9]{4})-([0-9]{2})-([0-9]{2})\.jsonl\.gz$", re.ASCII)
DECISIONS_ARCHIVE_NAME = re.compile(r"^decisions-([0-9]{4})-([0-9]{2})-([0-9]{2})\.jsonl\.gz$", re.ASCII)
DECISIONS_LIVE = "decisions.jsonl"
FINDINGS_LIVE = "findings.jsonl"
LIVE_RANK = 100_000_000
LEGACY_RANK = LIVE_RANK + 1
EXTRA_RANK = LIVE_RANK + 2
# The legacy logs of the further Claude directories (CLAUDE_CONFIG_DIR lists several): after the
# extra logs, so the ranks of sources imported before they were read stay what they were.
MORE_LEGACY_RANK = LIVE_RANK + 1_000_000


@dataclass(frozen=True)
class Source:
    kind: str
    root: Path
    rel_path: str
    rank: int
    session_key: str = ""
    agent_key: str = ""
    confine_to: str = ""  # a root above `root` the file must stay inside (the legacy log: ~/.claude)

    @functools.cached_property
    def path(self) -> Path:
        return self.root / self.rel_path  # built once: a poll of thousands of files asks often

    @property
    def read_root(self) -> Path:
        """The root the file is opened inside (lib/safefs.py)."""
        return Path(self.confine_to) if self.confine_to else self.root

    @property
    def gzip(self) -> bool:
        return self.rel_path.endswith(".gz")


def archive_day(name: str, pattern: re.Pattern = ARCHIVE_NAME) -> date | None:
    """event_archive.rs archive_day: exactly events-YYYY-MM-DD.jsonl.gz (or `pattern`'s stream)
    with a date that parses."""
    match = pattern.match(name)
    if match is None:
        return None
    try:
        return date(*(int(part) for part in match.groups()))
    except ValueError:
        return None


def event_sources(
    locs: Locations,
    *,
    state_dir: Path | None = None,
    legacy: Path | None = None,
    extra: tuple[Path, ...] = (),
    problems: list[safefs.Problem] | None = None,
) -> list[Source]:
    """Every events-log file that exists now, in rank order.

    The live log and its archives are read inside the state directory, the legacy log inside the
    Claude directory (lib/safefs.py): a link out of them, or a FIFO named like a log, is put in
    `problems`, never read. A log named on the command line is the user's own choice: its real
    path is read, inside its real folder.
    """
    problems = [] if problems is None else problems
    state = state_dir or locs.state_dir
    found: list[Source] = []
    if safefs.is_dir(state):

        def wanted(name: str) -> bool:
            return name == "events.jsonl" or archive_day(name) is not None

        live = False
        for entry in safefs.entries(state, state, problems, want=wanted):
            if entry.kind != "file":
                continue
            day = archive_day(entry.name)
            if day is not None:
                found.append(Source("events_archive", state, entry.name, int(day.strftime("%Y%m%d"))))
            elif entry.name == "events.jsonl":
                live = True
        if live:
            found.append(Source("events", state, "events.jsonl", LIVE_RANK))
    if legacy is not None:
        named = user_named(legacy, problems)
        if named is not None:
            found.append(Source("events_legacy", named.parent, named.name, LEGACY_RANK))
    else:
        # Each Claude directory's log is read inside that directory (lib/safefs.py).
        for number, (claude, log) in enumerate(locs.legacy_logs):
            if confined_file(claude, log, problems):
                rank = MORE_LEGACY_RANK + number if number else LEGACY_RANK
                found.append(Source("events_legacy", log.parent, log.name, rank, confine_to=str(claude)))
    for number, path in enumerate(extra):
        named = user_named(path, problems)
        if named is not None:
            found.append(Source("events_extra", named.parent, named.name, EXTRA_RANK + number))
    return found


def confined_file(root: Path, path: Path, problems: list[safefs.Problem]) -> bool:
    """True when `path` is a regular file inside `root`; a refusal goes to `problems`."""
    try:
        resolved = safefs.inside(root, path)
    except FileNotFoundError:
        return False
    except safefs.Refused as refused:
        problems.append(refused.problem)
        return False
    if safefs.is_file(resolved):
        return True
    if safefs.exists(resolved) and not safefs.is_dir(resolved):
        problems.append(safefs.Problem(str(path), safefs.NOT_REGULAR, "not a regular file"))
    return False


def user_named(path: Path, problems: list[safefs.Problem]) -> Path | None:
    """The real path of a log named on the command line, when it is a regular file."""
    resolved = safefs.real(path)
    return resolved if confined_file(resolved.parent, resolved, problems) else None


def stat_key(path: Path) -> tuple[int, int, int, int] | None:
    """What changes when a directory's listing can have changed: an entry added, removed or
    renamed (mtime), its mode or owner (ctime), the directory replaced (device, inode)."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)


def tree_keys(top: Path) -> tuple:
    """stat_key of `top` and of every directory below it (names only are read: no file is stat'ed)."""
    keys = [(str(top), stat_key(top))]
    for folder, dirs, _ in os.walk(top, followlinks=False):
        dirs.sort()
        keys += [(f"{folder}/{name}", stat_key(Path(folder) / name)) for name in dirs]
    return tuple(keys)


@dataclass
class FolderListing:
    keys: tuple
    sources: list[Source]
    problems: list[safefs.Problem]


@dataclass
class ListingCache:
    """The listings of project folders, kept while their directories' stats say nothing changed.

    A follower polls every half second: listing a tree of 16,000 transcripts (every entry checked
    for links out of the root) took 617 ms a poll, re-reading only what changed takes a stat per
    directory. An append changes no directory; a new file, link, rename or chmod does (mtime/ctime),
    and that folder alone is listed again. Reading a file still goes through its confinement check.
    """

    folders: dict[str, FolderListing] = field(default_factory=dict)
    top: FolderListing | None = None
    # One listing per projects folder when several Claude directories are read (lib/locations.py).
    roots: dict[str, ListingCache] = field(default_factory=dict)
    # Every source the last whole pass listed (event logs too), by absolute path: the files a pass
    # restricted to the paths a watcher reported reads without listing anything (run.Options.only).
    known: dict[Path, Source] = field(default_factory=dict)


def listing_of(cache: ListingCache | None, projects: Path) -> ListingCache | None:
    """The listings kept for one projects folder, beside the others'."""
    return None if cache is None else cache.roots.setdefault(str(projects), ListingCache())


def transcript_sources(
    projects: Path, problems: list[safefs.Problem] | None = None, *, cache: ListingCache | None = None
) -> list[Source]:
    """Trunk transcripts, legacy `agent-*.jsonl` beside them, and `<session>/subagents/**/agent-*.jsonl`.

    formats-claude-code.md §1: a trunk belongs to the session named by its file stem; a subagent
    file to the session folder it sits under. Legacy agent files name their session in their lines.
    Everything is found inside `projects` only (lib/safefs.py); what is refused goes to `problems`.
    With a `cache`, folders whose directories did not change are not listed again.
    """
    problems = [] if problems is None else problems
    if not safefs.is_dir(projects):
        return []
    top_key = (stat_key(projects),)
    if cache is not None and cache.top is not None and cache.top.keys == top_key:
        folders, top_problems = cache.top.sources, cache.top.problems
    else:
        top_problems: list[safefs.Problem] = []
        folders = [
            folder
            for folder in safefs.entries(projects, projects, top_problems, want=lambda name: False)
            if folder.kind == "dir"
        ]
        if cache is not None:
            cache.top = FolderListing(top_key, folders, top_problems)
            cache.folders = {k: v for k, v in cache.folders.items() if k in {str(f.path) for f in folders}}
    problems.extend(top_problems)
    found: list[Source] = []
    for folder in folders:
        cached = cache.folders.get(str(folder.path)) if cache is not None else None
        if cached is not None and cached.keys == folder_keys(folder.path):
            found += cached.sources
            problems.extend(cached.problems)
            continue
        folder_problems: list[safefs.Problem] = []
        listed = folder_sources(projects, folder, folder_problems)
        found += listed
        problems.extend(folder_problems)
        if cache is not None:
            cache.folders[str(folder.path)] = FolderListing(folder_keys(folder.path), listed, folder_problems)
    return found


def folder_keys(folder: Path) -> tuple:
    """The stats that say whether a project folder's listing still holds: the folder's own, and
    those of each session folder's subagents tree (a subagent file lands there, not in the folder).
    Session folders are found by name (d_type), no file is stat'ed."""
    keys: list = [stat_key(folder)]
    try:
        with os.scandir(folder) as scan:
            sessions = sorted(e.name for e in scan if e.is_dir(follow_symlinks=False))
    except OSError:
        return (*keys, None)
    for session in sessions:
        subagents = folder / session / "subagents"
        keys.append(tree_keys(subagents) if os.path.isdir(subagents) else (str(subagents), None))
    return tuple(keys)


def folder_sources(projects: Path, folder: safefs.Entry, problems: list[safefs.Problem]) -> list[Source]:
    """One project folder's transcripts: its trunks and legacy agent files, and its sessions' subagents."""

    def jsonl(name: str) -> bool:
        return name.endswith(".jsonl")

    def agent_file(name: str) -> bool:
        return name.startswith("agent-") and name.endswith(".jsonl")

    found: list[Source] = []
    session_dirs = []
    for entry in safefs.entries(projects, folder.path, problems, want=jsonl):
        if entry.kind == "dir":
            session_dirs.append(entry)
        elif jsonl(entry.name):
            rel = f"{folder.name}/{entry.name}"
            if entry.name.startswith("agent-"):
                found.append(
                    Source(
                        "subagent_transcript",
                        projects,
                        rel,
                        0,
                        "",
                        entry.name[len("agent-") : -len(".jsonl")],
                    )
                )
            else:
                found.append(Source("transcript", projects, rel, 0, entry.name[: -len(".jsonl")], ""))
    for session_dir in session_dirs:
        subagents = session_dir.path / "subagents"
        if not safefs.is_dir(subagents):
            continue
        listing = safefs.walk(projects, want=agent_file, start=subagents)
        problems.extend(listing.problems)
        for path in listing.files:
            found.append(
                Source(
                    "subagent_transcript",
                    projects,
                    under(projects, path),
                    0,
                    session_dir.name,
                    path.name[len("agent-") : -len(".jsonl")],
                )
            )
    return found


def under(root: Path, path: Path) -> str:
    """`path` relative to `root`, as a posix string: `path` was listed below `root` (safefs joins
    names with "/"), so its text starts with the root's; pathlib's relative_to cost a fifth of an
    idle pass over 1,229 transcripts."""
    prefix, text = f"{root}/", str(path)
    return text[len(prefix) :] if text.startswith(prefix) else path.relative_to(root).as_posix()


# The newest transcripts read before any event log (newest_first): a few seconds of reading.
LEAD_BYTES = 64 << 20


def decision_sources(
    locs: Locations, *, state_dir: Path | None = None, problems: list[safefs.Problem] | None = None
) -> list[Source]:
    """agent-ways' decision log: the live `decisions.jsonl` and its dated archives, read inside the
    state directory (decisions-and-effectiveness.md §1.8), in the one order every pass reads them
    (the live file, then the archives newest day first, as the event logs); their rank places a
    record in stream order (archives oldest day first, then live), as it places an event.
    """
    problems = [] if problems is None else problems
    state = state_dir or locs.state_dir
    if not safefs.is_dir(state):
        return []

    def wanted(name: str) -> bool:
        return name == DECISIONS_LIVE or decision_archive_day(name) is not None

    live, archives = [], []
    for entry in safefs.entries(state, state, problems, want=wanted):
        if entry.kind != "file":
            continue
        day = decision_archive_day(entry.name)
        if day is not None:
            archives.append(Source("decisions_archive", state, entry.name, int(day.strftime("%Y%m%d"))))
        elif entry.name == DECISIONS_LIVE:
            live.append(Source("decisions", state, DECISIONS_LIVE, LIVE_RANK))
    return live + sorted(archives, key=lambda source: (-source.rank, source.rel_path))


def finding_sources(
    locs: Locations, *, state_dir: Path | None = None, problems: list[safefs.Problem] | None = None
) -> list[Source]:
    """agent-ways' findings ledger, `findings.jsonl` in the state directory (decisions-and-effectiveness.md
    §2.1): appended by `ways-audit assemble --write`, never rotated nor archived."""
    problems = [] if problems is None else problems
    state = state_dir or locs.state_dir
    if not safefs.is_dir(state):
        return []
    return [
        Source("findings", state, FINDINGS_LIVE, LIVE_RANK)
        for entry in safefs.entries(state, state, problems, want=lambda name: name == FINDINGS_LIVE)
        if entry.kind == "file" and entry.name == FINDINGS_LIVE  # `want` only says whose problems count
    ]


def decision_archive_day(name: str) -> date | None:
    """The decision stream's archive_day: decisions-YYYY-MM-DD.jsonl.gz with a date that parses."""
    return archive_day(name, DECISIONS_ARCHIVE_NAME)


def lstats(found: list[Source]) -> dict[Source, os.stat_result | None]:
    """Each source's `lstat` (None where it fails), taken once for a pass's ordering and plan."""
    out: dict[Source, os.stat_result | None] = {}
    for source in found:
        try:
            out[source] = os.stat(source.path, follow_symlinks=False)
        except OSError:
            out[source] = None
    return out


def newest_first(
    found: list[Source], stats: dict[Source, os.stat_result | None] | None = None
) -> list[Source]:
    """The sources in the order a pass reads them: the most recently written first.

    A first import of a long history then shows today's sessions within seconds, the archives and
    old transcripts landing behind them. Only the reading order changes: an event's place in event
    order is its source's rank (a copy read later from a lower rank moves the event there,
    event_rows.store_events), and derived rows are a function of the rows. But which copy of a line
    is "imported" and which a "duplicate" (two event logs sharing lines, two trunks of a resumed
    session replaying its prefix, `is_copy`) is decided by the order the copies are read, so it
    must not depend on mtimes, which change as the files grow (fault case 19 compares a
    crash-looped import with a clean one). Hence:

    - the event logs keep one order of their own (`event_read_order`): the live log, then the
      archives newest day first, then the legacy log and the extra logs, as an importer that
      followed the live log all along read them; the decision log after them, in its own order;
    - one session's transcripts (trunks, subagents) stay together, in their listed order;
    - the rest is by mtime, newest first: each session's files by the newest of them, and the
      event logs merged in where their mtimes fall. A file that cannot be stat'ed counts as oldest.
    - except that the newest sessions' transcripts, up to `LEAD_BYTES`, come before every event
      log: the live log holds weeks of events (minutes of reading on a long history), and the
      session a user opens first is today's, whose conversation then shows within seconds, its
      ways turns following when the live log has landed.
    """

    stats = lstats(found) if stats is None else stats

    def written(source: Source) -> int:
        st = stats.get(source)
        return -1 if st is None else st.st_mtime_ns

    def size(source: Source) -> int:
        st = stats.get(source)
        return 0 if st is None else st.st_size

    groups: dict[tuple[str, ...], list[Source]] = {}
    for source in found:
        if source.kind in EVENT_KINDS:
            continue
        if source.kind in DECISION_KINDS:
            continue
        key = ("session", source.session_key) if source.session_key else ("file", str(source.path))
        groups.setdefault(key, []).append(source)
    # sorted() is stable: files written in the same nanosecond keep their listed order.
    transcripts = sorted(
        ([max(written(source) for source in group), group] for group in groups.values()),
        key=lambda item: item[0],
        reverse=True,
    )
    events = [[written(source), [source]] for source in event_read_order(found)]
    # The decision log after the event logs, as one group in its listed order (live, then archives
    # newest first): which copy of a line places a record does not depend on the order they are
    # read in (the lowest place wins), but its "imported"/"duplicate" count does. Never in the lead:
    # written on every prompt, it is often the newest file, and may be hundreds of MB.
    decisions = [source for source in found if source.kind in DECISION_KINDS]
    if decisions:
        events.append([max(written(source) for source in decisions), decisions])
    ordered: list[Source] = []
    lead = 0
    while transcripts and (not ordered or lead < LEAD_BYTES):  # the newest session at least
        group = transcripts.pop(0)[1]
        ordered += group
        lead += sum(size(source) for source in group)
    while transcripts or events:
        # A merge that never reorders either list: only where the event logs fall among the rest.
        if events and (not transcripts or events[0][0] >= transcripts[0][0]):
            ordered += events.pop(0)[1]
        else:
            ordered += transcripts.pop(0)[1]
    return ordered


EVENT_KINDS = ("events", "events_archive", "events_legacy", "events_extra")
DECISION_KINDS = ("decisions", "decisions_archive")


def event_read_order(found: list[Source]) -> list[Source]:
    """The event logs in the one order every pass reads them: live, archives newest day first, the rest."""

    def place(source: Source) -> tuple[int, int]:
        if source.kind == "events":
            return (0, 0)
        if source.kind == "events_archive":
            return (1, -source.rank)
        return (2, source.rank)  # the legacy log, then the extra logs in the order they were named

    return sorted((source for source in found if source.kind in EVENT_KINDS), key=place)
