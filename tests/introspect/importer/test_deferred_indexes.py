"""A cold load leaves the events' secondary indexes out while it writes and builds them again after
(introspect/importer/deferred_indexes.py): what it drops is recorded first, a table with rows keeps
its indexes, and whatever a kill left out is built by the next importer or `migrate`."""

from __future__ import annotations

from io import StringIO

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.db.models.signals import pre_migrate

from introspect.importer import deferred_indexes, event_repeats
from introspect.models import DeferredIndex, SourceFile, WaysEvent

EVENTS = WaysEvent._meta.db_table
sqlite_only = pytest.mark.skipif(connection.vendor != "sqlite", reason="indexes are deferred on SQLite only")


def index_sql(table: str = EVENTS) -> dict[str, str]:
    """Each index of the table by name, with the statement that built it."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = %s AND sql IS NOT NULL",
            [table],
        )
        return dict(cursor.fetchall())


def unique(indexes: dict[str, str]) -> dict[str, str]:
    return {name: sql for name, sql in indexes.items() if sql.startswith("CREATE UNIQUE")}


@sqlite_only
@pytest.mark.django_db
def test_a_cold_load_drops_the_events_secondary_indexes_and_digest_key_and_records_how_each_was_built():
    before = index_sql()
    secondary = {name: sql for name, sql in before.items() if name not in unique(before)}
    assert len(secondary) == 5  # session order, event+way, way, a source's places, near-misses
    assert set(unique(before)) == {"event_digest_unique", "event_sha256_collided"}
    left_out = secondary | {"event_digest_unique": before["event_digest_unique"]}

    dropped = deferred_indexes.defer()

    assert set(dropped) == set(left_out)
    # The collided lines' key stays (ON CONFLICT finds a line by it); the digest's repeats are settled
    # after the load (event_repeats), which notes the load's digests meanwhile.
    assert index_sql() == {"event_sha256_collided": before["event_sha256_collided"]}
    assert dict(DeferredIndex.objects.values_list("name", "sql")) == left_out
    assert set(DeferredIndex.objects.values_list("table", flat=True)) == {EVENTS}
    assert event_repeats.SEEN is not None
    deferred_indexes.restore()
    assert event_repeats.SEEN is None


@sqlite_only
@pytest.mark.django_db
def test_restore_builds_every_dropped_index_as_it_was_and_forgets_it():
    before = index_sql()
    deferred_indexes.defer()

    restored = deferred_indexes.restore()

    assert len(restored.built) == 6 and restored.built[-1] == "event_digest_unique"  # the key last
    assert restored.repeats == 0  # an empty load repeats nothing
    assert index_sql() == before
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA threads")
        assert cursor.fetchone() == (0,)  # the sort's helper threads were for those builds only
    assert not DeferredIndex.objects.exists()
    assert deferred_indexes.restore() == deferred_indexes.Restored()  # nothing left to build


@sqlite_only
@pytest.mark.django_db
def test_a_table_that_holds_rows_keeps_its_indexes():
    source = SourceFile.objects.create(root="/r", rel_path="events.jsonl", kind=SourceFile.Kind.EVENTS)
    WaysEvent.objects.create(
        sha256="0" * 64, digest=1, source=source, order_rank=0, order_generation=0, order_offset=0,
        order_index=0, raw="{}",
    )  # fmt: skip
    before = index_sql()

    assert deferred_indexes.defer() == []
    assert index_sql() == before
    assert not DeferredIndex.objects.exists()


@sqlite_only
@pytest.mark.django_db
def test_an_index_that_is_there_after_all_only_has_its_record_cleared():
    before = index_sql()
    deferred_indexes.defer()
    row = DeferredIndex.objects.order_by("pk").first()
    with connection.cursor() as cursor:
        cursor.execute(row.sql)  # built by someone else meanwhile

    deferred_indexes.restore()

    assert index_sql() == before
    assert not DeferredIndex.objects.exists()


@sqlite_only
@pytest.mark.django_db
def test_an_importer_start_builds_what_a_killed_cold_load_left_out(home):
    before = index_sql()
    deferred_indexes.defer()  # ... and killed before it built them again

    call_command("ingest", "--no-ways", stdout=StringIO(), stderr=StringIO())

    assert index_sql() == before
    assert not DeferredIndex.objects.exists()


@sqlite_only
@pytest.mark.django_db
def test_migrate_builds_them_before_its_first_migration():
    before = index_sql()
    deferred_indexes.defer()
    config = apps.get_app_config("introspect")

    pre_migrate.send(
        sender=config, app_config=config, verbosity=0, interactive=False, using="default", apps=apps, plan=[]
    )

    assert index_sql() == before
    assert not DeferredIndex.objects.exists()


@sqlite_only
def test_an_if_not_exists_is_added_once():
    plain = 'CREATE INDEX "event_session_order" ON "introspect_waysevent" ("session_id")'
    assert deferred_indexes.if_not_exists(plain).startswith(
        'CREATE INDEX IF NOT EXISTS "event_session_order"'
    )
    assert deferred_indexes.if_not_exists(
        deferred_indexes.if_not_exists(plain)
    ) == deferred_indexes.if_not_exists(plain)
    key = 'CREATE UNIQUE INDEX "event_digest_unique" ON "introspect_waysevent" ("digest")'
    assert deferred_indexes.if_not_exists(key).startswith('CREATE UNIQUE INDEX IF NOT EXISTS "event_digest')


@pytest.mark.skipif(connection.vendor == "sqlite", reason="PostgreSQL keeps its indexes")
@pytest.mark.django_db
def test_postgresql_keeps_every_index_through_a_cold_load():
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_indexes WHERE tablename = %s", [EVENTS])
        (before,) = cursor.fetchone()
        assert deferred_indexes.defer() == []
        cursor.execute("SELECT count(*) FROM pg_indexes WHERE tablename = %s", [EVENTS])
        assert cursor.fetchone() == (before,)
    assert before >= 7
    assert deferred_indexes.restore() == deferred_indexes.Restored()
