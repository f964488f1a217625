"""PhysicalLine: a transcript line read as one whole entry is that entry, as an event's line is the event.

The transcripts store no longer writes a RawLine row for a line its entry stands for (issue 29: the
large tier's 216,768 entries each had one beside it, 22 MB and a second insert a line); the view
reads the entry in its place. Such an entry is at the line's own place (its source, offset and
index 0), and a line with any RawLine row at its offset (a line of several records, a quarantined
part, or a line of an older database, which wrote every line's row) is read from that row alone:
the records of a spliced line sit at index 1, 2… of the same offset and are no lines of their own.
Transcripts are plain files, where a line is its offset (importer/batch.py's committed_lines).

The outcome is the one the store gave the line: inert for a slim node row, duplicate for a copy of
a uuid another file holds, imported otherwise (entry_rows.store_entries).
"""

import importlib

from django.db import migrations

# 0037's view: a line's RawLine row, else the event read from it (a RawLine at a place wins).
BEFORE = importlib.import_module("introspect.migrations.0037_physical_lines").VIEW
# And else its transcript entry. Entry ids are set apart from the events' negative ones below -2**62.
VIEW = (
    BEFORE.rstrip()
    + """
UNION ALL
SELECT -4611686018427387904 - t.id AS id, t.source_id, t."offset", t."index", t.sha256, NULL,
    CASE WHEN t.inert THEN 'inert' WHEN t.is_copy THEN 'duplicate' ELSE 'imported' END
FROM introspect_transcriptentry t
WHERE t."index" = 0 AND NOT EXISTS (
    SELECT 1 FROM introspect_rawline r WHERE r.source_id = t.source_id AND r."offset" = t."offset"
)
"""
)

DROP = "DROP VIEW IF EXISTS introspect_physicalline"


class Migration(migrations.Migration):
    dependencies = [
        ("introspect", "0043_tool_indexes_not_null"),
    ]

    operations = [
        migrations.RunSQL([DROP, VIEW], [DROP, BEFORE]),
    ]
