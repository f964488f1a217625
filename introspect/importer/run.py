"""One import pass over every configured source: events, then sessions, then the way catalog.

This is the unit of work the `ingest` command loops over and the tests call directly.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from introspect.importer import (
    batch,
    catalog,
    discovery,
    entry_rows,
    errors,
    event_rows,
    line_dictionary,
    loader,
    prefetch,
    problems,
    spills,
    tailer,
)
from introspect.importer.progress import Snapshot, Tracker
from introspect.models import ImportRun, SourceFile
from lib import bulk, safefs
from lib.locations import Locations

EVENT_KINDS = SourceFile.EVENT_KINDS
TRANSCRIPT_KINDS = SourceFile.TRANSCRIPT_KINDS
DECISION_KINDS = SourceFile.DECISION_KINDS
FINDING_KINDS = SourceFile.FINDING_KINDS
LINE_KINDS = EVENT_KINDS + TRANSCRIPT_KINDS + DECISION_KINDS + FINDING_KINDS  # the kinds a pass reads


@dataclass(frozen=True)
class Options:
    """Where to read; every field overrides the location resolved from the environment."""

    state_dir: Path | None = None
    legacy: Path | None = None
    extra: tuple[Path, ...] = ()
    claude_dir: Path | None = None
    transcripts: bool = True
    user_ways: Path | None = None
    core_ways: Path | None = None
    ignore_checkpoints: bool = False
    verify: bool = False
    ways: bool = True
    max_line: int = 64 << 20
    # A follower keeps its project-folder listings between polls (discovery.ListingCache).
    listings: discovery.ListingCache | None = field(default=None, compare=False, hash=False)
    # The paths a follower was told changed (watch.py), absolute; None reads every source. A pass
    # given them reads only those sources, found in the last whole pass's listing (`listings`); a
    # path that listing does not hold (a new file or folder) makes it a whole pass after all.
    only: frozenset[Path] | None = None


# More changed paths than this at once (a burst: a checkout, a restore) are read by a whole pass:
# the restricted one would query its generations with a list of this many names.
MOST_ONLY = 500
FAILED = "failed"  # a FileResult status: its import raised (see `failed`)


@dataclass
class PassResult:
    files: list[loader.FileResult] = field(default_factory=list)
    totals: batch.Counts = field(default_factory=batch.Counts)
    sessions: set[str] = field(default_factory=set)
    catalog: catalog.CatalogResult | None = None
    seconds: float = 0.0
    problems: list[safefs.Problem] = field(default_factory=list)
    spilled: spills.Looked = field(default_factory=spills.Looked)  # spill files looked for
    whole: bool = True  # every source listed and stat'ed; False when restricted to `Options.only`
    # How far the reading went, when the pass was long enough to publish it (progress.py); None otherwise.
    reading: Snapshot | None = None
    prepared: prefetch.Prefetch | None = None  # the worker that read ahead, ended (its figures)
    indexes_built: float = 0.0  # seconds building the indexes a cold load deferred (waysweb/passes.py)
    # The load's lines found after it to repeat an event it stored (importer/event_repeats.py).
    repeats: int = 0
    run: ImportRun | None = None  # the pass as recorded; None: an idle pass, not recorded
    # Sessions derived after the pass as a second process planned them, its CPU seconds and the
    # writer's wait for it (derive/planner.py); None: no second process planned.
    planned: tuple[int, float, float] | None = None

    # Sessions whose rows a failure left underived (sid → why), filled in by whoever derives them.
    underived: dict[str, str] = field(default_factory=dict)

    @property
    def found(self) -> bool:
        return bool(self.totals.lines) or any(f.status in ("gone", "new generation") for f in self.files)

    def settled(self, repeats: int) -> None:
        """Count as duplicates the lines a cold load imported as new whose event it had stored
        already (the digest key was out: event_repeats.settle), in the totals and the pass's record."""
        self.repeats += repeats
        self.totals.imported -= repeats
        self.totals.duplicate += repeats
        if self.run is not None:
            self.run.imported, self.run.duplicate = self.totals.imported, self.totals.duplicate
            self.run.save(update_fields=["imported", "duplicate"])

    @property
    def failed(self) -> list[loader.FileResult]:
        """The files whose import raised: each listed with its error, every other file imported."""
        return [file for file in self.files if file.status == FAILED]


def projects_dirs(locs: Locations, options: Options) -> tuple[Path, ...]:
    """The transcript folders a pass reads: the one named on the command line, else every Claude directory's."""
    return (options.claude_dir / "projects",) if options.claude_dir is not None else locs.projects_dirs


def import_pass(
    locs: Locations,
    options: Options,
    *,
    on_file: Callable[[loader.FileResult], None] | None = None,
    progress: Callable[[loader.FileResult, int, int], None] | None = None,
    record_only_changes: bool = False,
    on_progress: Callable[[Snapshot], None] | None = None,
    stop: Callable[[], bool] | None = None,
    idle: Callable[[StillToRead], bool] | None = None,
) -> PassResult:
    """Import every source once, then look for the spills that are due (spills.py) and read the way roots.

    The most recently written files are read first (discovery.newest_first). The sessions it touched
    are in `PassResult.sessions`, and each file's in the `FileResult` given to `on_file` once it
    has committed: the caller derives them (`derive.sessions.rebuild_sessions`), as files land or
    after the pass. `on_progress` gets the pass's progress (progress.py) while a long pass runs;
    `stop` is asked between files (a stop request ends the pass early; every file read stands).
    `idle(still)` is asked, between batches, while the writer waits for the worker that reads ahead
    (prefetch.Prefetch.idle), given which sessions no file still to read holds (`StillToRead`): it
    does a piece of other work (a settled session's derive) and says whether there was any.
    """
    started = time.monotonic()
    started_at = timezone.now()
    result = PassResult()
    # Which sources read copies is this pass's own finding: on PostgreSQL an insert undone still
    # spends sequence values, so a memory of an earlier pass (of another database, in tests) would
    # make the same lines' event ids depend on what this process did before.
    event_rows.COPIES.clear()
    event_problems: list[safefs.Problem] = []
    transcript_problems: list[safefs.Problem] = []
    found = restricted(options)
    result.whole = found is None
    if found is None:
        found = discovery.event_sources(
            locs,
            state_dir=options.state_dir,
            legacy=options.legacy,
            extra=options.extra,
            problems=event_problems,
        )
        found += discovery.decision_sources(locs, state_dir=options.state_dir, problems=event_problems)
        found += discovery.finding_sources(locs, state_dir=options.state_dir, problems=event_problems)
        if options.transcripts:
            for projects in projects_dirs(locs, options):
                found += discovery.transcript_sources(
                    projects, transcript_problems, cache=discovery.listing_of(options.listings, projects)
                )
        if options.listings is not None:
            options.listings.known = {absolute(source.path): source for source in found}
    stats = discovery.lstats(found)  # one stat a file for the order and the plan
    found = discovery.newest_first(found, stats)
    generations = loader.current_generations(LINE_KINDS, among=None if result.whole else found)
    tracker = Tracker.planned(
        found, generations, ignore_checkpoints=options.ignore_checkpoints, report=on_progress, stats=stats
    )
    ahead = prefetch_for(found, generations, tracker, options)
    still = StillToRead(found, tracker.plan)
    if ahead is not None and idle is not None:
        ahead.idle = lambda: idle(still)
    try:
        # A deleted file a restricted pass was told of is one of `found`: import_file marks it gone.
        for source in found + (vanished(found) if result.whole else []):
            if stop is not None and stop():
                break
            if options.verify and not loader.verify_file(source, max_line=options.max_line):
                key = (str(source.root), source.rel_path)
                generations[key] = loader.generation_of(loader.current_generation(source))  # just opened
            try:
                file_result = loader.import_file(
                    source,
                    ignore_checkpoint=options.ignore_checkpoints,
                    max_line=options.max_line,
                    progress=tracker.also(progress),
                    generations=generations,
                    prefetch=ahead,
                )
            except Exception as exc:
                if not errors.caused_by_content(exc):
                    raise  # the database or the disk: no other file would fare better (the caller says why)
                file_result = failed(source, exc)
            still.read(source)
            tracker.file_done(file_result)
            result.files.append(file_result)
            result.totals.add(file_result.counts)
            result.sessions |= file_result.sessions
            if file_result.problem is not None:
                (transcript_problems if source.kind in TRANSCRIPT_KINDS else event_problems).append(
                    file_result.problem
                )
            if on_file is not None:
                on_file(file_result)
    finally:
        if ahead is not None:
            ahead.close()
    result.prepared = ahead
    tracker.finish()
    if tracker.last_beat is not None:
        result.reading = tracker.snapshot(finished=True)
    # A restricted pass saw a few files, not the areas: it adds what it found, the next whole pass
    # drops what is fixed.
    if result.whole or event_problems:
        problems.record("events", event_problems, replace=result.whole)
    if options.transcripts and (result.whole or transcript_problems):
        problems.record("transcripts", transcript_problems, replace=result.whole)
    result.problems = event_problems + transcript_problems
    if options.transcripts:
        result.spilled = spills.read_due(everything=options.ignore_checkpoints)
    if options.ways:
        roots = catalog.way_roots(locs, user=options.user_ways, core=options.core_ways)
        result.catalog = catalog.import_roots(roots)
    result.seconds = time.monotonic() - started
    totals = result.totals
    if result.found or not record_only_changes:
        # An idle --follow pass records nothing: one row per pass would grow without end.
        result.run = ImportRun.objects.create(
            started_at=started_at,
            finished_at=timezone.now(),
            files=len(result.files),
            lines=totals.lines,
            imported=totals.imported,
            quarantined=totals.quarantined,
            inert=totals.inert,
            duplicate=totals.duplicate,
            seconds=result.seconds,
            error=failure_summary(result.failed),
        )
    return result


class StillToRead:
    """The pass's files with bytes to read (the tracker's plan) that it has not read yet, by the
    session they hold: a transcript's session key; a file of no one session (an events log, a
    transcript without a key) may hold any. A session no file still to read holds is settled: its
    rows are in, as far as this pass goes, and deriving it now derives what the pass leaves of it
    (one session's files are read together: discovery.newest_first). Only a saving: a file read
    later that touches it after all names it again, and it is derived again."""

    def __init__(self, found: list[discovery.Source], plan: dict) -> None:
        self.sessions: Counter[str] = Counter()
        self.unkeyed = 0
        self.counted: dict[tuple[str, str], str | None] = {}
        for source in found:
            key = (str(source.root), source.rel_path)
            if key not in plan or key in self.counted:
                continue
            sid = source.session_key if source.kind in TRANSCRIPT_KINDS and source.session_key else None
            self.counted[key] = sid
            if sid is None:
                self.unkeyed += 1
            else:
                self.sessions[sid] += 1

    def read(self, source: discovery.Source) -> None:
        """The file is read (or failed): its session no longer waits for it."""
        key = (str(source.root), source.rel_path)
        if key not in self.counted:
            return
        sid = self.counted.pop(key)
        if sid is None:
            self.unkeyed -= 1
        else:
            self.sessions[sid] -= 1

    def settled(self, sid: str) -> bool:
        return not self.unkeyed and not self.sessions[sid]


def prefetch_for(
    found: list[discovery.Source],
    generations: dict[tuple[str, str], loader.Generation | None],
    tracker: Tracker,
    options: Options,
) -> prefetch.Prefetch | None:
    """A worker reading the pass's transcripts (and events logs: settings.WAYSWEB_PREPARE_EVENTS)
    ahead (importer/prefetch.py), when there is enough to read for a second core to pay for its
    start (settings.WAYSWEB_PREPARE_WORKER_BYTES of their bytes past their checkpoints: the
    tracker's plan, a stat each) and a second CPU to run it on; None otherwise. A follower's append
    (a few KB) never pays a process start."""
    least, events = settings.WAYSWEB_PREPARE_WORKER_BYTES, settings.WAYSWEB_PREPARE_EVENTS
    planned = [
        (source, generations.get(key))
        for source in found
        if ((source.kind in TRANSCRIPT_KINDS and not source.gzip) or (events and source.kind in EVENT_KINDS))
        and (key := (str(source.root), source.rel_path)) in tracker.plan
    ]
    todo = sum(tracker.plan[(str(source.root), source.rel_path)].todo for source, _ in planned)
    if least <= 0 or not planned or todo < least or cores() < 2:
        return None
    # Where each file's generation stands, as import_file reads it: a file the writer finds elsewhere
    # (verified, replaced, moved by another importer) is read in process instead.
    pks = [seen.pk for _, seen in planned if seen is not None and not options.ignore_checkpoints]
    rows = {row.pk: row for row in bulk.chunked_in(SourceFile.objects.all(), "pk", pks)}
    jobs = [
        prefetch.Job(
            source.path,
            source.read_root,
            loader.checkpoint_of(rows[seen.pk]) if seen is not None and seen.pk in rows else None,
            events=source.kind in EVENT_KINDS,
            gzip=source.gzip,
        )
        for source, seen in planned
    ]
    transcripts = [job for job in jobs if not job.events]
    dictionary = line_dictionary.TRAINER.ahead(first_lines(transcripts, max_line=options.max_line))
    return prefetch.Prefetch(
        jobs,
        entry_rows.prep_config(dictionary=dictionary),
        max_line=options.max_line,
        events=event_rows.prep_config(),
    )


def first_lines(jobs: list[prefetch.Job], *, max_line: int) -> Iterator[bytes]:
    """The lines the pass will read first, as many as a dictionary is trained on (line_dictionary):
    a chunk of each file in turn, from where its generation stands; a file that cannot be read now
    is left to the pass, which says why."""
    wanted = line_dictionary.TRAIN_LINES * 2
    for job in jobs:
        try:
            chunk = tailer.read_chunk(job.path, job.checkpoint, max_line=max_line, root=job.root)
        except (OSError, safefs.Refused):
            continue
        for line in [] if chunk is None or chunk.new_generation else chunk.lines:
            if line.data:
                yield line.data
                wanted -= 1
                if not wanted:
                    return


def cores() -> int:
    """The CPUs this process may run on: one alone leaves the worker nothing to gain."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def failure_summary(files: list[loader.FileResult]) -> str:
    """The pass's error, for doctor: how many files failed, the first one and why."""
    if not files:
        return ""
    first = files[0].problem
    return f"{len(files)} file{'s' if len(files) > 1 else ''} could not be imported: {first.path}: {first.detail}"


def failed(source: discovery.Source, exc: Exception) -> loader.FileResult:
    """A file whose import raised: what it committed stands; it is read again from its checkpoint
    on the next pass, and listed (Not read, the pass's summary, doctor) until it imports."""
    row = loader.current_generation(source)
    done = (
        f"its lines up to byte {row.offset:,} are imported"
        if row is not None and row.offset
        else "nothing of it is imported yet"
    )
    result = loader.FileResult(source, status=FAILED)
    result.problem = safefs.Problem(
        str(source.path),
        safefs.IMPORT_FAILED,
        f"{errors.described(exc)}; {done}, it is read again on every pass",
    )
    return result


def restricted(options: Options) -> list[discovery.Source] | None:
    """The sources a pass restricted to `options.only` reads, or None for a whole pass: when no
    whole pass listed them yet, when a path is not one of them, or when there are too many."""
    if options.only is None or options.listings is None or len(options.only) > MOST_ONLY:
        return None
    known = options.listings.known
    if not known or not options.only <= known.keys():
        return None
    return [known[path] for path in options.only]


def absolute(path: Path) -> Path:
    """The path as the watcher reports it: absolute, its `..` resolved but not its links."""
    return Path(os.path.abspath(path))


def vanished(found: list[discovery.Source]) -> list[discovery.Source]:
    """Sources imported before that are not there now, so that they are marked gone (rows kept)."""
    present = {(str(source.root), source.rel_path) for source in found}
    # Only this machine's files: another importer's paths are not ours to find missing.
    rows = SourceFile.objects.filter(
        kind__in=LINE_KINDS, status=SourceFile.Status.ACTIVE, host=settings.WAYSWEB_HOST
    )
    # Value tuples, not model instances: an idle poll of 16,000 files built them all to keep none.
    return [
        discovery.Source(kind, Path(root), rel_path, rank, session_key, agent_key)
        for kind, root, rel_path, rank, session_key, agent_key in rows.values_list(
            "kind", "root", "rel_path", "rank", "session_key", "agent_key"
        )
        if (root, rel_path) not in present and not safefs.exists(Path(root) / rel_path)
    ]
