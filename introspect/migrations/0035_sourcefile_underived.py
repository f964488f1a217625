"""SourceFile.underived: which files hold rows no derive has read yet (importer/underived.py).

Every file imported before is marked: the first start after the upgrade reads their rows once, as
every start did before, to find the sessions a killed or failed pass left behind; it clears the marks
of those it derived.
"""

from __future__ import annotations

from django.db import migrations, models


def mark_every_file(apps, schema_editor) -> None:
    apps.get_model("introspect", "SourceFile").objects.update(underived=True)


class Migration(migrations.Migration):
    dependencies = [
        ("introspect", "0034_entry_text_packed"),
    ]

    operations = [
        migrations.AddField(
            model_name="sourcefile",
            name="underived",
            field=models.BooleanField(default=False, help_text="holds rows no derive has read yet"),
        ),
        migrations.RunPython(mark_every_file, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="sourcefile",
            index=models.Index(
                condition=models.Q(underived=True), fields=["host"], name="sourcefile_underived"
            ),
        ),
    ]
