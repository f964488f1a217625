"""The turns keep two indexes that start with their session, not three (migration 0041): the one
Django made for the foreign key is dropped, in place, and a turn is still found by its session
through an index."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from django.db import connection

from tests.introspect.migrations.schema_editor import Editor
from introspect.models import Turn

pytestmark = pytest.mark.django_db

MIGRATIONS = Path(__file__).resolve().parents[3] / "introspect" / "migrations"
[MIGRATION] = MIGRATIONS.glob("*_turn_session_index_dropped.py")
migration = importlib.import_module(f"introspect.migrations.{MIGRATION.stem}")
TABLE = Turn._meta.db_table


def session_indexes() -> dict[str, list[str]]:
    """The indexes and unique keys of the turns whose first column is their session, with their columns
    (a foreign key's own constraint is no index: it is left out)."""
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, TABLE)
    return {
        name: info["columns"]
        for name, info in found.items()
        if (info["index"] or info["unique"]) and not info["primary_key"] and info["columns"][:1] == ["session_id"]
    }


def test_the_session_is_indexed_only_by_the_unique_key_and_the_window_index():
    assert sorted(session_indexes().values()) == [
        ["session_id", "epoch"],
        ["session_id", "window", "epoch", "token_position"],
    ]


def test_undone_the_single_column_index_is_back_and_done_again_it_goes():
    migration.create_session_index(None, Editor())
    assert ["session_id"] in session_indexes().values()

    migration.drop_session_index(None, Editor())

    assert ["session_id"] not in session_indexes().values()


def test_a_session_s_turns_are_still_found_through_an_index():
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's plan is the one read here")
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN SELECT id FROM {TABLE} WHERE session_id = 1 ORDER BY epoch")
        plan = " ".join(str(row[-1]) for row in cursor.fetchall())
    assert "USING" in plan and "INDEX" in plan and "SCAN" not in plan.replace("SCAN USING", ""), plan
