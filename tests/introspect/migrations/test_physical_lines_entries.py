"""0044: the view of every physical line reads a whole transcript line from its entry; undone, it is
0037's view again (the RawLine rows and the events' places only), on SQLite and PostgreSQL alike."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from introspect.models import PhysicalLine, RawLine, SourceFile, TranscriptEntry
from tests.introspect.migrations.schema_editor import Editor

pytestmark = pytest.mark.django_db

MIGRATIONS = Path(__file__).resolve().parents[3] / "introspect" / "migrations"
[MIGRATION] = MIGRATIONS.glob("*_physical_lines_entries.py")
migration = importlib.import_module(f"introspect.migrations.{MIGRATION.stem}")


def entry_line() -> SourceFile:
    row = SourceFile.objects.create(kind="transcript", root="/t", rel_path="s.jsonl", session_key="s")
    TranscriptEntry.objects.create(
        source=row, offset=0, index=0, session_key="s", type="user", sha256="a" * 64, raw=b"{}"
    )
    RawLine.objects.create(source=row, offset=3, index=0, sha256="b" * 64, length=9, outcome="inert")
    return row


def run(statements: list[str]) -> None:
    editor = Editor()
    for sql in statements:
        editor.execute(sql)


def test_done_the_entry_is_its_line_and_undone_only_the_raw_rows_are():
    row = entry_line()
    lines = PhysicalLine.objects.filter(source=row).order_by("offset")
    assert list(lines.values_list("offset", "sha256", "outcome")) == [
        (0, "a" * 64, "imported"),
        (3, "b" * 64, "inert"),
    ]
    [operation] = migration.Migration.operations
    run(operation.reverse_sql)
    assert list(lines.values_list("offset", "outcome")) == [(3, "inert")]
    run(operation.sql)
    assert list(lines.values_list("offset", "outcome")) == [(0, "imported"), (3, "inert")]
