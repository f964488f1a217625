"""A transcript line's tool-call and tool-result keys indexed only where it has one: one line in six
does (36,729 of the large tier's 216,768 lines). The page pairs a call with its result by value
(`=`, `IN`), which implies NOT NULL, so both databases use the partial index; the others cost every
import an index write and the database 3.5 MB (bench/results/2026-12-05-stop52.txt)."""

from django.db import migrations, models


def not_null(field: str, name: str) -> models.Index:
    return models.Index(condition=models.Q((f"{field}__isnull", False)), fields=[field], name=name)


class Migration(migrations.Migration):
    dependencies = [
        ("introspect", "0042_not_null_indexes"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="transcriptentry", name="entry_tool_use"),
        migrations.RemoveIndex(model_name="transcriptentry", name="entry_tool_result"),
        migrations.AddIndex(model_name="transcriptentry", index=not_null("tool_use_id", "entry_tool_use")),
        migrations.AddIndex(model_name="transcriptentry", index=not_null("tool_result_id", "entry_tool_result")),
    ]
