"""WaysEvent keeps its display-only fields in its raw line: sixteen columns no query selects by, joins
on, sorts or sums (rules/event_fields.UNSTORED, with the score generation) and `empty_fields` go;
the model reads each from `raw` when a page shows it (models.LoggedField).

Most of these columns were NULL on most rows, but each was bound on every insert: the events tier's
import pass 26.5 -> 22.1 s, its database 1,071 -> 1,005 MB (issue 29,
bench/results/2026-12-05-stop54.txt).

SQLite rebuilds the table by hand, as 0038 does: one INSERT … SELECT of the kept columns into a table
without indexes, then its indexes and the PhysicalLine view (which reads it) made again as they
stood, its AUTOINCREMENT sequence kept (derivation remembers event ids). Django's RemoveField would
copy the table once per column. PostgreSQL drops the columns in place. The undo adds the columns back
and fills them from the raw lines, as the importer would have.
"""

import json
import re

from django.db import migrations, models

from introspect.rules import event_fields

TABLE = "introspect_waysevent"
VIEW = "introspect_physicalline"  # 0037, 0044: reads the events' places and hashes
# Each field, its column, and the column as 0044 left it (for the undo).
DROPPED = {
    "domain": ("domain", models.CharField(max_length=255, null=True, blank=True)),
    "scope": ("scope", models.CharField(max_length=64, null=True, blank=True)),
    "agent_id": ("agent_id", models.CharField(max_length=512, null=True, blank=True)),
    "surface": ("surface", models.TextField(null=True, blank=True)),
    "check_id": ("check", models.CharField(max_length=512, null=True, blank=True, db_column="check")),
    "schema_gen": (
        "schema_gen",
        models.CharField(max_length=16, null=True, blank=True, help_text="raw_score or calibrated"),
    ),
    "prob_multi": ("prob_multi", models.FloatField(null=True, blank=True)),
    "tau_s": ("tau_s", models.FloatField(null=True, blank=True)),
    "floor": ("floor", models.FloatField(null=True, blank=True)),
    "margin": ("margin", models.FloatField(null=True, blank=True)),
    "score_en": ("score_en", models.FloatField(null=True, blank=True)),
    "score_multi": ("score_multi", models.FloatField(null=True, blank=True)),
    "thr_en": ("thr_en", models.FloatField(null=True, blank=True)),
    "thr_multi": ("thr_multi", models.FloatField(null=True, blank=True)),
    "floor_en": ("floor_en", models.FloatField(null=True, blank=True)),
    "floor_multi": ("floor_multi", models.FloatField(null=True, blank=True)),
    "empty_fields": (
        "empty_fields",
        models.JSONField(default=list, blank=True, help_text="fields logged as '' (not absent)"),
    ),
}
FILL_BATCH = 2000


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        rebuild_sqlite(schema_editor.connection)
        return
    with schema_editor.connection.cursor() as cursor:
        drops = ", ".join(f'DROP COLUMN IF EXISTS "{column}"' for column, _ in DROPPED.values())
        cursor.execute(f"ALTER TABLE {TABLE} {drops}")


def rebuild_sqlite(connection):
    with connection.cursor() as cursor:
        cursor.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = %s", [TABLE])
        (table_sql,) = cursor.fetchone()
        cursor.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = %s AND sql IS NOT NULL",
            [TABLE],
        )
        indexes = [sql for (sql,) in cursor.fetchall()]
        cursor.execute("SELECT sql FROM sqlite_master WHERE type = 'view' AND name = %s", [VIEW])
        view = cursor.fetchone()
        cursor.execute(f'PRAGMA table_info("{TABLE}")')
        dropped = {column for column, _ in DROPPED.values()}
        kept = [row[1] for row in cursor.fetchall() if row[1] not in dropped]
        cursor.execute("SELECT seq FROM sqlite_sequence WHERE name = %s", [TABLE])
        seq = cursor.fetchone()
        new_sql = table_sql.replace(f'CREATE TABLE "{TABLE}"', f'CREATE TABLE "new__{TABLE}"', 1)
        for column in dropped:
            # A column's definition holds no comma (CHECK (JSON_VALID(…) OR … IS NULL) included).
            new_sql, found = re.subn(rf', "{column}" [^,]*?(?=, "|\)$)', "", new_sql.rstrip())
            if found != 1:
                raise RuntimeError(f"{TABLE}: column {column} is not declared as expected: {table_sql[:300]}")
        if view:
            cursor.execute(f"DROP VIEW {VIEW}")
        cursor.execute(new_sql)
        columns = ", ".join(f'"{name}"' for name in kept)
        cursor.execute(
            f'INSERT INTO "new__{TABLE}" ({columns}) SELECT {columns} FROM "{TABLE}" ORDER BY "id"'
        )
        cursor.execute(f'DROP TABLE "{TABLE}"')
        cursor.execute(f'ALTER TABLE "new__{TABLE}" RENAME TO "{TABLE}"')
        if seq:
            cursor.execute("UPDATE sqlite_sequence SET seq = MAX(seq, %s) WHERE name = %s", [seq[0], TABLE])
        for sql in indexes:
            cursor.execute(sql)
        if view:
            cursor.execute(view[0])


def backward(apps, schema_editor):
    """The columns again, filled from each event's raw line (rules/event_fields.logged) as the
    importer would have filled them."""
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        for column, field in DROPPED.values():
            kind = field.db_type(connection)
            empty = " NOT NULL DEFAULT '[]'" if isinstance(field, models.JSONField) else " NULL"
            cursor.execute(f'ALTER TABLE {TABLE} ADD COLUMN "{column}" {kind}{empty}')
    fill(connection)


def fill(connection):
    """Each event's dropped fields read from its raw line, written back a batch at a time."""
    json_cast = "::jsonb" if connection.vendor == "postgresql" else ""
    sets = ", ".join(
        f'"{column}" = %s{json_cast if isinstance(field, models.JSONField) else ""}'
        for column, field in DROPPED.values()
    )
    last = 0
    with connection.cursor() as cursor:
        while True:
            cursor.execute(
                f'SELECT "id", "raw" FROM {TABLE} WHERE "id" > %s ORDER BY "id" LIMIT %s', [last, FILL_BATCH]
            )
            rows = cursor.fetchall()
            if not rows:
                return
            updates = []
            for pk, raw in rows:
                logged = event_fields.logged(raw)
                values = [logged["check" if name == "check_id" else name] for name in DROPPED]
                values[-1] = json.dumps(values[-1])  # empty_fields, the last: a JSON list
                updates.append((*values, pk))
            cursor.executemany(f'UPDATE {TABLE} SET {sets} WHERE "id" = %s', updates)
            last = rows[-1][0]


class Migration(migrations.Migration):
    dependencies = [
        ("introspect", "0044_physical_lines_entries"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.RemoveField(model_name="waysevent", name=name) for name in DROPPED],
            database_operations=[migrations.RunPython(forward, backward, elidable=False)],
        ),
    ]
