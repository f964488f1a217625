"""The one door into derivation: bring named sessions up to date after an import pass committed."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import batched

from django.conf import settings
from django.db.models import F

from introspect.derive import extend, fields, planner, rebuild
from introspect.importer import errors, problems, underived
from introspect.models import Session, SourceProblem, TranscriptEntry, WaysEvent
from lib import bulk, gcpause, safefs

# Sessions rebuilt together: their reads shared, their rows written in one short transaction.
REBUILD_CHUNK = 100
AREA = "sessions"  # where a session that could not be derived is listed (importer/problems.py)


@dataclass
class Derived:
    """What `rebuild_sessions` did: the sessions it tried, and those that raised (sid → why)."""

    tried: set[str] = field(default_factory=set)
    failed: dict[str, str] = field(default_factory=dict)
    planned_ahead: int = 0  # sessions written as a second process planned them (derive/planner.py)
    planner_cpu: float = 0.0  # that process's CPU seconds
    planner_waited: float = 0.0  # seconds the writer waited for it

    @property
    def count(self) -> int:
        return len(self.tried)


def rebuild_sessions(
    sids: Iterable[str],
    *,
    behind: bool = True,
    on_chunk: Callable[[int, int], None] | None = None,
    plan_ahead: bool = False,
) -> Derived:
    """Bring every named session up to date, and (with `behind`) any built by an older version.

    A session that only grew at its end is extended (derive/extend.py); any other is rebuilt whole.
    Called by whoever ran the import pass (ingest, serve, the bench, tests), never by the importer.
    A session whose derivation raises keeps its rows as they were and is listed with why (the status
    page's Not read, the pass's summary); every other session is derived, and it is tried again
    whenever it is named again. Without `behind`, only the named sessions: while a cold import
    still reads, every session it created is bare (built by no version), and sweeping them all in
    would derive each of them again and again before the load ends. `on_chunk(done, total)` is told
    after each chunk of the named sessions (the progress of a long derive). With `plan_ahead` (an
    import pass over and no other writer: waysweb/passes.py), a second process plans the named
    sessions a chunk ahead of their writing (derive/planner.py).
    """
    done = Derived()
    listed = listed_failures()
    # Chunks keep the IN list under SQLite's bound-parameter limit however many sessions a pass touched.
    chunks = list(batched(sorted(set(sids)), REBUILD_CHUNK))
    named = sum(map(len, chunks))
    ahead = planner.Planner.start(chunks) if plan_ahead else None
    try:
        for at, chunk in enumerate(chunks, start=1):
            planned = ahead.plans(at - 1) if ahead is not None else None
            derive = functools.partial(bring_up_to_date, planned=planned)
            guarded(list(Session.objects.filter(sid__in=chunk)), derive, done, alone=bring_up_to_date)
            if on_chunk is not None:
                on_chunk(min(at * REBUILD_CHUNK, named), named)
    finally:
        if ahead is not None:
            ahead.close()
            done.planner_cpu, done.planner_waited = ahead.cpu, ahead.waited
    older_rows = Session.objects.filter(derived_version__lt=fields.DERIVED_VERSION).order_by("pk")
    while behind and (older := list(older_rows.exclude(sid__in=done.failed)[:REBUILD_CHUNK])):
        guarded(older, rebuild.rebuild_many, done)  # each now at DERIVED_VERSION, or failed
    settle(listed, done)
    return done


def latest_seen(sids: Iterable[str], count: int) -> set[str]:
    """The `count` of these sessions first seen last (their rows made last): in an events log,
    written in time order, the newest sessions; a transcript file lands one session at a time."""
    rows = bulk.chunked_in(Session.objects.values_list("pk", "sid"), "sid", set(sids))
    return {sid for _, sid in sorted(rows, reverse=True)[:count]}


def bring_up_to_date(sessions: list[Session], planned: planner.Planned | None = None) -> int:
    """Extend or rebuild each session; a rebuild written as the worker planned it where its plan is
    current (derive/planner.py). The number of sessions written from the worker's plans."""
    rebuilt = [session for session in sessions if not extend.extend_session(session)]
    plans = planner.current(planned, rebuilt)
    if plans is None:
        rebuild.rebuild_many(rebuilt)
        return 0
    rebuild.write_plans(plans)
    return len(plans)


def guarded(
    sessions: list[Session],
    derive: Callable[[list[Session]], object],
    done: Derived,
    *,
    alone: Callable[[list[Session]], object] | None = None,
) -> None:
    """`derive(sessions)`; when it raises, each session again alone (by `alone`, default `derive`),
    so that one bad session holds up no other (a chunk's rebuild writes in one transaction: its
    failure wrote nothing). The collector is paused while the chunk is derived (lib/gcpause.py)."""
    done.tried.update(session.sid for session in sessions)
    try:
        with gcpause.paused():
            done.planned_ahead += derive(sessions) or 0
        return
    except Exception as exc:
        if not errors.caused_by_content(exc):
            raise
    for session in sessions:
        try:
            # Read again: the failed attempt may have changed fields it never saved.
            (alone or derive)(list(Session.objects.filter(pk=session.pk)))
        except Exception as exc:
            if not errors.caused_by_content(exc):
                raise
            done.failed[session.sid] = errors.described(exc)


def problem_path(sid: str) -> str:
    return f"session {sid}"


def listed_failures() -> set[str]:
    """The paths of the sessions listed as not derived on this host (one indexed read, usually none)."""
    rows = SourceProblem.objects.filter(host=settings.WAYSWEB_HOST, area=AREA)
    return set(rows.values_list("path", flat=True))


def settle(listed: set[str], done: Derived) -> None:
    """List the sessions that failed now; drop the listed ones that were derived now."""
    if done.failed:
        found = [
            safefs.Problem(problem_path(sid), safefs.DERIVE_FAILED, why) for sid, why in done.failed.items()
        ]
        problems.record(AREA, found, replace=False)
    fixed = listed & {problem_path(sid) for sid in done.tried - done.failed.keys()}
    if fixed:
        problems.forget(AREA, fixed)


def sessions_behind(files: Iterable[int] | None = None) -> set[str]:
    """Sessions holding rows newer than their derived rows reflect, among the rows of `files` (by
    default every file marked as holding rows not derived yet: importer/underived.py).

    A pass commits batches, then rebuilds the sessions they touched; a pass killed or failed in
    between leaves those sessions behind, and no later pass would name them again (their files
    are read). Every batch marks its file in the transaction that commits its rows, so only the
    marked files' rows are read: none, after a pass that derived what it imported.
    """
    ids = sorted(underived.marked() if files is None else files)
    events = WaysEvent.objects.filter(session__isnull=False, pk__gt=F("session__built_event_id"))
    entries = TranscriptEntry.objects.filter(session__isnull=False, pk__gt=F("session__built_entry_id"))
    found: set[str] = set()
    for start in range(0, len(ids), underived.CHUNK):
        chunk = ids[start : start + underived.CHUNK]
        for rows in (events, entries):
            found.update(rows.filter(source_id__in=chunk).values_list("session__sid", flat=True).distinct())
    return found


def catch_up() -> Derived:
    """Derive what a killed or failed pass left behind (`sessions_behind`), and clear the marks of the
    files read when every session derived; a session that failed keeps its files marked, and is tried
    again on the next start. Run once per command start and after a failed pass."""
    files = underived.marked()
    done = rebuild_sessions(sessions_behind(files))
    if not done.failed:
        underived.clear(files)
    return done
