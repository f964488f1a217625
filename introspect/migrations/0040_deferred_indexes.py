"""The indexes a cold load left out and has not built again (introspect/importer/deferred_indexes.py)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('introspect', '0039_return_rebuild_space'),
    ]

    operations = [
        migrations.CreateModel(
            name='DeferredIndex',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=255, unique=True)),
                ('table', models.CharField(max_length=255)),
                ('sql', models.TextField()),
            ],
        ),
    ]
