"""Session.waiting_parents: the parents its trunk's built lines name that none of them has.

An extension used to ask every older line of the trunk whether it names a new line as its parent
(no index serves parent_uuid: on an 18,000-line session, a read of every line on each followed
pass). Such an older line names a parent that no older line has, and those are few, so each
session keeps them (derive/extend.py). Here they are found for the sessions built before: each
trunk's lines up to the session's built mark read once; past the kept number, NULL (ask the lines).
"""

from __future__ import annotations

from django.db import migrations, models

WAITING_KEPT = 32  # derive.trunk_facts.WAITING_KEPT when this was written


def find_waiting_parents(apps, schema_editor) -> None:
    Session = apps.get_model("introspect", "Session")
    TranscriptEntry = apps.get_model("introspect", "TranscriptEntry")
    built = Session.objects.filter(transcript__isnull=False, built_entry_id__gt=0)
    for pk, trunk, top in built.values_list("pk", "transcript_id", "built_entry_id").iterator():
        uuids, parents = set(), set()
        lines = TranscriptEntry.objects.filter(source_id=trunk, pk__lte=top)
        for uuid, parent in lines.values_list("uuid", "parent_uuid").iterator(chunk_size=5000):
            if uuid:
                uuids.add(uuid)
            if parent:
                parents.add(parent)
        waiting = parents - uuids
        Session.objects.filter(pk=pk).update(
            waiting_parents=sorted(waiting) if len(waiting) <= WAITING_KEPT else None
        )


class Migration(migrations.Migration):
    dependencies = [
        ("introspect", "0035_sourcefile_underived"),
    ]

    operations = [
        migrations.AddField(
            model_name="session",
            name="waiting_parents",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="parent uuids the trunk's built lines name that none of them has, sorted; "
                "NULL: more than derive.trunk_facts.WAITING_KEPT (ask the lines)",
                null=True,
            ),
        ),
        migrations.RunPython(find_waiting_parents, migrations.RunPython.noop),
    ]
