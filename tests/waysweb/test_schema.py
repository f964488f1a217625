"""One process migrates at a time: a second waits for the first, then finds nothing to do."""

from __future__ import annotations

import fcntl
import os

import pytest
from django.db import connection

from introspect.importer import lock
from waysweb import schema

pytestmark = pytest.mark.django_db


def held_elsewhere() -> bool:
    """Whether another holder has the migrate lock (what a second process would wait for)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                " AND ((classid::bigint << 32) | objid::bigint) = %s",
                [schema.ADVISORY_KEY],
            )
            return cursor.fetchone()[0] == 1
    fd = os.open(lock.lock_path("migrate"), os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def test_it_holds_the_migrate_lock_while_migrating_and_lets_it_go_after():
    with schema.migrating():
        assert held_elsewhere()
    assert not held_elsewhere()


def test_a_second_migrate_finds_nothing_left_to_do():
    schema.migrate()  # the test database is migrated already: a no-op, under the lock
    assert not held_elsewhere()
