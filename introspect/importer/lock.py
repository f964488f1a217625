"""One importer at a time (importer-reliability.md §12).

An efficiency measure only: unique keys and the compare-and-set checkpoint keep a second runner
harmless. SQLite: an exclusive `flock` beside the database; PostgreSQL: an advisory lock.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.db import connection
from django.db.backends.base.base import BaseDatabaseWrapper


def advisory_key(host: str) -> int:
    """One lock per machine label: several machines feed one PostgreSQL database side by side."""
    digest = hashlib.sha256(f"waysweb importer {host}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class ImporterBusy(Exception):
    """Another importer holds the lock."""


def lock_path(purpose: str = "import") -> Path:
    """The file a lock for `purpose` is taken on: beside the SQLite database (what processes that
    must take turns share), or in the data directory for an in-memory one."""
    name = str(settings.DATABASES["default"]["NAME"])
    if name in ("", ":memory:") or name.startswith("file:"):
        return Path(settings.DATA_DIR) / f"{purpose}.lock"
    return Path(f"{name}.{purpose}.lock")


@contextmanager
def importer_lock(using: BaseDatabaseWrapper = connection) -> Iterator[None]:
    """Held for one importer's whole run. PostgreSQL advisory locks belong to a session (they are
    re-entrant inside it), so another importer is another connection — as it is in real life."""
    if using.vendor == "postgresql":
        key = advisory_key(settings.WAYSWEB_HOST)
        if not advisory_lock(using, key):
            raise ImporterBusy(
                f"another importer labelled {settings.WAYSWEB_HOST!r} (WAYSWEB_HOST) is "
                "feeding this PostgreSQL database"
            )
        try:
            yield
        finally:
            with using.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
        return
    path = lock_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ImporterBusy(f"another importer holds {path}") from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        os.close(fd)


# A killed importer's lock is released only once its server process sees the connection closed,
# which can be after a restart at once asks for it (the crash tests' resumed import, on a loaded
# machine): the lock is asked for again for this long before another importer is taken to hold it.
GRACE_SECS = 5.0


def advisory_lock(using: BaseDatabaseWrapper, key: int) -> bool:
    """Whether this session took the advisory lock `key`, asked for again for GRACE_SECS."""
    deadline = time.monotonic() + GRACE_SECS
    with using.cursor() as cursor:
        while True:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
            if cursor.fetchone()[0]:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.1)
