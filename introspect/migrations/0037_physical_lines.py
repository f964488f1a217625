"""PhysicalLine: every physical line read, as a view over RawLine and the events' own places.

The events store no longer writes a RawLine row for the line an event was read from (issue 29:
a million of them on a cold load); the view puts the two together again for every reader. The
event's source gets an index on its place instead of the source alone.
"""

import django.db.models.deletion
from django.db import migrations, models

# A line's RawLine row, else the event read from it (never both: the RawLine at a place wins).
VIEW = """
CREATE VIEW introspect_physicalline AS
SELECT r.id AS id, r.source_id, r."offset", r."index", r.sha256, r.length, r.outcome
FROM introspect_rawline r
UNION ALL
SELECT -e.id AS id, e.source_id, e.order_offset, e.order_index, e.sha256, NULL, 'imported'
FROM introspect_waysevent e
WHERE NOT EXISTS (
    SELECT 1 FROM introspect_rawline r
    WHERE r.source_id = e.source_id AND r."offset" = e.order_offset AND r."index" = e.order_index
)
"""


class Migration(migrations.Migration):

    dependencies = [
        ('introspect', '0036_session_waiting_parents'),
    ]

    operations = [
        migrations.CreateModel(
            name='PhysicalLine',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('offset', models.BigIntegerField()),
                ('index', models.IntegerField()),
                ('sha256', models.CharField(max_length=64)),
                ('length', models.BigIntegerField(null=True)),
                ('outcome', models.CharField(max_length=16)),
                ('source', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='introspect.sourcefile')),
            ],
            options={
                'db_table': 'introspect_physicalline',
                'managed': False,
            },
        ),
        # The source's own index dropped by name: AlterField rebuilt the whole table on SQLite
        # (162 s for the large tier's million events), for one index.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='waysevent',
                    name='source',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='introspect.sourcefile'),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    "DROP INDEX IF EXISTS introspect_waysevent_source_id_a2b3990f",
                    'CREATE INDEX introspect_waysevent_source_id_a2b3990f ON introspect_waysevent (source_id)',
                ),
            ],
        ),
        migrations.AddIndex(
            model_name='waysevent',
            index=models.Index(fields=['source', 'order_offset', 'order_index'], name='event_source_place'),
        ),
        migrations.RunSQL(VIEW, "DROP VIEW IF EXISTS introspect_physicalline"),
    ]
