"""A cold `ingest` killed with SIGKILL while the events' indexes are left out (introspect/importer/
deferred_indexes.py), at the moment it would build them back: the next `ingest` builds them first
and ends with every row and every index a clean import has.

The crash loop's random kills seldom land in that window (the fault corpus's events go in within
a few batches), so this test puts one there: the killed run is `ingest` itself, in a process whose
`deferred_indexes.restore` kills it as soon as there is something to build.
"""

from __future__ import annotations

import signal

import pytest

from tests.conftest import Home, append, gzip_member
from tests.faults.conftest import BACKEND, event, manage, run_python

ARGS = ("--no-ways",)

KILLED_BEFORE_THE_BUILD = """
import os, signal, sys
import django
django.setup()
from django.core.management import call_command
from introspect.importer import deferred_indexes
from introspect.models import DeferredIndex

real = deferred_indexes.restore

def restore(*args, **kwargs):
    if DeferredIndex.objects.exists():
        print("killed with", DeferredIndex.objects.count(), "indexes left out", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    return real(*args, **kwargs)

deferred_indexes.restore = restore
call_command("ingest", *sys.argv[1:])
"""


REPEATED = 200  # lines of the live log its archive holds too


def events_home(home: Home) -> None:
    """Two sessions' events over an archive and the live log, overlapping (duplicates), torn at the end."""
    lines = [event(n, session=f"s{n % 2}") for n in range(3000)]
    append(home.archive("2026-10-30"), gzip_member(*lines[: 1000 + REPEATED]))
    append(home.live, *lines[1000:], b'{"ts":"2026-10-30T')


@pytest.mark.skipif(BACKEND != "sqlite", reason="indexes are left out on SQLite only")
def test_a_cold_ingest_killed_with_its_indexes_left_out_is_healed_by_the_next(file_db, tmp_path):
    clean_home, crash_home = Home(tmp_path / "clean"), Home(tmp_path / "crash")
    events_home(clean_home)
    events_home(crash_home)
    clean_db, crash_db = file_db(), file_db()
    clean = manage("ingest", *ARGS, env=clean_db.env(clean_home.root, tmp_path / "clean-data"))
    assert clean.returncode == 0, clean.stderr

    env = crash_db.env(crash_home.root, tmp_path / "crash-data")
    killed = run_python("-c", KILLED_BEFORE_THE_BUILD, *ARGS, env=env)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-3000:]
    assert "killed with 6 indexes left out" in killed.stdout  # five secondary ones and the digest key
    assert crash_db.count("introspect_deferredindex") == 6
    # Every line's event is in, the 200 lines the live log repeats of the archive not settled yet
    # (importer/event_repeats.py): the next importer settles them before it builds the key.
    assert crash_db.count("introspect_waysevent") == clean_db.count("introspect_waysevent") + REPEATED
    missing = set(clean_db.indexes()) - set(crash_db.indexes())
    assert len(missing) == 6 and all(name in clean_db.indexes() for name in missing)

    resumed = manage("ingest", *ARGS, env=env)

    assert resumed.returncode == 0, resumed.stderr
    assert crash_db.indexes() == clean_db.indexes()
    assert crash_db.count("introspect_deferredindex") == 0
    assert crash_db.snapshot() == clean_db.snapshot()  # sessions derived too: none were before the kill
