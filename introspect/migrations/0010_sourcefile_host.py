# Several machines' importers may feed one database: a source file is known by its machine too.
from django.conf import settings
from django.db import migrations, models


def label_existing(apps, schema_editor):
    # Files imported before labels existed were read by the machine that upgrades this database.
    apps.get_model("introspect", "SourceFile").objects.filter(host="").update(host=settings.WAYSWEB_HOST)


class Migration(migrations.Migration):

    dependencies = [
        ('introspect', '0009_session_page_indexes'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='sourcefile',
            name='source_generation_unique',
        ),
        migrations.AddField(
            model_name='sourcefile',
            name='host',
            field=models.CharField(default='', help_text='WAYSWEB_HOST of the importer that read it', max_length=255),
        ),
        migrations.RunPython(label_existing, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='sourcefile',
            constraint=models.UniqueConstraint(fields=('host', 'root', 'rel_path', 'generation'),
                                               name='source_generation_unique'),
        ),
    ]
