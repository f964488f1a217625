"""One importer at a time: a lock its predecessor lets go of a moment later is still taken."""

from __future__ import annotations

import threading

import pytest
from django.conf import settings
from django.db import connection, connections

from introspect.importer import lock

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's advisory lock")


def test_a_lock_released_within_the_grace_is_taken_and_one_held_past_it_refuses(db, monkeypatch):
    """A killed importer's server process lets go of its lock only once it sees the connection
    closed: an importer started at once waits for that, and one still held after the grace is busy."""
    monkeypatch.setattr(lock, "GRACE_SECS", 2.0)
    killed = connections.create_connection("default")  # the predecessor's own database session
    with killed.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [lock.advisory_key(settings.WAYSWEB_HOST)])
    killed.inc_thread_sharing()  # closed from the timer's thread
    release = threading.Timer(0.3, killed.close)  # its session ends, and its lock with it
    release.start()
    try:
        with lock.importer_lock():
            pass
    finally:
        release.join()
    other = connections.create_connection("default")
    monkeypatch.setattr(lock, "GRACE_SECS", 0.3)
    try:
        busy = pytest.raises(lock.ImporterBusy, match="another importer")
        with lock.importer_lock(other), busy, lock.importer_lock():
            pass
    finally:
        other.close()
