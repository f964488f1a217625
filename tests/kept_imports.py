"""An imported home built once a test session, and put back for each test that asks for it.

Importing the sample took each of ~70 browser tests seconds (minutes of every run, per backend),
and left the same rows each time. The first test that asks for a state (the sample; the sample
with its repositories; with the long plain session…) builds it with the real `ingest`; the home's
files, the data directory and the database are then kept, and each later test gets them back:

- the files copied to the same path, so every path the database holds points at this test's home,
  and whatever a test writes there (a ruling, a promoted memory, an appended line) is gone for
  the next;
- the database restored from its copy (SQLite: the backup API; PostgreSQL: its tables truncated
  and filled again from a copy kept in a schema of their own);
- each copied file's identity the importer checks (device, inode, ctime: importer/tailer.py) moved
  to the new copy's, which is what importing that copy would have stored: a later `ingest` in the
  test reads exactly what it would after building the state itself.

A state is named by the steps that made it ("sample", "sample/repos"): the fixtures that build on
one another call `start` and then `then`, and the code they pass is the same for every test.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.management.color import no_style
from django.db import connection, transaction

Manifest = dict[str, tuple[int, int, int, int, int]]  # path: dev, inode, ctime_ns, mtime_ns, size


def manifest(top: str) -> Manifest:
    """Each file under `top`, by its path relative to it, with what an importer would see of it."""
    found = {}
    folders = [top]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.path)
                else:
                    st = entry.stat(follow_symlinks=False)
                    key = entry.path[len(top) + 1 :]
                    found[key] = (st.st_dev, st.st_ino, st.st_ctime_ns, st.st_mtime_ns, st.st_size)
    return found


def replace_tree(source: Path, target: Path) -> None:
    # copy2 (copytree's default) keeps each file's mtime, which the checkpoints and the ledger's
    # "unchanged since read" test compare.
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, symlinks=True)


def tables() -> list[str]:
    """The database's own tables: on PostgreSQL those of its schema, not the importer's temporary
    staging tables that this connection also sees."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            return connection.introspection.table_names(cursor)
        cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1")
        return [name for (name,) in cursor.fetchall()]


MOVED = "UPDATE introspect_sourcefile SET dev = {p}, inode = {p}, ctime_ns = {p} WHERE id = {p}"


def moves(rows: list[tuple], before: Manifest, after: Manifest) -> list[tuple]:
    """SourceFile (id, dev, inode, ctime_ns) rows of files copied from `before` to `after`, each
    with its copy's identity; moved all at once, since a freed inode is soon another copy's."""
    new = {}
    for path, (dev, inode, ctime_ns, _, _) in before.items():
        new[(dev, inode)] = (ctime_ns, after[path][:3])
    changed = []
    for pk, dev, inode, ctime_ns in rows:
        if found := new.get((dev, inode)):
            old_ctime_ns, (new_dev, new_inode, new_ctime_ns) = found
            changed.append((new_dev, new_inode, new_ctime_ns if ctime_ns == old_ctime_ns else ctime_ns, pk))
    return changed


class SqliteCopy:
    """The whole database through SQLite's backup API: schema, rows, full-text index."""

    def __init__(self):
        self.copy = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        connection.ensure_connection()
        connection.connection.backup(self.copy)

    def move_files(self, before: Manifest, after: Manifest) -> None:
        rows = self.copy.execute("SELECT id, dev, inode, ctime_ns FROM introspect_sourcefile").fetchall()
        with self.copy:
            self.copy.executemany(MOVED.format(p="?"), moves(rows, before, after))

    def restore(self) -> None:
        connection.ensure_connection()
        self.copy.backup(connection.connection)


class PostgresCopy:
    """Every table copied into a schema of its own, put back with TRUNCATE and INSERT … SELECT.

    Django's foreign keys are DEFERRABLE INITIALLY DEFERRED, so the tables are filled in any order
    inside one transaction; the sequences then start past the restored ids."""

    count = 0

    def __init__(self):
        PostgresCopy.count += 1
        self.schema = f"kept_import_{PostgresCopy.count}"
        self.tables = tables()
        with connection.cursor() as cursor:
            cursor.execute(f"DROP SCHEMA IF EXISTS {self.schema} CASCADE; CREATE SCHEMA {self.schema}")
            for table in self.tables:
                cursor.execute(f'CREATE TABLE {self.schema}."{table}" AS TABLE public."{table}"')

    def move_files(self, before: Manifest, after: Manifest) -> None:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT id, dev, inode, ctime_ns FROM {self.schema}.introspect_sourcefile")
            changed = moves(cursor.fetchall(), before, after)
            sql = MOVED.format(p="%s").replace(
                "introspect_sourcefile", f"{self.schema}.introspect_sourcefile"
            )
            cursor.executemany(sql, changed)

    def restore(self) -> None:
        models = apps.get_models(include_auto_created=True)
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("TRUNCATE " + ", ".join(f'public."{table}"' for table in self.tables))
            for table in self.tables:
                cursor.execute(f'INSERT INTO public."{table}" SELECT * FROM {self.schema}."{table}"')
            for sql in connection.ops.sequence_reset_sql(no_style(), models):
                cursor.execute(sql)


@dataclass
class Kept:
    files: Path
    data: Path
    manifest: Manifest  # the files the kept database's identities are those of
    database: SqliteCopy | PostgresCopy


class KeptImports:
    """The states built so far this session, and the one the current test's home is in."""

    def __init__(self, root: Path):
        self.root = root
        self.home = root / "home"
        self.kept: dict[str, Kept] = {}
        self.state = ""
        self.left: tuple = ()
        self.tables: list[str] = []
        self.restored = False  # whether this test's last step was restored rather than built

    def start(self, name: str, build: Callable[[Path], None]) -> Path:
        """A fresh state: `build` lays out the (empty) home and imports it."""
        self.state = ""
        if name not in self.kept and self.home.exists():
            shutil.rmtree(self.home)
        return self.then(name, build)

    def then(self, step: str, build: Callable[[Path], None]) -> Path:
        """The current state with one more step: `build` changes the home and imports it."""
        if self.state and self.left != self.look():
            # Kept, this state would hold what the test did before this step (a signed-in user, a
            # written file), and restored, it would drop it: ask for this step's fixture first.
            raise AssertionError(f"the home or database changed after {self.state!r}, before {step!r}")
        self.state = f"{self.state}/{step}" if self.state else step
        self.restored = self.state in self.kept
        if self.restored:
            self.restore(self.kept[self.state])
        else:
            build(self.home)
            self.kept[self.state] = self.keep(self.state)
        self.left = self.look()
        return self.home

    def look(self) -> tuple:
        """What a step leaves: the home's files and each table's row count."""
        if not self.tables:
            self.tables = tables()
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT " + ", ".join(f'(SELECT count(*) FROM "{table}")' for table in self.tables)
            )
            counts = cursor.fetchone()
        return counts, manifest(str(self.home))

    def keep(self, state: str) -> Kept:
        place = self.root / "kept" / state.replace("/", "+")
        replace_tree(self.home, place / "files")
        replace_tree(Path(settings.DATA_DIR), place / "data")
        database = SqliteCopy() if connection.vendor == "sqlite" else PostgresCopy()
        return Kept(place / "files", place / "data", manifest(str(self.home)), database)

    def restore(self, kept: Kept) -> None:
        # A test that wrote nothing leaves the files as they were copied: they, and the identities
        # the kept database holds of them, serve again.
        if manifest(str(self.home)) != kept.manifest:
            replace_tree(kept.files, self.home)
            now = manifest(str(self.home))
            kept.database.move_files(kept.manifest, now)
            kept.manifest = now
        replace_tree(kept.data, Path(settings.DATA_DIR))
        kept.database.restore()
        # The restored content types keep their ids of the kept copy, not those of the flush's
        # post_migrate that the cache may still hold.
        ContentType.objects.clear_cache()
