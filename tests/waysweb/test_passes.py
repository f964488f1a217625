"""A pass derives its first sessions while it reads and every other one once, after the load
(waysweb/passes.py): the derived rows are those a derive after every batch leaves."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from introspect.derive import sessions
from introspect.importer import batch, discovery, loader, progress, tailer
from introspect.importer.deferred_indexes import supported
from introspect.importer.run import Options, StillToRead
from introspect.models import DeferredIndex, Project, Session
from lib import locations
from tests.introspect.derive.test_extend import snapshot
from waysweb import passes


def derived_rows() -> dict:
    """Every derived table (tests/introspect/derive/test_extend.py), a session's project by its path:
    projects are numbered in the order sessions are first derived in."""
    rows = snapshot()
    paths = dict(Project.objects.values_list("pk", "path"))
    for fields in rows["sessions"].values():
        fields["project_id"] = paths.get(fields["project_id"])
    return rows


@pytest.fixture
def calls(monkeypatch) -> list[set[str]]:
    """The sessions named to each `rebuild_sessions` of a pass."""
    named: list[set[str]] = []
    real = sessions.rebuild_sessions

    def spy(sids, **kwargs):
        named.append(set(sids))
        return real(named[-1], **kwargs)

    monkeypatch.setattr(sessions, "rebuild_sessions", spy)
    return named


def cold_import(monkeypatch, *, early: int, defer_indexes: bool = False) -> passes.PassResult:
    # Batches of a few lines, so that a session's events and lines land over many batches and
    # archives, as a long history's do.
    monkeypatch.setattr(tailer, "BATCH_LINES", 7)
    monkeypatch.setattr(passes, "DERIVE_EVERY_SECS", 0.0)
    monkeypatch.setattr(passes, "DERIVE_SHARE", 1e9)  # no pause between derives
    monkeypatch.setattr(passes, "EARLY_SESSIONS", early)
    return passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False), defer_indexes=defer_indexes)


@pytest.mark.django_db(transaction=True)
def test_deriving_after_the_load_leaves_every_derived_row_as_deriving_after_every_batch(
    home, monkeypatch, calls
):
    shutil.copytree(locations.SAMPLE_HOME, home.root, symlinks=True, dirs_exist_ok=True)
    # Both imports from ids numbered from 1: the rows compared name the lines and events they point at.
    call_command("flush", interactive=False, verbosity=0)
    cold_import(monkeypatch, early=10**9)
    inline = derived_rows()
    assert len(calls) > 10  # derived batch after batch, while the pass read
    assert inline["turns"] and inline["turn_ways"] and inline["windows"] and inline["turn_outcomes"]

    call_command("flush", interactive=False, verbosity=0)
    calls.clear()
    cold_import(monkeypatch, early=0)
    assert len(calls) == 1  # once, after the load: every session it touched
    assert calls[0] == set(inline["sessions"])
    assert derived_rows() == inline


@pytest.mark.django_db(transaction=True)
def test_a_long_pass_says_how_many_sessions_it_has_put_together_after_the_load(home, monkeypatch):
    shutil.copytree(locations.SAMPLE_HOME, home.root, symlinks=True, dirs_exist_ok=True)
    monkeypatch.setattr(sessions, "REBUILD_CHUNK", 2)  # the sample's sessions are a few chunks
    monkeypatch.setattr(progress, "SHOW_AFTER_SECS", 0.0)  # published from the first batch on
    monkeypatch.setattr(progress, "HEARTBEAT_EVERY_SECS", 0.0)
    seen: list[progress.Snapshot] = []
    real = progress.write

    def kept(snap: progress.Snapshot) -> None:
        seen.append(snap)
        real(snap)

    monkeypatch.setattr(progress, "write", kept)
    cold_import(monkeypatch, early=0)
    deriving = [snap for snap in seen if snap.deriving]
    total = Session.objects.count()
    assert [snap.sessions_done for snap in deriving] == [*range(2, total, 2), total]
    assert {snap.sessions_total for snap in deriving} == {total}
    assert all(snap.bytes_done == snap.bytes_total for snap in deriving)  # reading was done
    assert progress.current() is None  # cleared once every session is put together


@pytest.mark.skipif(not supported(), reason="indexes are deferred on SQLite only")
@pytest.mark.parametrize("worker", [False, True], ids=["one process", "prepare worker"])
@pytest.mark.django_db(transaction=True)
def test_a_cold_load_without_the_events_indexes_derives_every_row_as_one_with_them(
    home, monkeypatch, calls, settings, worker
):
    # With the worker, settled sessions are derived while the writer waits for it: the indexes are
    # built before the first of them, once no events log is left to read.
    settings.WAYSWEB_PREPARE_WORKER_BYTES = 1 if worker else 0
    shutil.copytree(locations.SAMPLE_HOME, home.root, symlinks=True, dirs_exist_ok=True)
    call_command("flush", interactive=False, verbosity=0)
    cold_import(monkeypatch, early=10**9)
    indexed = derived_rows()

    call_command("flush", interactive=False, verbosity=0)
    calls.clear()
    deferred_while_deriving = []
    real = sessions.rebuild_sessions

    def watched(sids, **kwargs):
        deferred_while_deriving.append(DeferredIndex.objects.count())
        return real(sids, **kwargs)

    monkeypatch.setattr(sessions, "rebuild_sessions", watched)
    result = cold_import(monkeypatch, early=10**9, defer_indexes=True)

    assert result.indexes_built > 0  # left out while the events went in
    assert deferred_while_deriving and set(deferred_while_deriving) == {
        0
    }  # none derived before they were back
    assert not DeferredIndex.objects.exists()
    assert derived_rows() == indexed


@pytest.mark.django_db(transaction=True)
def test_while_the_writer_waits_the_sessions_whose_files_landed_first_are_derived_first(monkeypatch):
    # Files land newest first (discovery.newest_first): the sessions derived in the writer's idle
    # time are the list's first page, in the order they landed, whatever the sessions' ids hash to.
    landing = [f"session-{n:02d}" for n in (7, 3, 9, 1, 5, 8, 2)]
    derived: list[list[str]] = []
    monkeypatch.setattr(passes, "IDLE_LINES", 1)  # one session per idle moment
    monkeypatch.setattr(passes, "DERIVE_EVERY_SECS", 1e9)  # no timed derive in between
    monkeypatch.setattr(
        sessions, "rebuild_sessions", lambda sids, **kw: derived.append(list(sids)) or sessions.Derived()
    )

    class Stopped(Exception):
        pass

    def reading(locs, options, *, on_file, idle, **kw):
        for sid in landing:
            source = discovery.Source("transcript", Path("/nowhere"), f"{sid}.jsonl", 0, session_key=sid)
            on_file(loader.FileResult(source, batch.Counts(lines=10), {sid}))
        nothing_left = StillToRead([], {})
        while idle(nothing_left):
            pass
        raise Stopped  # the rest of the pass is not this test's

    monkeypatch.setattr(passes, "import_pass", reading)
    with pytest.raises(Stopped):
        passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False))
    assert derived == [[sid] for sid in landing]
