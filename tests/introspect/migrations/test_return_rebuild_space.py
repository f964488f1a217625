"""After the events table's rebuild (migration 0038) the file gives its free pages back (0039)."""

from __future__ import annotations

import importlib
import sqlite3
from pathlib import Path

MIGRATIONS = Path(__file__).resolve().parents[3] / "introspect" / "migrations"
[MIGRATION] = MIGRATIONS.glob("*_return_rebuild_space.py")
migration = importlib.import_module(f"introspect.migrations.{MIGRATION.stem}")


def filled(path: Path) -> sqlite3.Connection:
    database = sqlite3.connect(path, isolation_level=None)
    database.execute("CREATE TABLE t (x TEXT)")
    database.executemany("INSERT INTO t VALUES (?)", [("x" * 500,) for _ in range(4000)])
    return database


def test_a_file_mostly_free_after_a_rebuild_is_vacuumed(tmp_path):
    database = filled(tmp_path / "db.sqlite3")
    database.execute("DELETE FROM t")  # as the old table dropped by the rebuild
    assert database.execute("PRAGMA freelist_count").fetchone()[0] > 100
    assert migration.return_space(database.cursor()) is True
    assert database.execute("PRAGMA freelist_count").fetchone()[0] == 0


def test_a_file_in_use_is_left_as_it_is(tmp_path):
    database = filled(tmp_path / "db.sqlite3")
    pages = database.execute("PRAGMA page_count").fetchone()[0]
    assert migration.return_space(database.cursor()) is False
    assert database.execute("PRAGMA page_count").fetchone()[0] == pages


def test_a_quarter_free_is_the_threshold():
    assert not migration.worth_vacuum(24, 100)
    assert migration.worth_vacuum(25, 100)
    assert not migration.worth_vacuum(0, 0)


def test_the_events_rebuild_of_0045_gives_its_space_back_the_same_way():
    [later] = MIGRATIONS.glob("*_return_event_rebuild_space.py")
    again = importlib.import_module(f"introspect.migrations.{later.stem}")
    [operation] = again.Migration.operations
    assert again.Migration.atomic is False and operation.code is migration.forward
