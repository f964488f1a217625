"""The SQLite full-text index of new transcript entries is filled by the loader, not a trigger.

An AFTER INSERT trigger indexed each row as it was written, interleaved with the row's own pages:
measured on the small bench corpus it made the entry inserts three times slower (1.5 s against
0.4 s for 20k rows) while one `INSERT … SELECT` per batch indexes the same rows in 0.2 s. The
loader is the only writer of `introspect_transcriptentry`; it fills the index in the transaction
that writes the rows (introspect/importer/loader.py `insert_entries`). The update and delete
triggers stay: edits and deletes by anyone keep the index in step.

Caution for later migrations: a migration that rebuilds introspect_transcriptentry on SQLite must
restore SQLITE_TRIGGERS from here (0005_search's list still has the insert trigger, which would
now index every new row twice).
"""

from __future__ import annotations

import importlib

from django.db import migrations

search = importlib.import_module("introspect.migrations.0005_search")

INSERT_TRIGGER = f"{search.FTS}_ai"
SQLITE_TRIGGERS = [sql for sql in search.SQLITE_TRIGGERS if INSERT_TRIGGER not in sql]


def drop_insert_trigger(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {INSERT_TRIGGER}")


def restore_insert_trigger(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(search.SQLITE_TRIGGERS[0])


class Migration(migrations.Migration):
    dependencies = [
        ("introspect", "0016_session_cost"),
    ]

    operations = [migrations.RunPython(drop_insert_trigger, restore_insert_trigger)]
