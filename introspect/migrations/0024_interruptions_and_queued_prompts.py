"""Rows imported before the importer knew interruptions and queued prompts, read again from their kept line.

- A user line "[Request interrupted by user…]" is a mark on the turn it interrupted, not a prompt.
- A `queued_command` attachment a person typed while the agent worked is a prompt (its words were
  not kept: the importer read `content`, the words are in `prompt`).
- A `queue-operation` line keeps its operation (enqueue, dequeue, remove, popAll) as its subtype.

The rules are copied here as they stand (introspect/rules/entry_kinds.py, importer/transcripts.py)
so this migration means the same thing later. Sessions are rebuilt by the next import pass
(derive.fields.DERIVED_VERSION 6), which renumbers their turns and re-joins their fire turns.
"""

from __future__ import annotations

import re

import orjson
from django.db import migrations

from lib import linepack

INTERRUPTIONS = ("[Request interrupted by user", "[Request cancelled by user")
TAGGED_PROMPT = re.compile(
    r"^\s*<(command-name|local-command-stdout|local-command-caveat|bash-input|bash-stdout|"
    r"task-notification|system-reminder|command-message)>"
)
TEXT_LIMIT = 20_000
BATCH = 500


def line_of(row) -> dict:
    try:
        value = orjson.loads(linepack.unpack(bytes(row.raw), row.raw_compressed))
    except (orjson.JSONDecodeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def text_of(value: object) -> str:
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        return ""
    parts = [
        block if isinstance(block, str) else block.get("text")
        for block in value
        if isinstance(block, str) or (isinstance(block, dict) and block.get("type") == "text")
    ]
    return "\n".join(part for part in parts if isinstance(part, str) and part)


def by_a_person(attachment: dict) -> bool:
    mode = attachment.get("commandMode")
    origin = attachment.get("origin")
    kind = origin.get("kind") if isinstance(origin, dict) else None
    return (mode if isinstance(mode, str) else "") in ("", "prompt") and (
        kind if isinstance(kind, str) else ""
    ) in ("", "human")


def update(model, rows: list, fields: list[str]) -> None:
    for start in range(0, len(rows), BATCH):
        model.objects.bulk_update(rows[start : start + BATCH], fields)


def forwards(apps, schema_editor) -> None:
    Entry = apps.get_model("introspect", "TranscriptEntry")
    for prefix in INTERRUPTIONS:
        Entry.objects.filter(type="user", is_prompt=True, text__startswith=prefix).update(is_prompt=False)

    queue = []
    for row in Entry.objects.filter(type="queue-operation").only("pk", "raw", "raw_compressed").iterator():
        operation = line_of(row).get("operation")
        row.subtype = operation[:64] if isinstance(operation, str) else ""
        queue.append(row)
    update(Entry, queue, ["subtype"])

    queued = []
    rows = Entry.objects.filter(type="attachment", subtype="queued_command")
    for row in rows.only("pk", "raw", "raw_compressed", "is_meta").iterator():
        attachment = line_of(row).get("attachment")
        attachment = attachment if isinstance(attachment, dict) else {}
        row.text = text_of(attachment.get("prompt"))[:TEXT_LIMIT]
        row.is_prompt = (
            by_a_person(attachment)
            and not row.is_meta
            and not TAGGED_PROMPT.match(row.text)
            and bool(row.text.strip())
        )
        queued.append(row)
    update(Entry, queued, ["text", "is_prompt"])


class Migration(migrations.Migration):
    dependencies = [
        ("introspect", "0023_transcriptentry_cache_write_split"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop, elidable=False)]
