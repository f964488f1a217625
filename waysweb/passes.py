"""One pass of the whole pipeline, as `ingest`, `serve`, the bench and the tests run it.

Each step's module does one thing; this is where they are put in order: import the events and
transcripts (introspect/importer), derive the sessions they touched once that has committed
(introspect/derive: the first few while the pass reads on, the rest once, after the load) and, on
the bundled sample, its relevance labels; import the ledger's documents,
derive knowledge candidates at the episode boundaries (ledger/derive), then import the knowledge
directories — the candidates just derived included.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from introspect import services
from introspect.derive import sessions
from introspect.documents.sample_labels import sample_rows
from introspect.importer import deferred_indexes, discovery, event_repeats, loader, underived
from introspect.importer.progress import Deriving, Snapshot
from introspect.importer.run import Options, PassResult, StillToRead, import_pass
from introspect.models import Session
from ledger.derive import candidates
from ledger.importer.run import LedgerPass, import_documents, import_knowledge_dirs
from lib.locations import SAMPLE_LABELS, Locations

# A long pass derives what has landed this often, so that the newest sessions (read first) are on
# the list while older files are still being read; a short pass derives once, at its end.
DERIVE_EVERY_SECS = 2.0
# ...and spends at most about this share of its time on those early derives: each archive of the
# events log touches the long sessions again, and a 5,000-turn session is rebuilt whole each time.
DERIVE_SHARE = 0.2
# Only until this many sessions are derived: the newest files are read first, so these are the
# newest sessions (the list's first page). Every other session waits for the end of the load and is
# derived once there, instead of once per batch or archive that touched it again (a cold import of
# a million events rebuilt its long sessions a dozen times over; issue 29). A following pass is short
# and derives at its end either way.
EARLY_SESSIONS = 100
# While the writer waits for the worker, settled sessions are derived a few at a time, up to about
# this many of their lines: one at a time, each derive's own queries cost a large tier's 361
# sessions 17 % more CPU than chunks of 100 (bench/derive_after_load.py --one-by-one); a chunk of
# 100 keeps the worker's next chunks waiting (they are ready within tens of milliseconds).
IDLE_LINES = 2000


def sessions_pass(
    locs: Locations,
    options: Options,
    *,
    on_file: Callable[[loader.FileResult], None] | None = None,
    progress: Callable[[loader.FileResult, int, int], None] | None = None,
    record_only_changes: bool = False,
    on_progress: Callable[[Snapshot], None] | None = None,
    stop: Callable[[], bool] | None = None,
    defer_indexes: bool = False,
    plan_ahead: bool = False,
) -> PassResult:
    """Import every events log and transcript once, deriving the first sessions the pass touched
    as their files land (every `DERIVE_EVERY_SECS`, or longer after a long derive, each after its
    rows committed, until `EARLY_SESSIONS` are derived) and every one not derived since it last
    landed at the end.

    With `defer_indexes` (an `ingest` that is not following) and an events log to read, the
    secondary indexes of a table still empty are dropped for the load (importer/deferred_indexes.py)
    and built again once no events log is left to read: no session is derived before that, since a
    derive reads the events by session. `serve`'s follower never defers: its list fills as it reads.
    With `plan_ahead` (an `ingest` that is not following), the derive after the pass has a second
    process plan its sessions a chunk ahead of their writing (derive/planner.py)."""
    # In the order their files landed (a dict as an ordered set): the newest files are read first,
    # so the sessions derived while the writer waits are the newest too, the list's first page.
    landed: dict[str, None] = {}
    lines: dict[str, int] = {}  # the lines each landed session's files read (derive_settled's measure)
    not_derived: dict[str, str] = {}
    last = time.monotonic()
    wait = DERIVE_EVERY_SECS
    early = 0  # sessions derived while the pass reads
    deferred = deferred_indexes.defer() if defer_indexes and reads_events(locs, options) else []
    built = 0.0  # seconds spent building the deferred indexes again
    repeats = 0  # the load's lines settled as duplicates before its digest key was built

    def restore() -> None:
        nonlocal deferred, built, repeats
        if deferred:
            started = time.monotonic()
            repeats = deferred_indexes.restore().repeats
            deferred, built = [], time.monotonic() - started

    def forget(derived: Iterable[str]) -> None:
        for sid in derived:
            landed.pop(sid, None)

    def derive_due() -> None:
        nonlocal last, wait, early
        if deferred:
            return  # the sessions' events are not indexed yet (derived once they are, or at the end)
        if landed and early < EARLY_SESSIONS and time.monotonic() - last >= wait:
            started = time.monotonic()
            chosen = sessions.latest_seen(landed, EARLY_SESSIONS - early)
            done = sessions.rebuild_sessions(chosen, behind=False)
            not_derived.update(done.failed)
            early += done.count
            forget(chosen)
            last = time.monotonic()
            wait = max(DERIVE_EVERY_SECS, (last - started) / DERIVE_SHARE)

    def derive_settled(still: StillToRead) -> bool:
        # While the writer waits for the worker reading ahead: sessions whose files are all read are
        # derived in that time, a few at a time (IDLE_LINES; the worker's next chunk is taken as
        # soon as it is ready), instead of after the load with a core idle.
        if still.unkeyed:
            return False  # a file of no one session (an events log) may still touch any of them
        restore()  # no events log left to read: the derives from here on read the events by session
        chosen, size = [], 0
        for sid in landed:
            if still.settled(sid):
                chosen.append(sid)
                size += lines.pop(sid, 0)
                if size >= IDLE_LINES:
                    break
        if not chosen:
            return False
        done = sessions.rebuild_sessions(chosen, behind=False)
        not_derived.update(done.failed)
        forget(chosen)
        return True

    def file_landed(file: loader.FileResult) -> None:
        landed.update(dict.fromkeys(file.sessions))
        # A file of many sessions (an events log) is shared among them: counted whole for each, a
        # log of 300,000 lines made every session it names one idle derive's worth alone.
        share = file.counts.lines // max(len(file.sessions), 1)
        for sid in file.sessions:
            lines[sid] = lines.get(sid, 0) + share
        if on_file is not None:
            on_file(file)
        derive_due()

    def batch_landed(file: loader.FileResult, offset: int, size: int) -> None:
        # Between the committed batches of a long file too: the files read before it are not
        # held back until it ends (a 20 MB session kept the newest ones off the list for seconds).
        if progress is not None:
            progress(file, offset, size)
        if deferred and event_repeats.many():
            restore()  # a load of many repeats: the rest of it goes in with the indexes and the key
        derive_due()

    # Files a pass before this one left marked (killed, or a session that failed): their marks are
    # cleared only by a start's catch-up, which reads their rows; this pass clears the ones it marks.
    leftover = underived.marked(own=True)
    try:
        result = import_pass(
            locs,
            options,
            on_file=file_landed,
            progress=batch_landed,
            record_only_changes=record_only_changes,
            on_progress=on_progress,
            stop=stop,
            idle=derive_settled,
        )
    finally:
        restore()  # a failed pass too: the next importer would build them, but pages wait till then
    result.indexes_built = built
    if repeats:
        result.settled(repeats)
    if result.failed:
        # A file that failed committed batches before it raised; their sessions were never named.
        landed.update(dict.fromkeys(sessions.sessions_behind()))
        leftover = set()  # every marked file's rows were read just now
    # Every session the pass touched that is not derived yet, and any a later file changed again:
    # most of a cold import's, shown as its reading was when there are more than a chunk of them.
    deriving = None
    if result.reading is not None and len(landed) > sessions.REBUILD_CHUNK:
        deriving = Deriving(result.reading, report=on_progress)
    try:
        done = sessions.rebuild_sessions(
            landed, on_chunk=deriving.chunk_done if deriving else None, plan_ahead=plan_ahead
        )
    finally:
        if deriving is not None:
            deriving.finish()
    for sid in done.tried - done.failed.keys():
        not_derived.pop(sid, None)  # failed while the pass ran, derived at its end
    result.underived = not_derived | done.failed
    result.planned = (done.planned_ahead, done.planner_cpu, done.planner_waited) if done.planner_cpu else None
    if not result.underived:
        # Every session whose rows this pass committed is derived (and, after a failed file, every
        # session behind); a session that could not be derived keeps its files marked.
        underived.clear(underived.marked(own=True) - leftover)
    if locs.demo and result.found:
        sample_labels()
    return result


def reads_events(locs: Locations, options: Options) -> bool:
    """Whether the pass has an events log to read: without one, leaving the events' indexes out
    would only hold the early derives back."""
    return bool(
        discovery.event_sources(locs, state_dir=options.state_dir, legacy=options.legacy, extra=options.extra)
    )


def sample_labels() -> services.Imported:
    """The bundled sample's relevance labels (sample/labels.py), so that precision and κ show before
    anyone labels; importing them again changes nothing (services.relevance_labels_import)."""
    rows = sample_rows(SAMPLE_LABELS.read_bytes().split(b"\n"))
    return services.relevance_labels_import(rows=rows, by="the bundled sample")


def ledger_pass(locs: Locations, *, derive: bool = True) -> LedgerPass:
    """Ledger documents, knowledge candidates derived at the episode boundaries, knowledge records."""
    result = import_documents(locs)
    if derive:
        result.derived = candidates.derive_due(
            locs.knowledge_dir, Session.objects.all(), written=result.written
        )
    return import_knowledge_dirs(locs, result)
