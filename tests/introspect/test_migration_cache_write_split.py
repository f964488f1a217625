"""Rows imported before the cache-write split had its columns get them from the lines they keep."""

from __future__ import annotations

import importlib
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection

from introspect.derive import sessions
from introspect.models import Session, TranscriptEntry

pytestmark = pytest.mark.django_db

REPO = Path(__file__).resolve().parents[2]
MIGRATIONS = REPO / "introspect" / "migrations"
# Found by its name, not its number: numbers are given when branches merge.
[MIGRATION] = MIGRATIONS.glob("*_transcriptentry_cache_write_split.py")
migration = importlib.import_module(f"introspect.migrations.{MIGRATION.stem}")
SAMPLE = REPO / "sample" / "home" / ".claude" / "projects"
COLUMNS = ("ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens", "speed")


def test_it_fills_the_split_of_rows_imported_without_it_as_an_import_would(home):
    shutil.copytree(SAMPLE, home.root / ".claude" / "projects")
    call_command("ingest", stdout=StringIO())
    rows = TranscriptEntry.objects.order_by("pk").values_list("pk", *COLUMNS)
    imported = list(rows)
    assert sum(1 for _, _, one_hour, _ in imported if one_hour) > 20
    TranscriptEntry.objects.update(**dict.fromkeys(COLUMNS))
    costs = dict(Session.objects.values_list("sid", "cost_usd"))
    Session.objects.update(cost_usd=None, derived_version=5)

    migration.fill_split(apps, connection.schema_editor())
    assert list(rows) == imported

    sessions.rebuild_sessions([])  # what the next import pass does: every session behind is rebuilt
    assert dict(Session.objects.values_list("sid", "cost_usd")) == costs


def test_it_reads_the_split_and_speed_of_a_line_and_nothing_from_others():
    line = b'{"type":"assistant","message":{"usage":{"cache_creation":{"ephemeral_1h_input_tokens":7},"speed":"fast"}}}'
    assert migration.split_of(line) == (None, 7, "fast")
    assert migration.split_of(b'{"type":"assistant","message":{"usage":{"input_tokens":3}}}') is None
    assert migration.split_of(b'{"cache_creation": torn') is None
