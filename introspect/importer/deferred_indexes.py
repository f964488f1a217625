"""A cold load's secondary indexes: dropped while the load writes its rows, built again after it.

A row written into a table with its secondary indexes pays for a random insert into each of them;
the same index built once after the load is a sort. On the large tier's million events that is
39.2 s of writing with them, against 26.4 s without them plus 4.4 s to build them after
(bench/results/2026-12-04-stop45.txt, issue 29). Only where nothing waits for those indexes while
the load runs: SQLite, an `ingest` that is not following (`serve`'s follower derives the newest
sessions while it reads, and they read the events by session), and a table that is empty when the
pass starts. The digest key is left out too, its cost the largest of all (a random insert per row):
the load's lines that repeat an event it stored are settled before it is built again
(importer/event_repeats.py). The key of the collided lines stays: ON CONFLICT finds a line by it.

Crash safety: the indexes a load drops are recorded (DeferredIndex), each with the statement that
built it, in the transaction that drops them (SQLite's DDL is transactional), and each is built
again and its record deleted in one transaction. A kill at any moment leaves either the index or
its record; `restore` builds whatever is recorded, and every importer start and `migrate` (before
its first migration, which may name one of them) call it. Pages read the same rows either way, only
slower while an index is missing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, transaction

from introspect.importer import event_repeats
from introspect.models import DeferredIndex, WaysEvent

# The tables whose secondary indexes a cold load leaves out: the events' (their entries, turns and
# turns' ways gained nothing measurable: bench/results/2026-12-04-stop45.txt).
TABLES = (WaysEvent._meta.db_table,)
# The unique key left out too, its repeats settled before it is built (event_repeats.settle); built
# last, once the index that finds a line's events by place (event_source_place) is back.
SETTLED_KEY = "event_digest_unique"


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
            indexes = [
                (name, sql) for name, sql in cursor.fetchall() if not unique(sql) or name == SETTLED_KEY
            ]
            DeferredIndex.objects.bulk_create(
                [DeferredIndex(name=name, table=table, sql=sql) for name, sql in indexes]
            )
            for name, _ in indexes:
                cursor.execute(f"DROP INDEX {connection.ops.quote_name(name)}")
                dropped.append(name)
    if SETTLED_KEY in dropped:
        event_repeats.watch()
    return dropped


def unique(sql: str) -> bool:
    """A unique key: the load looks up by it."""
    return sql.lstrip().upper().startswith("CREATE UNIQUE")


@dataclass
class Restored:
    built: list[str] = field(default_factory=list)  # the indexes' names
    repeats: int = 0  # lines the load stored an event of again, settled as duplicates (event_repeats)


def restore() -> Restored:
    """Build every index a load dropped and has not built again (after it, or after a kill), each in
    the transaction that deletes its record; the digest key last, the load's repeats settled first
    where it finds any."""
    done = Restored()
    if not supported() or DeferredIndex._meta.db_table not in connection.introspection.table_names():
        return done
    seen = event_repeats.SEEN  # the load is over: what it noted is in the rows now
    event_repeats.forget()
    rows = sorted(DeferredIndex.objects.order_by("pk"), key=lambda row: row.name == SETTLED_KEY)
    if not rows:
        return done
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA threads")
        (threads,) = cursor.fetchone()
        cursor.execute(f"PRAGMA threads = {SORT_THREADS}")
        try:
            for row in rows:
                with transaction.atomic():
                    if row.name == SETTLED_KEY:
                        done.repeats = build_settled(cursor, row.sql, seen)
                    else:
                        cursor.execute(if_not_exists(row.sql))
                    DeferredIndex.objects.filter(pk=row.pk).delete()
                done.built.append(row.name)
        finally:
            cursor.execute(f"PRAGMA threads = {int(threads)}")
    return done


def build_settled(cursor, sql: str, seen: event_repeats.Seen | None) -> int:
    """Build the digest key, the load's repeated lines settled first (event_repeats.settle); the lines
    settled as duplicates. `seen`: what the load noted, when this process ran it: its suspects are
    the only digests to look for, and none means nothing to settle. Else (a load killed before its
    key was built) the key is built as it is, and only where a repeated digest fails that are the
    repeats searched for."""
    repeats = 0
    if seen is None:
        try:
            with transaction.atomic():
                cursor.execute(if_not_exists(sql))
            return 0
        except IntegrityError:
            repeats = event_repeats.settle()
    elif seen.suspects:
        repeats = event_repeats.settle(seen.suspects)
    cursor.execute(if_not_exists(sql))
    return repeats


def before_migrate(sender, using: str = DEFAULT_DB_ALIAS, **kwargs) -> None:
    """The pre_migrate receiver (introspect/apps.py): what is recorded built before any migration runs."""
    if using == DEFAULT_DB_ALIAS:
        restore()


def if_not_exists(sql: str) -> str:
    """The statement, harmless where the index is there after all (built by hand, or by an older
    migration that named it the same)."""
    head = sql.lstrip()
    for prefix in ("CREATE INDEX ", "CREATE UNIQUE INDEX "):  # secondary indexes and the digest key
        if head.upper().startswith(prefix) and not head.upper().startswith(prefix + "IF NOT EXISTS"):
            return head[: len(prefix)] + "IF NOT EXISTS " + head[len(prefix) :]
    return head
