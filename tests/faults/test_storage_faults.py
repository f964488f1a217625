"""Fault case 22 (importer-reliability.md §14): disk full, read-only database, database deleted.

`manage.py ingest` must end non-zero with one clear line (never a traceback), leave nothing
half-written (every row and checkpoint as before, or whole batches only), and resume without
loss or duplicate once the fault is fixed. SQLite runs on a small tmpfs (filled, or remounted
read-only); PostgreSQL gets a read-only database, a full tablespace and a dropped database.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.conftest import Home, append
from tests.faults.conftest import (
    BACKEND,
    FileDatabase,
    create_database,
    event,
    manage,
    pg_admin,
    write_figures,
)
from tests.faults.test_concurrency import assert_every_line_once
from tests.faults.test_crash_loop import (
    SEED,
    assert_same_tables,
    checkpoints_match_rows,
    cold_corpus,
    spill_figures,
)


@contextlib.contextmanager
def tmpfs(mount_point: Path, size: str, *options: str):
    """A small tmpfs at `mount_point` (root only); skipped with the reason when it cannot be mounted."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mount_point.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", ",".join([f"size={size}", *options]), "tmpfs", str(mount_point)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], capture_output=True, check=False)


def remount(mount_point: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(mount_point)], check=True, capture_output=True)


def lines(first: int, count: int, pad: int = 40) -> list[bytes]:
    return [event(n, session=f"s{n % 4}", surface="x" * pad) for n in range(first, first + count)]


def assert_clear_failure(done: subprocess.CompletedProcess, *words: str) -> str:
    """Non-zero, one line on stderr, no traceback; returns the line."""
    message = done.stderr.strip()
    assert done.returncode != 0, done.stdout
    assert "Traceback" not in message and len(message.splitlines()) == 1, message
    assert message.startswith("CommandError: "), message
    for word in words:
        assert word in message, message
    return message


def spilled_sessions(tmp_path: Path, clean: FileDatabase) -> tuple[Home, dict[str, list]]:
    """Transcripts with spilled outputs (test_crash_loop.cold_corpus), and their clean import."""
    home = Home(tmp_path / "home")
    cold_corpus(random.Random(SEED)).apply(home, 0)
    done = manage("ingest", "--no-ways", env=clean.env(home.root, tmp_path / "clean-data"))
    assert done.returncode == 0, done.stderr
    return home, clean.snapshot()


def interrupted_then_resumed(db: FileDatabase, env: dict, filler: Path, want: dict[str, list]) -> dict:
    """A full disk stops the import of `want`'s files half-way; freed, the next run completes it.
    Every table then equals the clean import, spills included."""
    message = assert_clear_failure(manage("ingest", "--no-ways", env=env), "full", "free some space")
    checkpoints_match_rows(db)  # whole batches only, each with its checkpoint and placeholders
    cut = spill_figures(db.snapshot()) | {"entries": db.count("introspect_transcriptentry")}
    assert cut["entries"] < len(want["entries"]), "the disk filled after the import: make it smaller"
    filler.unlink()
    again = manage("ingest", "--no-ways", env=env)
    assert again.returncode == 0, again.stderr
    compared = assert_same_tables(db.snapshot(), want)
    figures = {"message": message, "when_full": cut, "rows_compared": compared} | spill_figures(want)
    print(f"disk full during an import with spills: {figures}")
    return figures


def fill(disk: Path, leave: int) -> Path:
    """Fill the filesystem but `leave` bytes."""
    filler = disk / "filler"
    free = shutil.disk_usage(disk).free - leave
    with open(filler, "wb") as fh:
        while free > 0:
            chunk = min(free, 1 << 20)
            try:
                fh.write(b"\0" * chunk)
                fh.flush()
            except OSError:
                break
            free -= chunk
    return filler


@contextlib.contextmanager
def tablespace_database(template: FileDatabase, tmp_path: Path, *, size: str):
    """A copy of `template` whose tablespace is a tmpfs of `size`; yields it and the mount point."""
    # The postgres server must reach the tablespace: a mount point outside pytest's private tmp dirs.
    mount_point = Path(f"/tmp/waysweb-fault-pg-{uuid.uuid4().hex[:8]}")
    with tmpfs(mount_point, size, "mode=0755") as disk:
        location = disk / "ts"
        location.mkdir()
        shutil.chown(location, "postgres", "postgres")
        space = f"waysweb_fault_{uuid.uuid4().hex[:8]}"
        db: FileDatabase | None = None
        try:
            with pg_admin() as admin:
                admin.execute(f"CREATE TABLESPACE {space} LOCATION '{location}'")
                db = create_database(tmp_path, template=template)
                admin.execute(f'ALTER DATABASE "{db.name}" SET TABLESPACE {space}')
            yield db, disk
        finally:
            if db is not None:
                db.drop()
            with pg_admin() as admin:
                admin.execute(f"DROP TABLESPACE IF EXISTS {space}")
    mount_point.rmdir()


# --- each fault on the backend at hand ------------------------------------------------------------

# A disk that holds the migrated database with room for a few hundred rows: SQLite's file, or a
# PostgreSQL tablespace (its copy of the template database is the larger).
SMALL_DISK = {"sqlite": "24m", "postgresql": "48m"}[BACKEND]
LEFT_FREE = {"sqlite": 96 << 10, "postgresql": 64 << 10}[BACKEND]


@contextlib.contextmanager
def database_on_a_small_disk(file_db, template: FileDatabase, tmp_path: Path, size: str):
    """(a fresh migrated database, the tmpfs it writes to): SQLite's file on it, or PostgreSQL's
    tablespace."""
    if BACKEND == "sqlite":
        with tmpfs(tmp_path / "disk", size) as disk:
            yield file_db(disk), disk
    else:
        with tablespace_database(template, tmp_path, size=size) as (db, disk):
            yield db, disk


@contextlib.contextmanager
def database_to_make_read_only(file_db, tmp_path: Path):
    """SQLite's file on a tmpfs of its own (remounted read-only); PostgreSQL's database anywhere."""
    if BACKEND == "sqlite":
        with tmpfs(tmp_path / "disk", "8m") as disk:
            yield file_db(disk)
    else:
        yield file_db()


@contextlib.contextmanager
def read_only(db: FileDatabase):
    """The database read-only inside: its filesystem remounted (SQLite), or every transaction of it
    (PostgreSQL's `default_transaction_read_only`)."""
    if BACKEND == "sqlite":
        remount(db.path.parent, "ro")
        try:
            yield
        finally:
            remount(db.path.parent, "rw")
        return
    with pg_admin() as admin:
        admin.execute(f'ALTER DATABASE "{db.name}" SET default_transaction_read_only = on')
    try:
        yield
    finally:
        with pg_admin() as admin:
            admin.execute(f'ALTER DATABASE "{db.name}" SET default_transaction_read_only = off')


def size_of(db: FileDatabase) -> int:
    """Bytes the database takes: SQLite's file and its write-ahead log, or PostgreSQL's database."""
    if BACKEND == "sqlite":
        files = [Path(f"{db.path}{end}") for end in ("", "-wal")]
        return sum(f.stat().st_size for f in files if f.exists())
    with pg_admin() as admin:
        return admin.execute("SELECT pg_database_size(%s)", (db.name,)).fetchone()[0]


def test_case_22_read_only_database_fails_clearly_then_resumes(file_db, tmp_path):
    with database_to_make_read_only(file_db, tmp_path) as db:
        home = Home(tmp_path / "home")
        append(home.live, *lines(0, 500))
        env = db.env(home.root, tmp_path / "data")
        assert manage("ingest", "--no-ways", env=env).returncode == 0
        before = db.snapshot()
        append(home.live, *lines(500, 500))
        with read_only(db):
            message = assert_clear_failure(
                manage("ingest", "--no-ways", env=env), "read-only", "make it writable"
            )
        assert db.snapshot() == before  # nothing half-written
        again = manage("ingest", "--no-ways", env=env)
        assert again.returncode == 0, again.stderr
        assert_every_line_once(db, home)
        print(f"read-only ({BACKEND}): {message}")


def test_case_22_full_disk_fails_clearly_writes_whole_batches_only_then_resumes(
    file_db, migrated_template, tmp_path
):
    with database_on_a_small_disk(file_db, migrated_template, tmp_path, SMALL_DISK) as (db, disk):
        home = Home(tmp_path / "home")
        append(home.live, *lines(0, 300))
        env = db.env(home.root, tmp_path / "data")
        assert manage("ingest", "--no-ways", env=env).returncode == 0
        before = db.snapshot()
        append(home.live, *lines(300, 3000, pad=600))  # ~2 MiB of new rows
        filler = fill(disk, leave=LEFT_FREE)
        message = assert_clear_failure(manage("ingest", "--no-ways", env=env), "full", "free some space")
        after = db.snapshot()
        checkpoints_match_rows(db)  # whatever committed is whole batches with their checkpoints
        assert set(before["raw"]) <= set(after["raw"])
        filler.unlink()
        again = manage("ingest", "--no-ways", env=env)
        assert again.returncode == 0, again.stderr
        assert_every_line_once(db, home)
        print(
            f"disk full ({BACKEND}): {message}; {len(after['raw']) - len(before['raw'])} rows had committed"
        )


def test_case_22_full_disk_during_an_import_with_spills_then_resumed_equals_a_clean_import(
    file_db, migrated_template, tmp_path
):
    clean = file_db()
    home, want = spilled_sessions(tmp_path, clean)
    grown = size_of(clean) - size_of(migrated_template)
    # Room for the migrated database and what the import adds to it, then filled to a quarter of that:
    # with no RawLine row beside a whole line's entry, every entry fit in half of it.
    size = {"sqlite": "32m", "postgresql": f"{(grown * 3 >> 20) + 48}m"}[BACKEND]
    with database_on_a_small_disk(file_db, migrated_template, tmp_path, size) as (db, disk):
        filler = fill(disk, leave=grown // 4)
        figures = interrupted_then_resumed(db, db.env(home.root, tmp_path / "data"), filler, want)
    write_figures("full_disk_spills", figures)


@contextlib.contextmanager
def deleted(db: FileDatabase):
    """The database gone inside (SQLite's files deleted, PostgreSQL's database dropped); after it, an
    empty database where it was, as the person told to migrate would find it."""
    if BACKEND == "sqlite":
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db.path}{suffix}").unlink(missing_ok=True)
        yield
        return  # `migrate` creates the file
    db.drop()
    yield
    with pg_admin() as admin:
        admin.execute(f'CREATE DATABASE "{db.name}"')


def test_case_22_deleted_database_is_refused_clearly_then_rebuilt_from_the_files(file_db, tmp_path):
    db = file_db()
    home = Home(tmp_path / "home")
    append(home.live, *lines(0, 200))
    env = db.env(home.root, tmp_path / "data")
    assert manage("ingest", "--no-ways", env=env).returncode == 0
    with deleted(db):
        append(home.live, *lines(200, 100))
        refused = manage("ingest", "--no-ways", env=env)
        if BACKEND == "sqlite":
            message = assert_clear_failure(refused, "no database at", "manage.py migrate")
            assert not db.path.exists()  # refused, not silently created empty
        else:
            message = assert_clear_failure(refused, "does not exist", "migrate")
    assert manage("migrate", "--no-input", env=env).returncode == 0
    again = manage("ingest", "--no-ways", env=env)
    assert again.returncode == 0, again.stderr
    assert_every_line_once(db, home)  # every file read again from its start, once
    print(f"deleted database ({BACKEND}): {message}")
