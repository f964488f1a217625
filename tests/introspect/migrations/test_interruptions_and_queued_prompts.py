"""0024: rows imported before the importer knew interruptions and queued prompts are read again."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from introspect.models import TranscriptEntry
from tests.introspect import plain_session

pytestmark = pytest.mark.django_db

migration = importlib.import_module("introspect.migrations.0024_interruptions_and_queued_prompts")


def test_it_gives_old_rows_the_flags_and_words_a_new_import_gives_them(home):
    plain_session.plain_session(home)
    rows = TranscriptEntry.objects.filter(session__sid=plain_session.SID)
    fresh = {row.pk: (row.subtype, row.text, row.is_prompt) for row in rows}
    # As the importer left them before: an interruption was a prompt, a queued prompt had no words
    # and no flag, a queue operation no subtype.
    rows.filter(type="user", text__startswith="[Request interrupted").update(is_prompt=True)
    rows.filter(type="attachment", subtype="queued_command").update(text="", is_prompt=False)
    rows.filter(type="queue-operation").update(subtype="")

    migration.forwards(apps, None)

    assert {row.pk: (row.subtype, row.text, row.is_prompt) for row in rows.all()} == fresh
    assert rows.get(uuid="q1").is_prompt and not rows.get(uuid="x1").is_prompt
    assert sorted(rows.filter(type="queue-operation").values_list("subtype", flat=True)) == [
        "enqueue",
        "remove",
    ]
