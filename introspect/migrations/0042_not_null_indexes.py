"""The turns' transcript-line keys and the turns' ways' judge key indexed only where they name a row.

Most rows name none: an events-only history's turns join no transcript (all 421,090 turns of the
bench's large tier), and a way is judged on few of its fires (133,851 of 601,504). A full index
still took a B-tree write per row and column: 4.9 -> 4.1 s of the large tier's derived writes
(bench/results/2026-12-05-stop52.txt). A lookup by a value (`=`, `IN`: the foreign keys' SET_NULL,
the search's prompt anchors) implies NOT NULL, so SQLite and PostgreSQL use the partial index.

Only the indexes change: Django's AlterField would copy the tables on SQLite (0020's reason).
"""

import importlib

import django.db.models.deletion
from django.db import migrations, models

# The index Django named for each foreign key, found as 0020 finds the raw lines' hash index.
indexes_on = importlib.import_module("introspect.migrations.0020_rawline_hash_unindexed").indexes_on

COLUMNS = (
    ("introspect_turn", "prompt_entry_id"),
    ("introspect_turn", "context_entry_id"),
    ("introspect_turn", "nearest_prompt_id"),
    ("introspect_turnway", "judge_event_id"),
)


def drop_full_indexes(apps, schema_editor):
    # Before the partial indexes are added: the full one is each column's only index here.
    for table, column in COLUMNS:
        for name in indexes_on(schema_editor, table, [column]):
            schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(name)}")


def create_full_indexes(apps, schema_editor):
    for table, column in COLUMNS:
        name = schema_editor.quote_name(f"{table}_{column}_full")
        schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({column})")


def key(to: str, help_text: str = "") -> models.ForeignKey:
    return models.ForeignKey(
        blank=True,
        db_index=False,
        null=True,
        on_delete=django.db.models.deletion.SET_NULL,
        related_name="+",
        to=to,
        **({"help_text": help_text} if help_text else {}),
    )


def not_null(name: str, field: str) -> models.Index:
    return models.Index(condition=models.Q((f"{field}__isnull", False)), fields=[field], name=name)


class Migration(migrations.Migration):
    dependencies = [
        ("introspect", "0041_turn_session_index_dropped"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(drop_full_indexes, create_full_indexes)],
            state_operations=[
                migrations.AlterField(
                    model_name="turn",
                    name="context_entry",
                    field=key("introspect.transcriptentry", "keyed turns: the UserPromptSubmit injection"),
                ),
                migrations.AlterField(
                    model_name="turn",
                    name="nearest_prompt",
                    field=key("introspect.transcriptentry", "heuristic turns: the prompt nearest in time"),
                ),
                migrations.AlterField(
                    model_name="turn",
                    name="prompt_entry",
                    field=key("introspect.transcriptentry", "keyed turns: the user prompt"),
                ),
                migrations.AlterField(
                    model_name="turnway", name="judge_event", field=key("introspect.waysevent")
                ),
            ],
        ),
        migrations.AddIndex(model_name="turn", index=not_null("turn_prompt_entry", "prompt_entry")),
        migrations.AddIndex(model_name="turn", index=not_null("turn_context_entry", "context_entry")),
        migrations.AddIndex(model_name="turn", index=not_null("turn_nearest_prompt", "nearest_prompt")),
        migrations.AddIndex(model_name="turnway", index=not_null("turnway_judge_event", "judge_event")),
    ]
