"""A second core for a long derive: a worker process computes the sessions' derived rows a chunk ahead
(rebuild.plans_for: it reads their events, transcript facts and files) while this process, the one
writer, writes the chunk before (rebuild.write_plans) (issue 29).

A cold import's derive after the load read a million events back and planned their sessions on the
writer while the second core stood idle: on the large tier's events that was a third of the derive.

When: a derive of more than one chunk of sessions by an `ingest` that is not following, once its
import pass is over (waysweb/passes.py): nothing else writes the sessions' inputs then (the importer
lock is held). Never where the worker could not see what the writer sees: inside a transaction (rows
not committed yet: tests) or on an in-memory database.

The writer trusts the worker with nothing it cannot do itself. A plan is used only for a session
whose inputs are still what the worker read (`current`: its derived version, newest event and newest
transcript line); any other session, and a chunk the worker did not plan (it died, it met a session
it could not plan, it went wrong), the writer plans in process, where a failure is met as it always
was (sessions.guarded). The worker holds nothing durable: the rows are written by the writer, a
session's in one transaction, and a kill of either loses nothing.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import connection
from django.db.models import Max

from introspect.derive import rebuild, session_inputs, turn_rows
from introspect.models import Session, WaysEvent
from lib import gcpause, worker_pipes

# Chunks the worker may plan ahead of the writer: each is REBUILD_CHUNK sessions' rows in memory.
AHEAD = 2
ROOT = Path(__file__).resolve().parents[2]  # the checkout: what the worker imports from
# The worker's first lines, as `python -c`: its order read and Django set up with the writer's settings
# and database before any app module is imported (none can be while the app registry is empty).
BOOT = f"""
import os, pickle, sys
sys.path.insert(0, {str(ROOT)!r})
out, sys.stdout = sys.stdout.buffer, sys.stderr  # whatever is printed is not a message
order = pickle.load(sys.stdin.buffer)
os.environ["DJANGO_SETTINGS_MODULE"] = order["settings_module"]
import django
from django.conf import settings
settings.DATABASES = {{"default": order["database"]}}  # before any connection is made
django.setup()
from introspect.derive import planner
planner.serve(order["chunks"], out)
"""


@dataclass(frozen=True)
class Planned:
    """A chunk's plans, and each session's derived version as the worker read it (Plan.session holds
    the version the plan writes)."""

    plans: list[rebuild.Plan]
    versions: dict[int, int]


@dataclass(frozen=True)
class Unplanned:
    """The worker could not plan the chunk: the writer plans it in process (and meets why there)."""

    why: str


def serve(chunks: Sequence[tuple[str, ...]], out) -> None:
    """The worker process (BOOT): each chunk's plans sent on `out`, its stdout."""
    with contextlib.suppress(BrokenPipeError):  # the writer is gone (killed): nothing of ours to keep
        work(chunks, worker_pipes.sender(out))


def work(chunks: Sequence[tuple[str, ...]], send) -> None:
    """Each chunk's plans sent as (index, Planned or Unplanned)."""
    for index, sids in enumerate(chunks):
        try:
            with gcpause.paused():  # a chunk's plans are thousands of objects, none garbage before sent
                sessions = list(Session.objects.filter(sid__in=sids))
                versions = {session.pk: session.derived_version for session in sessions}
                plans = rebuild.plans_for(sessions)
                for plan in plans:  # stamps as the writer stores them: fewer bytes, no conversion there
                    plan.turns = turn_rows.with_stored_stamps(plan.turns)
                item: Planned | Unplanned = Planned(plans, versions)
        except Exception as exc:  # the writer plans the chunk itself and meets it there
            item = Unplanned(f"{type(exc).__name__}: {exc}")
        send((index, item))


def worker_database() -> dict | None:
    """The writer's database as the worker opens it, or None where the worker would not see what
    the writer sees. On SQLite the worker's transactions (it opens none) would not take the write lock."""
    if connection.in_atomic_block:
        return None
    database = dict(connection.settings_dict)
    if connection.vendor == "sqlite":
        if connection.creation.is_in_memory_db(database["NAME"]):
            return None
        database["OPTIONS"] = {**database.get("OPTIONS", {}), "transaction_mode": "DEFERRED"}
    return database


class Planner:
    """The writer's side: each chunk's plans, asked for in the order the chunks were given."""

    def __init__(self, chunks: list[tuple[str, ...]], database: dict) -> None:
        # Plain values: the worker reads them before Django is set up (BOOT).
        order = {
            "settings_module": os.environ.get("DJANGO_SETTINGS_MODULE") or settings.SETTINGS_MODULE,
            "database": database,
            "chunks": chunks,
        }
        self.worker: worker_pipes.Worker | None = worker_pipes.spawn(BOOT, order, AHEAD)
        self.waited = 0.0  # seconds the writer waited for the worker
        self.cpu = 0.0  # the worker's CPU seconds, once it has ended

    @classmethod
    def start(cls, chunks: list[tuple[str, ...]]) -> Planner | None:
        """A worker planning these chunks, or None where one cannot help (`worker_database`)."""
        database = worker_database()
        return None if database is None or len(chunks) < 2 else cls(chunks, database)

    def plans(self, index: int) -> Planned | None:
        """The worker's plans of chunk `index`, or None: plan it in process."""
        while self.worker is not None:
            started = time.monotonic()
            message = self.worker.inbox.get()
            self.waited += time.monotonic() - started
            if message is None:
                self.close(drained=True)
                return None
            at, item = message if isinstance(message, tuple) and len(message) == 2 else (None, None)
            if not isinstance(at, int) or not isinstance(item, Planned | Unplanned):
                self.close()  # not what `work` sends (another version's worker): ended, planned here
                return None
            if at < index:
                continue  # a chunk the writer planned itself meanwhile
            if at > index:
                return None  # not expected: chunks are asked in order
            return item if isinstance(item, Planned) else None
        return None

    def close(self, *, drained: bool = False) -> None:
        worker, self.worker = self.worker, None
        if worker is not None:
            self.cpu += worker_pipes.end(worker, drained=drained)


def current(planned: Planned | None, sessions: list[Session]) -> list[rebuild.Plan] | None:
    """The worker's plans of these sessions (the writer's rows, read just now), in their order, when
    every one of them is planned from the inputs they still have; None: plan them in process."""
    if planned is None or not sessions:
        return None
    by_pk = {plan.session.pk: plan for plan in planned.plans}
    if any(session.pk not in by_pk for session in sessions):
        return None
    ids = [session.pk for session in sessions]
    events = dict(
        WaysEvent.objects.filter(session_id__in=ids)
        .values("session_id")
        .annotate(top=Max("id"))
        .values_list("session_id", "top")
    )
    entries = session_inputs.top_entry_ids(ids)
    for session in sessions:
        plan = by_pk[session.pk].session
        if (
            planned.versions.get(session.pk) != session.derived_version
            or plan.built_event_id != events.get(session.pk, 0)
            or plan.built_entry_id != entries.get(session.pk, 0)
        ):
            return None  # written to since the worker read it: planned again here
    return [by_pk[session.pk] for session in sessions]
