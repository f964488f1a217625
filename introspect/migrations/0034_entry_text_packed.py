"""An entry's long text stored as zstd on SQLite (lib/packed_text.py), its full-text index
reading it through entry_text().

The FTS5 index becomes one whose external content is a view that unpacks the text (its snippets read
the content), and its triggers hand the unpacked old text to a delete; the texts already stored are
packed here, so that equal texts are equal stored values whichever importer wrote them. The field
changes in the state only: on SQLite Django would rebuild the whole table for the class name alone.
PostgreSQL is untouched.
"""

from __future__ import annotations

import importlib

from django.db import migrations

import lib.packed_text
from lib import linepack

search = importlib.import_module("introspect.migrations.0005_search")
loader_fill = importlib.import_module("introspect.migrations.0017_search_filled_by_the_loader")
FTS, TABLE = search.FTS, search.TABLE
VIEW = f"{TABLE}_text"
TEXT = lib.packed_text.SQL_FUNCTION

PACKED_TABLE = (
    f"CREATE VIRTUAL TABLE {FTS} USING fts5("
    f"text, tool_name, type, content='{VIEW}', content_rowid='id', "
    "tokenize='unicode61 remove_diacritics 2')"
)
PACKED_VIEW = f"CREATE VIEW {VIEW} AS SELECT id, {TEXT}(text) AS text, tool_name, type FROM {TABLE}"
PACKED_TRIGGERS = [
    f"""CREATE TRIGGER {FTS}_ad AFTER DELETE ON {TABLE} WHEN old.inert = 0 BEGIN
        INSERT INTO {FTS}({FTS}, rowid, text, tool_name, type)
        VALUES ('delete', old.id, {TEXT}(old.text), old.tool_name, old.type);
    END""",
    f"""CREATE TRIGGER {FTS}_au AFTER UPDATE OF text, tool_name, type, inert ON {TABLE}
        WHEN old.inert = 0 OR new.inert = 0 BEGIN
        INSERT INTO {FTS}({FTS}, rowid, text, tool_name, type)
        SELECT 'delete', old.id, {TEXT}(old.text), old.tool_name, old.type WHERE old.inert = 0;
        INSERT INTO {FTS}(rowid, text, tool_name, type)
        SELECT new.id, {TEXT}(new.text), new.tool_name, new.type WHERE new.inert = 0;
    END""",
]
BACKFILL = (
    f"INSERT INTO {FTS}(rowid, text, tool_name, type) "
    f"SELECT id, {TEXT}(text), tool_name, type FROM {TABLE} WHERE inert = 0"
)
DROP = [f"DROP TRIGGER IF EXISTS {FTS}_au", f"DROP TRIGGER IF EXISTS {FTS}_ad", f"DROP TABLE IF EXISTS {FTS}"]


def pack_texts(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "sqlite":
        return
    for sql in DROP:
        schema_editor.execute(sql)
    # Packed by the importer's own function, in one statement: rows are read and written as SQLite steps.
    schema_editor.connection.connection.create_function(f"{TEXT}_pack", 1, linepack.pack_text, deterministic=True)
    schema_editor.execute(f"UPDATE {TABLE} SET text = {TEXT}_pack(text) WHERE length(text) > %s", [linepack.TEXT_PACK_ABOVE // 4])
    for sql in [PACKED_VIEW, PACKED_TABLE, *PACKED_TRIGGERS, BACKFILL]:
        schema_editor.execute(sql)


def unpack_texts(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "sqlite":
        return
    for sql in DROP:
        schema_editor.execute(sql)
    schema_editor.execute(f"DROP VIEW IF EXISTS {VIEW}")
    schema_editor.execute(f"UPDATE {TABLE} SET text = {TEXT}(text) WHERE typeof(text) = 'blob'")
    for sql in [search.SQLITE_TABLE, *loader_fill.SQLITE_TRIGGERS, search.SQLITE_BACKFILL]:
        schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [
        ("introspect", "0033_line_dictionary"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="transcriptentry",
                    name="text",
                    field=lib.packed_text.PackedTextField(blank=True, default=""),
                ),
            ],
        ),
        migrations.RunPython(pack_texts, unpack_texts),
    ]
