"""A cold load's secondary indexes: dropped while the load writes its rows, built again after it.

A row written into a table with its secondary indexes pays for a random insert into each of them;
the same index built once after the load is a sort. On the large tier's million events that is
39.2 s of writing with them, against 26.4 s without them plus 4.4 s to build them after
(bench/results/2026-12-04-stop45.txt, issue 29). Only where nothing waits for those indexes while
the load runs: SQLite, an `ingest` that is not following (`serve`'s follower derives the newest
sessions while it reads, and they read the events by session), and a table that is empty when the
pass starts. The unique keys stay: the load itself looks up by them (ON CONFLICT, a copy's digest);
the writer's page cache is raised to hold them while the load runs (LOAD_CACHE_KIB).

Crash safety: the indexes a load drops are recorded (DeferredIndex), each with the statement that
built it, in the transaction that drops them (SQLite's DDL is transactional), and each is built
again and its record deleted in one transaction. A kill at any moment leaves either the index or
its record; `restore` builds whatever is recorded, and every importer start and `migrate` (before
its first migration, which may name one of them) call it. Pages read the same rows either way, only
slower while an index is missing.
"""

from __future__ import annotations

import os

from django.db import DEFAULT_DB_ALIAS, connection, transaction

from introspect.models import DeferredIndex, WaysEvent

# The tables whose secondary indexes a cold load leaves out: the events' (their entries, turns and
# turns' ways gained nothing measurable: bench/results/2026-12-04-stop45.txt).
TABLES = (WaysEvent._meta.db_table,)


# The page cache of the writer while a cold load fills a table without its secondary indexes. The one
# index left on the events, their unique digest key, takes each new row at a random place: with
# SQLite's default cache (2 MiB) most inserts read a leaf of it back from the file, and a million
# events' key is 19 MB. With this cache the large tier's import pass took 26.4-28.0 s against
# 28.1-29.9 s, as with 32 MiB, whose pages put 27 MB on the importer's peak against this one's 15 MB
# (bench/results/2026-12-04-stop47.txt). It is given back before the indexes are built, which a
# larger cache made slower (4.5 s against 3.0 s).
LOAD_CACHE_KIB = 20 * 1024
# Where a connection keeps the cache size it had before a load raised it: a setting of that one
# connection, as the cache itself is (one kept by a new connection would not be its own).
CACHE_BEFORE = "waysweb_cache_before_load"

# Helper threads SQLite sorts an index's keys on besides its own (PRAGMA threads; none by default):
# the large tier's five events indexes were built in 4.0 s with two, 5.1 s with none.
SORT_THREADS = 2 if (os.cpu_count() or 1) > 1 else 0


def supported() -> bool:
    return connection.vendor == "sqlite"


def defer(tables: tuple[str, ...] = TABLES) -> list[str]:
    """Drop the secondary indexes (not the unique keys) of each of these tables that holds no row yet,
    recording them first; the names dropped. Nothing on PostgreSQL."""
    if not supported():
        return []
    dropped: list[str] = []
    with transaction.atomic(), connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"SELECT 1 FROM {connection.ops.quote_name(table)} LIMIT 1")
            if cursor.fetchone() is not None:
                continue  # rows already: their readers (pages, the derive) use these indexes
            cursor.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = %s AND sql IS NOT NULL",
                [table],
            )
            indexes = [(name, sql) for name, sql in cursor.fetchall() if not unique(sql)]
            DeferredIndex.objects.bulk_create(
                [DeferredIndex(name=name, table=table, sql=sql) for name, sql in indexes]
            )
            for name, _ in indexes:
                cursor.execute(f"DROP INDEX {connection.ops.quote_name(name)}")
                dropped.append(name)
    if dropped:
        raise_cache()
    return dropped


def raise_cache() -> None:
    """The writer's page cache at LOAD_CACHE_KIB while the load runs (`lower_cache` after it)."""
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_size")
        (before,) = cursor.fetchone()
        cursor.execute(f"PRAGMA cache_size = -{LOAD_CACHE_KIB}")
    if getattr(connection, CACHE_BEFORE, None) is None:
        setattr(connection, CACHE_BEFORE, before)


def lower_cache() -> None:
    """The page cache as it was before `raise_cache`, its pages given back (shrink_memory)."""
    before = getattr(connection, CACHE_BEFORE, None)
    if before is None:
        return
    with connection.cursor() as cursor:
        cursor.execute(f"PRAGMA cache_size = {int(before)}")
        cursor.execute("PRAGMA shrink_memory")
    setattr(connection, CACHE_BEFORE, None)


def unique(sql: str) -> bool:
    """A unique key: the load looks up by it."""
    return sql.lstrip().upper().startswith("CREATE UNIQUE")


def restore() -> list[str]:
    """Build every index a load dropped and has not built again (after it, or after a kill), each in
    the transaction that deletes its record; the names built."""
    if not supported() or DeferredIndex._meta.db_table not in connection.introspection.table_names():
        return []
    lower_cache()
    built = []
    rows = list(DeferredIndex.objects.order_by("pk"))
    if not rows:
        return built
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA threads")
        (threads,) = cursor.fetchone()
        cursor.execute(f"PRAGMA threads = {SORT_THREADS}")
        try:
            for row in rows:
                with transaction.atomic():
                    cursor.execute(if_not_exists(row.sql))
                    DeferredIndex.objects.filter(pk=row.pk).delete()
                built.append(row.name)
        finally:
            cursor.execute(f"PRAGMA threads = {int(threads)}")
    return built


def before_migrate(sender, using: str = DEFAULT_DB_ALIAS, **kwargs) -> None:
    """The pre_migrate receiver (introspect/apps.py): what is recorded built before any migration runs."""
    if using == DEFAULT_DB_ALIAS:
        restore()


def if_not_exists(sql: str) -> str:
    """The statement, harmless where the index is there after all (built by hand, or by an older
    migration that named it the same)."""
    head, prefix = sql.lstrip(), "CREATE INDEX "  # only secondary indexes are left out
    if head.upper().startswith(prefix) and not head.upper().startswith(prefix + "IF NOT EXISTS"):
        return head[: len(prefix)] + "IF NOT EXISTS " + head[len(prefix) :]
    return head
