# Ledger entries live under each person's home: known by the machine that read them too.
from django.conf import settings
from django.db import migrations, models


def label_existing(apps, schema_editor):
    apps.get_model("ledger", "LedgerEntry").objects.filter(host="").update(host=settings.WAYSWEB_HOST)


class Migration(migrations.Migration):

    dependencies = [
        ('ledger', '0002_adrs'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='ledgerentry',
            name='ledger_entry_unique',
        ),
        migrations.AddField(
            model_name='ledgerentry',
            name='host',
            field=models.CharField(default='', help_text='WAYSWEB_HOST of the importer that read it', max_length=255),
        ),
        migrations.RunPython(label_existing, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='ledgerentry',
            constraint=models.UniqueConstraint(fields=('host', 'root', 'rel_path'), name='ledger_entry_unique'),
        ),
    ]
