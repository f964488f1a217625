"""The raw lines' sha256 index dropped (nothing looks a raw line up by hash: its one reader,
store_events' same-source test, now asks the event's own source), and the near-miss index made
partial (only `way_nearmiss` rows, 3 % of the events). On the bench's large tier the two were 156 MB
of a 2.4 GB database, and the hash index cost a random B-tree write for every line imported.

Only the index goes: Django's AlterField would copy the raw lines' table on SQLite, which on a real
history takes minutes before `serve` listens.
"""

from django.db import migrations, models


def indexes_on(schema_editor, table: str, columns: list[str]) -> list[str]:
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, table)
    # PostgreSQL keeps a second, pattern-ops index for a CharField's LIKE lookups: both go.
    return [
        name
        for name, info in found.items()
        if info["index"] and not info["unique"] and not info["primary_key"] and info["columns"] == columns
    ]


def drop_hash_index(apps, schema_editor):
    for name in indexes_on(schema_editor, "introspect_rawline", ["sha256"]):
        schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(name)}")


def create_hash_index(apps, schema_editor):
    schema_editor.execute("CREATE INDEX IF NOT EXISTS introspect_rawline_sha256_single ON introspect_rawline (sha256)")


class Migration(migrations.Migration):
    dependencies = [
        ("introspect", "0019_prompt_injections_index"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(drop_hash_index, create_hash_index)],
            state_operations=[
                migrations.AlterField(
                    model_name="rawline",
                    name="sha256",
                    field=models.CharField(max_length=64),
                ),
            ],
        ),
        migrations.AlterField(
            model_name="transcriptentry",
            name="raw",
            field=models.BinaryField(help_text="the line; compressed when raw_compressed (lib/linepack.py)"),
        ),
        migrations.RemoveIndex(
            model_name="waysevent",
            name="event_session_kind_ts",
        ),
        migrations.AddIndex(
            model_name="waysevent",
            index=models.Index(
                condition=models.Q(("event", "way_nearmiss")),
                fields=["session", "ts"],
                name="event_session_nearmiss",
            ),
        ),
    ]
