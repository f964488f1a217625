"""Give back the space migration 0045's rebuild of the events table left free (SQLite only), as 0039
did after 0038's: on the large tier's million events the file grew 1.07 -> 1.78 GB, the old table's
pages left free. VACUUM cannot run inside a transaction, hence a migration of its own."""

import importlib

from django.db import migrations

# 0039's: VACUUM where a quarter of the file or more is free, never inside a transaction.
forward = importlib.import_module("introspect.migrations.0039_return_rebuild_space").forward


class Migration(migrations.Migration):
    atomic = False  # VACUUM cannot run in a transaction

    dependencies = [("introspect", "0045_event_display_fields_in_raw")]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop, elidable=True)]
