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

from introspect.importer import deferred_indexes
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
def test_a_cold_load_drops_the_events_secondary_indexes_and_records_how_each_was_built():
    before = index_sql()
    secondary = {name: sql for name, sql in before.items() if name not in unique(before)}
    assert len(secondary) == 5  # session order, event+way, way, a source's places, near-misses

    dropped = deferred_indexes.defer()

    assert set(dropped) == set(secondary)
    assert index_sql() == unique(before)  # the keys the load looks up by stay
    assert unique(before)  # the digest's and the collided sha256's
    assert dict(DeferredIndex.objects.values_list("name", "sql")) == secondary
    assert set(DeferredIndex.objects.values_list("table", flat=True)) == {EVENTS}


@sqlite_only
@pytest.mark.django_db
def test_restore_builds_every_dropped_index_as_it_was_and_forgets_it():
    before = index_sql()
    deferred_indexes.defer()

    built = deferred_indexes.restore()

    assert len(built) == 5
    assert index_sql() == before
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA threads")
        assert cursor.fetchone() == (0,)  # the sort's helper threads were for those builds only
    assert not DeferredIndex.objects.exists()
    assert deferred_indexes.restore() == []  # nothing left to build


def cache_size() -> int:
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_size")
        return cursor.fetchone()[0]


@sqlite_only
@pytest.mark.django_db
def test_the_writer_s_cache_holds_the_unique_key_while_the_load_runs_and_is_given_back_before_the_builds(
    monkeypatch,
):
    before = cache_size()
    deferred_indexes.defer()
    assert cache_size() == -deferred_indexes.LOAD_CACHE_KIB  # in KiB, as a negative cache_size counts
    assert deferred_indexes.LOAD_CACHE_KIB * 1024 > 19_000_000  # a million events' digest key

    during_builds = []
    real = deferred_indexes.if_not_exists
    monkeypatch.setattr(
        deferred_indexes, "if_not_exists", lambda sql: during_builds.append(cache_size()) or real(sql)
    )
    assert len(deferred_indexes.restore()) == 5
    assert during_builds == [before] * 5
    assert cache_size() == before
    deferred_indexes.lower_cache()  # given back once only
    assert cache_size() == before


@sqlite_only
@pytest.mark.django_db
def test_a_table_that_holds_rows_keeps_its_indexes():
    source = SourceFile.objects.create(root="/r", rel_path="events.jsonl", kind=SourceFile.Kind.EVENTS)
    WaysEvent.objects.create(
        sha256="0" * 64, digest=1, source=source, order_rank=0, order_generation=0, order_offset=0,
        order_index=0, raw="{}",
    )  # fmt: skip
    before, cache = index_sql(), cache_size()

    assert deferred_indexes.defer() == []
    assert index_sql() == before
    assert not DeferredIndex.objects.exists()
    assert cache_size() == cache  # no load without its indexes: the cache as it was


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
    assert deferred_indexes.restore() == []
