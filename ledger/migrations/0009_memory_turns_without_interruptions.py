"""A memory version's conversation turn, counted again now that an interruption opens no turn and a
prompt queued while the agent worked does (introspect 0024): the count of the trunk's prompts at or
before the call, as ledger/importer/memory_provenance.conversation_turn counts it."""

from __future__ import annotations

from django.db import migrations


def forwards(apps, schema_editor) -> None:
    MemoryVersion = apps.get_model("ledger", "MemoryVersion")
    Entry = apps.get_model("introspect", "TranscriptEntry")
    versions = MemoryVersion.objects.filter(turn__isnull=False, entry__isnull=False).select_related(
        "entry", "entry__session"
    )
    for version in versions.iterator():
        entry = version.entry
        if entry.session is None or entry.session.transcript_id != entry.source_id:
            continue
        turn = (
            Entry.objects.filter(
                source_id=entry.source_id,
                is_prompt=True,
                is_copy=False,
                inert=False,
                offset__lte=entry.offset,
            )
            .exclude(offset=entry.offset, index__gt=entry.index)
            .count()
        )
        if turn != version.turn:
            MemoryVersion.objects.filter(pk=version.pk).update(turn=turn)


class Migration(migrations.Migration):
    dependencies = [
        ("introspect", "0024_interruptions_and_queued_prompts"),
        ("ledger", "0008_memory"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop, elidable=False)]
