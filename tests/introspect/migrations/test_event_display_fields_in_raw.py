"""0045: an event's display-only fields leave its row for its raw line, every row and index kept;
undone, the columns come back filled from the raw lines, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
from django.db import connection

from introspect.models import PhysicalLine, SourceFile, WaysEvent
from lib import hashing
from tests.introspect.migrations.schema_editor import Editor

pytestmark = pytest.mark.django_db

MIGRATIONS = Path(__file__).resolve().parents[3] / "introspect" / "migrations"
[MIGRATION] = MIGRATIONS.glob("*_event_display_fields_in_raw.py")
migration = importlib.import_module(f"introspect.migrations.{MIGRATION.stem}")
LINES = [
    {"ts": "2026-11-02T10:00:00Z", "event": "way_nearmiss", "way": "d/a", "tau_s": "0.6", "prob_multi": 0.4},
    {"event": "check_fired", "check": "c/1", "agent_id": "a7", "surface": "", "score_en": "0.25"},
    {"event": "way_fired", "way": "d/b", "scope": "project", "domain": "d"},
]


def stored_events() -> list[WaysEvent]:
    source = SourceFile.objects.create(kind="events", root="/s", rel_path="events.jsonl")
    events = []
    for offset, obj in enumerate(LINES):
        raw = json.dumps(obj, separators=(",", ":"))
        sha = hashing.sha256(raw.encode())
        events.append(
            WaysEvent.objects.create(
                sha256=sha,
                digest=hashing.digest64(sha),
                source=source,
                order_rank=0,
                order_generation=0,
                order_offset=offset * 100,
                order_index=0,
                raw=raw,
                event=obj["event"],
                way=obj.get("way"),
            )
        )
    return events


def columns() -> set[str]:
    with connection.cursor() as cursor:
        return {
            column.name for column in connection.introspection.get_table_description(cursor, migration.TABLE)
        }


def column_values(pk: int) -> dict:
    names = [column for column, _ in migration.DROPPED.values()]
    selected = ", ".join(connection.ops.quote_name(name) for name in names)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {selected} FROM {migration.TABLE} WHERE id = %s", [pk])
        return dict(zip(names, cursor.fetchone(), strict=True))


def test_undone_the_columns_hold_what_the_importer_read_and_done_again_only_the_rows_stay():
    events = stored_events()
    before = list(WaysEvent.objects.order_by("pk").values_list("pk", "digest", "raw", "order_offset"))
    dropped = {column for column, _ in migration.DROPPED.values()}
    assert not dropped & columns()

    if connection.vendor == "postgresql":
        # The rows' foreign keys are checked at commit; PostgreSQL alters no table with checks pending.
        Editor().execute("SET CONSTRAINTS ALL IMMEDIATE")
    migration.backward(None, Editor())
    assert dropped <= columns()
    nearmiss, check, fired = (column_values(event.pk) for event in events)
    assert (
        nearmiss["tau_s"] == 0.6 and nearmiss["prob_multi"] == 0.4 and nearmiss["schema_gen"] == "calibrated"
    )
    assert check["check"] == "c/1" and check["agent_id"] == "a7" and check["surface"] == ""
    assert check["score_en"] == 0.25 and check["schema_gen"] == "raw_score"
    empty = check["empty_fields"]  # text on SQLite, read as JSON by psycopg
    assert (json.loads(empty) if isinstance(empty, str) else empty) == ["surface"]
    assert fired["scope"] == "project" and fired["domain"] == "d" and fired["check"] is None

    migration.forward(None, Editor())
    assert not dropped & columns()
    assert list(WaysEvent.objects.order_by("pk").values_list("pk", "digest", "raw", "order_offset")) == before
    # The view that reads the table, and its indexes, are there again.
    assert PhysicalLine.objects.filter(source_id=events[0].source_id).count() == len(LINES)
    with connection.cursor() as cursor:
        indexed = connection.introspection.get_constraints(cursor, migration.TABLE)
    assert {"event_digest_unique", "event_source_place", "event_session_order"} <= indexed.keys()


def test_the_model_reads_each_field_it_does_not_hold_from_the_raw_line():
    nearmiss, check, fired = stored_events()
    nearmiss, check, fired = (WaysEvent.objects.get(pk=event.pk) for event in (nearmiss, check, fired))
    assert (nearmiss.tau_s, nearmiss.prob_multi, nearmiss.schema_gen) == (0.6, 0.4, "calibrated")
    assert (check.check_id, check.agent_id, check.surface, check.score_en) == ("c/1", "a7", "", 0.25)
    assert check.empty_fields == ["surface"] and check.schema_gen == "raw_score"
    assert (fired.scope, fired.domain, fired.check_id, fired.schema_gen) == ("project", "d", None, None)
