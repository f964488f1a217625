"""WaysEvent's key: `digest`, the first 8 bytes of the line's sha256, unique; `sha256` kept unindexed
and compared on every look-up (issue 29: the hex unique index made the events' write floor 35 s
for a million rows, 21.6 s with the integer key; bench/results/2026-12-01-events-indexes.txt).

SQLite cannot drop a column's inline UNIQUE without rebuilding the table, and Django's AlterField
rebuilds it with every index kept up row by row (162 s for the large tier's million events, last
time). The table is rebuilt here by hand instead: one INSERT … SELECT into a table without indexes
(the digest computed on the way by a function of the connection), then the indexes built at once,
in the migration's one transaction. PostgreSQL drops the constraint and adds the column in place.
"""

from django.db import migrations, models

from lib.hashing import digest64

TABLE = "introspect_waysevent"
VIEW = "introspect_physicalline"  # migration 0037: reads the events' places and hashes
# Partial both, as the model's constraints: created without a rebuild of the table on SQLite.
INDEXES = (
    'CREATE UNIQUE INDEX "event_digest_unique" ON "introspect_waysevent" ("digest") WHERE "digest" IS NOT NULL',
    'CREATE UNIQUE INDEX "event_sha256_collided" ON "introspect_waysevent" ("sha256") WHERE "digest" IS NULL',
)
SHA_UNIQUE = '"sha256" varchar(64) NOT NULL UNIQUE'


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        rebuild_sqlite(schema_editor.connection)
    else:
        in_place(apps, schema_editor)
    with schema_editor.connection.cursor() as cursor:
        for sql in INDEXES:
            cursor.execute(sql)


def rebuild_sqlite(connection):
    """The table again without the UNIQUE on sha256 and with `digest` last (where AddField puts it),
    its rows in id order, its AUTOINCREMENT sequence kept (derivation remembers event ids)."""
    connection.ensure_connection()
    connection.connection.create_function("digest64", 1, digest64, deterministic=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = %s", [TABLE])
        (table_sql,) = cursor.fetchone()
        if SHA_UNIQUE not in table_sql:
            raise RuntimeError(f"{TABLE}: sha256 is not declared as expected: {table_sql[:200]}")
        cursor.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = %s AND sql IS NOT NULL", [TABLE]
        )
        indexes = [sql for (sql,) in cursor.fetchall()]
        cursor.execute("SELECT sql FROM sqlite_master WHERE type = 'view' AND name = %s", [VIEW])
        view = cursor.fetchone()
        cursor.execute(f'PRAGMA table_info("{TABLE}")')
        columns = ", ".join(f'"{row[1]}"' for row in cursor.fetchall())
        cursor.execute("SELECT seq FROM sqlite_sequence WHERE name = %s", [TABLE])
        seq = cursor.fetchone()
        new_sql = table_sql.replace(SHA_UNIQUE, '"sha256" varchar(64) NOT NULL', 1)
        new_sql = new_sql.replace(f'CREATE TABLE "{TABLE}"', f'CREATE TABLE "new__{TABLE}"', 1)
        new_sql = new_sql.rstrip().removesuffix(")") + ', "digest" bigint NULL)'
        if view:
            cursor.execute(f"DROP VIEW {VIEW}")
        cursor.execute(new_sql)
        cursor.execute(
            f'INSERT INTO "new__{TABLE}" ({columns}, "digest") '
            f'SELECT {columns}, digest64("sha256") FROM "{TABLE}" ORDER BY "id"'
        )
        cursor.execute(f'DROP TABLE "{TABLE}"')
        cursor.execute(f'ALTER TABLE "new__{TABLE}" RENAME TO "{TABLE}"')
        if seq:
            cursor.execute("UPDATE sqlite_sequence SET seq = MAX(seq, %s) WHERE name = %s", [seq[0], TABLE])
        for sql in indexes:
            cursor.execute(sql)
        if view:
            cursor.execute(view[0])


def in_place(apps, schema_editor):
    """PostgreSQL: the unique constraint (and its pattern index) dropped as AlterField would, the
    column added and filled in one UPDATE (the hex's first 16 digits read as a signed bigint)."""
    event = apps.get_model("introspect", "WaysEvent")
    old = event._meta.get_field("sha256")
    new = models.CharField(max_length=64)
    new.set_attributes_from_name("sha256")
    new.model = event
    schema_editor.alter_field(event, old, new, strict=True)
    digest = models.BigIntegerField(null=True, blank=True)
    digest.set_attributes_from_name("digest")
    digest.model = event
    schema_editor.add_field(event, digest)
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"UPDATE {TABLE} SET digest = ('x' || left(sha256, 16))::bit(64)::bigint")


class Migration(migrations.Migration):

    dependencies = [
        ('introspect', '0037_physical_lines'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddField(
                    model_name='waysevent',
                    name='digest',
                    field=models.BigIntegerField(blank=True, help_text="sha256's first 8 bytes, signed", null=True),
                ),
                migrations.AlterField(
                    model_name='waysevent',
                    name='sha256',
                    field=models.CharField(max_length=64),
                ),
                migrations.AddConstraint(
                    model_name='waysevent',
                    constraint=models.UniqueConstraint(condition=models.Q(('digest__isnull', False)), fields=('digest',), name='event_digest_unique'),
                ),
                migrations.AddConstraint(
                    model_name='waysevent',
                    constraint=models.UniqueConstraint(condition=models.Q(('digest__isnull', True)), fields=('sha256',), name='event_sha256_collided'),
                ),
            ],
            database_operations=[migrations.RunPython(forward, elidable=False)],
        ),
    ]
