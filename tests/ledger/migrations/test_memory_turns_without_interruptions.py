"""0009: a memory version's turn is counted again the way the conversation numbers turns now."""

from __future__ import annotations

import importlib
import os

import pytest
from django.apps import apps

from ledger.models import MemoryVersion
from tests.ledger.importer.test_memory_provenance import import_and_link, ingest_transcript
from tests.ledger.memory_tree import FIRST, call, memory_folder, prompt

pytestmark = pytest.mark.django_db

migration = importlib.import_module("ledger.migrations.0009_memory_turns_without_interruptions")


def test_it_counts_a_memory_versions_turn_without_the_interruption_before_it(home):
    path = memory_folder(home) / "testing.md"
    ingest_transcript(
        home,
        prompt("p1", 1, "remember how tests run"),
        prompt("x1", 2, "[Request interrupted by user]"),
        prompt("p2", 3, "write it down"),
        call("a1", 4, "toolu_w", "Write", {"file_path": str(path), "content": FIRST}),
    )
    path.write_text(FIRST)
    os.utime(path, ns=(1, 1))
    [version] = import_and_link()
    assert version.turn == 2  # turn 1, its interruption, turn 2: the call's
    MemoryVersion.objects.filter(pk=version.pk).update(turn=3)  # as counted before

    migration.forwards(apps, None)

    assert MemoryVersion.objects.get(pk=version.pk).turn == 2
