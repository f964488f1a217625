"""The turns' transcript-line keys and a turn way's judge key (migration 0042), and a transcript
line's tool keys (0043), are indexed only where they name something: a row that names nothing costs
no index write, and a lookup by a value still goes through the index, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from django.db import connection

from tests.introspect.migrations.schema_editor import Editor
from introspect.models import TranscriptEntry, Turn, TurnWay

pytestmark = pytest.mark.django_db

MIGRATIONS = Path(__file__).resolve().parents[3] / "introspect" / "migrations"
[MIGRATION] = MIGRATIONS.glob("*_not_null_indexes.py")
migration = importlib.import_module(f"introspect.migrations.{MIGRATION.stem}")
KEYS = [
    (Turn._meta.db_table, "prompt_entry_id"),
    (Turn._meta.db_table, "context_entry_id"),
    (Turn._meta.db_table, "nearest_prompt_id"),
    (TurnWay._meta.db_table, "judge_event_id"),
]
TOOL_KEYS = [(TranscriptEntry._meta.db_table, "tool_use_id"), (TranscriptEntry._meta.db_table, "tool_result_id")]


def index_sql(table: str, column: str) -> list[str]:
    """The definition of each index on exactly this column."""
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, table)
        names = [
            name
            for name, info in found.items()
            if info["index"] and not info["primary_key"] and info["columns"] == [column]
        ]
        query = (
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = %s"
            if connection.vendor == "sqlite"
            else "SELECT indexdef FROM pg_indexes WHERE indexname = %s"
        )
        definitions = []
        for name in names:
            cursor.execute(query, [name])
            definitions += [row[0] for row in cursor.fetchall()]
        return definitions


@pytest.mark.parametrize(("table", "column"), KEYS + TOOL_KEYS)
def test_each_key_has_one_index_holding_only_the_rows_that_name_a_row(table, column):
    [sql] = index_sql(table, column)
    assert "IS NOT NULL" in sql.upper(), sql


def test_undone_the_full_indexes_are_back_and_done_again_they_go():
    migration.create_full_indexes(None, Editor())
    for table, column in KEYS:
        assert any("IS NOT NULL" not in sql.upper() for sql in index_sql(table, column))

    migration.drop_full_indexes(None, Editor())

    for table, column in KEYS:
        assert index_sql(table, column) == []


@pytest.mark.parametrize(
    "where",
    [
        "prompt_entry_id = 7",
        "prompt_entry_id IN (7, 8)",
        "prompt_entry_id IN (7, 8) OR nearest_prompt_id IN (7, 8)",  # the search's prompt anchors
        "context_entry_id IN (7, 8)",
    ],
)
def test_a_lookup_by_value_reads_the_partial_index_not_the_table(where):
    assert "INDEX turn_" in plan_of(Turn, where)


@pytest.mark.parametrize("where", ["tool_use_id = 'toolu_1'", "tool_result_id IN ('toolu_1', 'toolu_2')"])
def test_a_call_or_its_result_is_found_by_its_tool_key_through_the_partial_index(where):
    assert "INDEX entry_tool_" in plan_of(TranscriptEntry, where)


def plan_of(model, where: str) -> str:
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's plan is the one read here")
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN SELECT id FROM {model._meta.db_table} WHERE {where}")
        plan = " ".join(str(row[-1]) for row in cursor.fetchall())
    assert "SCAN" not in plan, plan
    return plan
