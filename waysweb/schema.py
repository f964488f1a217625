"""The database brought to the current schema by one process at a time.

Two `serve` started together on a new database both ran `migrate`: both found the same migrations
unapplied, and the second to create a table died on "table already exists". A lock held around
`migrate` makes the second wait for the first and then find nothing left to do. SQLite: an
exclusive `flock` beside the database (its file is what both share); PostgreSQL: an advisory lock.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager

from django.core.management import call_command
from django.db import connection

from introspect.importer import lock

ADVISORY_KEY = int.from_bytes(hashlib.sha256(b"waysweb migrate").digest()[:8], "big", signed=True)


@contextmanager
def migrating() -> Iterator[None]:
    """Held while one process migrates; another waits for it (blocking, unlike the importer's lock)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [ADVISORY_KEY])
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [ADVISORY_KEY])
        return
    path = lock.lock_path("migrate")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # released when the descriptor closes, or the process dies
        yield
    finally:
        os.close(fd)


def migrate() -> None:
    with migrating():
        call_command("migrate", interactive=False, verbosity=0)
