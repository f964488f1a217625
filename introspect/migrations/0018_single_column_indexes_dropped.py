"""Five single-column indexes that composite indexes already cover (each is their first column),
dropped: every imported row paid for them (events 9 → 7 indexes, entries 9 → 7, raw lines 3 → 2).

Only the index goes: Django's AlterField would copy each table on SQLite, which on a real history
takes minutes before `serve` listens and would drop the full-text triggers on the entries table.
"""

import django.db.models.deletion
from django.db import migrations, models

# (table, column) whose lone non-unique index is dropped.
REDUNDANT = (
    ("introspect_rawline", "source_id"),
    ("introspect_transcriptentry", "session_id"),
    ("introspect_transcriptentry", "source_id"),
    ("introspect_waysevent", "event"),
    ("introspect_waysevent", "session_id"),
)


def drop_redundant(apps, schema_editor):
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        for table, column in REDUNDANT:
            found = connection.introspection.get_constraints(cursor, table)
            for name, info in found.items():
                if (
                    info["index"]
                    and not info["unique"]
                    and not info["primary_key"]
                    and info["columns"] == [column]
                ):
                    schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(name)}")


def create_again(apps, schema_editor):
    for table, column in REDUNDANT:
        name = schema_editor.quote_name(f"{table[:40]}_{column}_single")
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON {schema_editor.quote_name(table)} ({schema_editor.quote_name(column)})"
        )


class Migration(migrations.Migration):
    dependencies = [
        ("introspect", "0017_search_filled_by_the_loader"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(drop_redundant, create_again)],
            state_operations=[
                migrations.AlterField(
                    model_name="rawline",
                    name="source",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="lines",
                        to="introspect.sourcefile",
                    ),
                ),
                migrations.AlterField(
                    model_name="transcriptentry",
                    name="session",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="entries",
                        to="introspect.session",
                    ),
                ),
                migrations.AlterField(
                    model_name="transcriptentry",
                    name="source",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="entries",
                        to="introspect.sourcefile",
                    ),
                ),
                migrations.AlterField(
                    model_name="waysevent",
                    name="event",
                    field=models.CharField(blank=True, max_length=64, null=True),
                ),
                migrations.AlterField(
                    model_name="waysevent",
                    name="session",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="events",
                        to="introspect.session",
                    ),
                ),
            ],
        ),
    ]
