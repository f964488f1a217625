"""A transcript line's tool-call and tool-result keys indexed only where it has one: one line in six
does (36,729 of the large tier's 216,768 lines). The page pairs a call with its result by value
(`=`, `IN`), which implies NOT NULL, so both databases use the partial index; the others cost every
import an index write and the database 3.5 MB (bench/results/2026-12-05-stop52.txt)."""

import importlib

from django.db import migrations

# An index of the rows whose field is not NULL, as 0042 makes them.
not_null = importlib.import_module("introspect.migrations.0042_not_null_indexes").not_null


class Migration(migrations.Migration):
    dependencies = [
        ("introspect", "0042_not_null_indexes"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="transcriptentry", name="entry_tool_use"),
        migrations.RemoveIndex(model_name="transcriptentry", name="entry_tool_result"),
        migrations.AddIndex(model_name="transcriptentry", index=not_null("entry_tool_use", "tool_use_id")),
        migrations.AddIndex(model_name="transcriptentry", index=not_null("entry_tool_result", "tool_result_id")),
    ]
