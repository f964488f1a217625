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
from tests.faults.test_concurrency import assert_every_line_once, stored_rows
from tests.faults.test_crash_loop import (
    SEED,
    assert_same_tables,
    checkpoints_match_rows,
    cold_corpus,
    spill_figures,
)

sqlite_only = pytest.mark.skipif(
    BACKEND != "sqlite", reason="a SQLite file on a tmpfs: the SQLite run covers it"
)
postgresql_only = pytest.mark.skipif(
    BACKEND != "postgresql", reason="PostgreSQL faults: the PostgreSQL run covers it"
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


@sqlite_only
def test_case_22_read_only_database_fails_clearly_then_resumes(file_db, tmp_path):
    with tmpfs(tmp_path / "disk", "8m") as disk:
        db = file_db(disk)
        home = Home(tmp_path / "home")
        append(home.live, *lines(0, 500))
        env = db.env(home.root, tmp_path / "data")
        assert manage("ingest", "--no-ways", env=env).returncode == 0
        before = db.snapshot()
        append(home.live, *lines(500, 500))
        remount(disk, "ro")
        try:
            message = assert_clear_failure(manage("ingest", "--no-ways", env=env), "make it writable")
            assert "read-only" in message.lower() or "Read-only file system" in message
        finally:
            remount(disk, "rw")
        assert db.snapshot() == before  # nothing half-written
        again = manage("ingest", "--no-ways", env=env)
        assert again.returncode == 0, again.stderr
        assert_every_line_once(db, home)
        print(f"read-only: {message}")


@sqlite_only
def test_case_22_full_disk_fails_clearly_writes_whole_batches_only_then_resumes(file_db, tmp_path):
    with tmpfs(tmp_path / "disk", "24m") as disk:
        db = file_db(disk)
        home = Home(tmp_path / "home")
        append(home.live, *lines(0, 300))
        env = db.env(home.root, tmp_path / "data")
        assert manage("ingest", "--no-ways", env=env).returncode == 0
        before = db.snapshot()
        append(home.live, *lines(300, 3000, pad=600))  # ~2 MiB of new rows
        filler = fill(disk, leave=96 << 10)
        message = assert_clear_failure(manage("ingest", "--no-ways", env=env), "full", "free some space")
        after = db.snapshot()
        checkpoints_match_rows(db)  # whatever committed is whole batches with their checkpoints
        assert set(before["raw"]) <= set(after["raw"])
        filler.unlink()
        again = manage("ingest", "--no-ways", env=env)
        assert again.returncode == 0, again.stderr
        assert_every_line_once(db, home)
        print(f"disk full: {message}; {len(after['raw']) - len(before['raw'])} rows had committed before it")


@sqlite_only
def test_case_22_full_disk_during_an_import_with_spills_then_resumed_equals_a_clean_import(
    file_db, migrated_template, tmp_path
):
    clean = file_db()
    home, want = spilled_sessions(tmp_path, clean)
    files = [Path(f"{clean.path}{end}") for end in ("", "-wal")]
    grown = sum(f.stat().st_size for f in files if f.exists()) - migrated_template.path.stat().st_size
    with tmpfs(tmp_path / "disk", "32m") as disk:
        db = file_db(disk)
        filler = fill(disk, leave=grown // 2)
        figures = interrupted_then_resumed(db, db.env(home.root, tmp_path / "data"), filler, want)
    write_figures("full_disk_spills", figures)


@sqlite_only
def test_case_22_deleted_database_is_refused_clearly_then_rebuilt_from_the_files(
    file_db, migrated_template, tmp_path
):
    db = file_db()
    home = Home(tmp_path / "home")
    append(home.live, *lines(0, 200))
    env = db.env(home.root, tmp_path / "data")
    assert manage("ingest", "--no-ways", env=env).returncode == 0
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db.path}{suffix}").unlink(missing_ok=True)
    append(home.live, *lines(200, 100))
    assert_clear_failure(manage("ingest", "--no-ways", env=env), "no database at", "manage.py migrate")
    assert not db.path.exists()  # refused, not silently created empty
    assert manage("migrate", "--no-input", env=env).returncode == 0
    again = manage("ingest", "--no-ways", env=env)
    assert again.returncode == 0, again.stderr
    assert_every_line_once(db, home)  # every file read again from its start, once


@postgresql_only
def test_case_22_dropped_postgresql_database_fails_clearly_then_resumes(file_db, migrated_template, tmp_path):
    db = file_db()
    home = Home(tmp_path / "home")
    append(home.live, *lines(0, 200))
    env = db.env(home.root, tmp_path / "data")
    assert manage("ingest", "--no-ways", env=env).returncode == 0
    db.drop()
    append(home.live, *lines(200, 100))
    message = assert_clear_failure(manage("ingest", "--no-ways", env=env), "does not exist", "migrate")
    with pg_admin() as admin:
        admin.execute(f'CREATE DATABASE "{db.name}"')
    assert manage("migrate", "--no-input", env=env).returncode == 0
    again = manage("ingest", "--no-ways", env=env)
    assert again.returncode == 0, again.stderr
    assert_every_line_once(db, home)
    print(f"dropped database: {message}")


@postgresql_only
def test_case_22_read_only_postgresql_database_fails_clearly_then_resumes(file_db, tmp_path):
    db = file_db()
    home = Home(tmp_path / "home")
    append(home.live, *lines(0, 300))
    env = db.env(home.root, tmp_path / "data")
    assert manage("ingest", "--no-ways", env=env).returncode == 0
    before = db.snapshot()
    append(home.live, *lines(300, 300))
    with pg_admin() as admin:
        admin.execute(f'ALTER DATABASE "{db.name}" SET default_transaction_read_only = on')
    try:
        message = assert_clear_failure(
            manage("ingest", "--no-ways", env=env), "read-only", "make it writable"
        )
    finally:
        with pg_admin() as admin:
            admin.execute(f'ALTER DATABASE "{db.name}" SET default_transaction_read_only = off')
    assert db.snapshot() == before
    again = manage("ingest", "--no-ways", env=env)
    assert again.returncode == 0, again.stderr
    assert_every_line_once(db, home)
    print(f"read-only database: {message}")


@postgresql_only
def test_case_22_full_postgresql_tablespace_during_an_import_with_spills_then_resumed_equals_a_clean_import(
    file_db, migrated_template, tmp_path
):
    clean = file_db()
    home, want = spilled_sessions(tmp_path, clean)
    with pg_admin() as admin:
        sizes = dict(
            admin.execute(
                "SELECT datname, pg_database_size(datname) FROM pg_database WHERE datname IN (%s, %s)",
                (clean.name, migrated_template.name),
            ).fetchall()
        )
    grown = sizes[clean.name] - sizes[migrated_template.name]
    with tablespace_database(migrated_template, tmp_path, size=f"{(grown * 3 >> 20) + 48}m") as (db, disk):
        filler = fill(disk, leave=grown // 2)
        figures = interrupted_then_resumed(db, db.env(home.root, tmp_path / "data"), filler, want)
    write_figures("full_disk_spills", figures)


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


@postgresql_only
def test_case_22_full_postgresql_tablespace_fails_clearly_then_resumes(migrated_template, tmp_path):
    with tablespace_database(migrated_template, tmp_path, size="48m") as (db, disk):
        home = Home(tmp_path / "home")
        append(home.live, *lines(0, 300))
        env = db.env(home.root, tmp_path / "data")
        assert manage("ingest", "--no-ways", env=env).returncode == 0
        before = stored_rows(db)
        append(home.live, *lines(300, 3000, pad=600))
        filler = fill(disk, leave=64 << 10)
        message = assert_clear_failure(manage("ingest", "--no-ways", env=env), "full", "free some space")
        checkpoints_match_rows(db)
        assert stored_rows(db)["raw"] >= before["raw"]
        filler.unlink()
        again = manage("ingest", "--no-ways", env=env)
        assert again.returncode == 0, again.stderr
        assert_every_line_once(db, home)
        print(f"full tablespace: {message}")
