"""The turns' single-column session index dropped: their unique key (session, epoch) and their window
index (session, window, epoch, token position) both start with the session, so the third index only
cost a cold load a B-tree write per turn (421,090 on the bench's large tier, 5.4 MB;
bench/results/2026-12-05-stop50-row-floor.txt).

Only the index goes: Django's AlterField would copy the turns' table on SQLite (0020's reason).
"""

import importlib

import django.db.models.deletion
from django.db import migrations, models

# The index Django named for the foreign key, found as 0020 finds the raw lines' hash index.
indexes_on = importlib.import_module("introspect.migrations.0020_rawline_hash_unindexed").indexes_on


def drop_session_index(apps, schema_editor):
    for name in indexes_on(schema_editor, "introspect_turn", ["session_id"]):
        schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(name)}")


def create_session_index(apps, schema_editor):
    schema_editor.execute(
        "CREATE INDEX IF NOT EXISTS introspect_turn_session_single ON introspect_turn (session_id)"
    )


class Migration(migrations.Migration):
    dependencies = [
        ("introspect", "0040_deferred_indexes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(drop_session_index, create_session_index)],
            state_operations=[
                migrations.AlterField(
                    model_name="turn",
                    name="session",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="turns",
                        to="introspect.session",
                    ),
                ),
            ],
        ),
    ]
