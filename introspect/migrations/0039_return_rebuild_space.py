"""Give back the space migration 0038's rebuild of the events table left free (SQLite only).

The rebuild copies the table and drops the old one: on the large tier's million events the file grew
from 1.16 GB to 1.93 GB, 840 MB of it free pages that SQLite reuses but never returns. VACUUM
returns them; it cannot run inside a transaction, hence a migration of its own, not atomic. It runs
only where most of the file is free: a database the rebuild left so, not every fresh one.
"""

from django.db import migrations

# VACUUM when at least this share of the file's pages is free.
FREE_SHARE = 0.25


def worth_vacuum(free_pages: int, pages: int) -> bool:
    return pages > 0 and free_pages >= pages * FREE_SHARE


def return_space(cursor) -> bool:
    """VACUUM through this DB-API cursor when worth it; whether it ran."""
    cursor.execute("PRAGMA freelist_count")
    (free,) = cursor.fetchone()
    cursor.execute("PRAGMA page_count")
    (pages,) = cursor.fetchone()
    if not worth_vacuum(free, pages):
        return False
    cursor.execute("VACUUM")
    return True


def forward(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor != "sqlite" or connection.in_atomic_block:
        return  # PostgreSQL altered the table in place; a transaction (tests) cannot VACUUM
    with connection.cursor() as cursor:
        return_space(cursor)


class Migration(migrations.Migration):
    atomic = False  # VACUUM cannot run in a transaction

    dependencies = [("introspect", "0038_event_digest_key")]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop, elidable=True)]
