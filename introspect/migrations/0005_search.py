"""Full-text search over transcript entries: FTS5 on SQLite, a GIN expression index on PostgreSQL.

Hand-written because Django has no operation for either. The SQLite index is an external-content
FTS5 table (the text is stored once, in introspect_transcriptentry) kept in sync by triggers: the
importer writes with bulk_create, so triggers are what index new rows without touching it. Inert
rows (progress chatter, snapshots) are never indexed.

Caution for later migrations: on SQLite, Django alters a table by rebuilding it (create, copy,
drop, rename), and dropping the old table drops these triggers with it. A migration that alters
introspect_transcriptentry must run SQLITE_TRIGGERS again (tests/introspect/test_search.py checks
that the triggers exist after every migration).
"""

from __future__ import annotations

from django.db import migrations

FTS = "introspect_transcriptentry_fts"
TABLE = "introspect_transcriptentry"

SQLITE_TABLE = (
    f"CREATE VIRTUAL TABLE {FTS} USING fts5("
    f"text, tool_name, type, content='{TABLE}', content_rowid='id', "
    "tokenize='unicode61 remove_diacritics 2')"
)

# External content: FTS5 cannot see the table, so a delete must hand back the old values exactly
# as they were indexed. WHEN clauses keep inert rows out on every path.
SQLITE_TRIGGERS = [
    f"""CREATE TRIGGER {FTS}_ai AFTER INSERT ON {TABLE} WHEN new.inert = 0 BEGIN
        INSERT INTO {FTS}(rowid, text, tool_name, type) VALUES (new.id, new.text, new.tool_name, new.type);
    END""",
    f"""CREATE TRIGGER {FTS}_ad AFTER DELETE ON {TABLE} WHEN old.inert = 0 BEGIN
        INSERT INTO {FTS}({FTS}, rowid, text, tool_name, type)
        VALUES ('delete', old.id, old.text, old.tool_name, old.type);
    END""",
    # Only the indexed columns: the loader and rebuild update session links in bulk, which must
    # not re-index every row they touch. One trigger, so the old row leaves before the new one
    # arrives (SQLite does not order separate triggers; the other order corrupts the index).
    f"""CREATE TRIGGER {FTS}_au AFTER UPDATE OF text, tool_name, type, inert ON {TABLE}
        WHEN old.inert = 0 OR new.inert = 0 BEGIN
        INSERT INTO {FTS}({FTS}, rowid, text, tool_name, type)
        SELECT 'delete', old.id, old.text, old.tool_name, old.type WHERE old.inert = 0;
        INSERT INTO {FTS}(rowid, text, tool_name, type)
        SELECT new.id, new.text, new.tool_name, new.type WHERE new.inert = 0;
    END""",
]

# 'rebuild' would index inert rows too: backfill with the same condition as the triggers.
SQLITE_BACKFILL = (
    f"INSERT INTO {FTS}(rowid, text, tool_name, type) "
    f"SELECT id, text, tool_name, type FROM {TABLE} WHERE inert = 0"
)

SQLITE_DROP = [
    f"DROP TRIGGER IF EXISTS {FTS}_au",
    f"DROP TRIGGER IF EXISTS {FTS}_ad",
    f"DROP TRIGGER IF EXISTS {FTS}_ai",
    f"DROP TABLE IF EXISTS {FTS}",
]

# The expression must match the one introspect/search.py queries, or the planner ignores the index.
POSTGRES_INDEX = (
    f"CREATE INDEX IF NOT EXISTS {TABLE}_text_fts ON {TABLE} "
    "USING gin (to_tsvector('simple'::regconfig, coalesce(text, '')))"
)
POSTGRES_DROP = f"DROP INDEX IF EXISTS {TABLE}_text_fts"


def create_index(apps, schema_editor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        for sql in [SQLITE_TABLE, *SQLITE_TRIGGERS, SQLITE_BACKFILL]:
            schema_editor.execute(sql)
    elif vendor == "postgresql":
        schema_editor.execute(POSTGRES_INDEX)


def drop_index(apps, schema_editor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        for sql in SQLITE_DROP:
            schema_editor.execute(sql)
    elif vendor == "postgresql":
        schema_editor.execute(POSTGRES_DROP)


class Migration(migrations.Migration):

    dependencies = [
        ("introspect", "0004_spills"),
    ]

    operations = [
        migrations.RunPython(create_index, drop_index, elidable=False),
    ]
