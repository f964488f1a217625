"""The least time the import's writes can take: the rows a cold import stored, written again alone.

    uv run python bench/write_floor.py --from /tmp/waysweb-bench-large-…/bench.sqlite3

Copies the line tables of a database a cold import filled (events, raw lines, transcript lines and
their full-text index) into a freshly migrated SQLite database, in batches of the importer's size,
one transaction a batch, with the importer's pragmas, by `executemany` of the stored values and
nothing else: no reading of files, no parsing, no lookups, no Django. The time it takes is the
floor of the write path as the schema stands (its tables and indexes); the import pass's time less
this is what parsing, validating, de-duplicating and deriving cost. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLES = ("introspect_waysevent", "introspect_rawline", "introspect_transcriptentry")
BATCH = 5000  # introspect/importer/tailer.BATCH_LINES
PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA wal_autocheckpoint=16384",
    "PRAGMA journal_size_limit=67108864",
)


def migrated(path: Path) -> None:
    env = {
        **os.environ,
        "WAYSWEB_DATABASE_URL": f"sqlite:///{path}",
        "DJANGO_SETTINGS_MODULE": "waysweb.settings",
    }
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "-v0"], env=env, check=True, cwd=ROOT)


def copy(source: sqlite3.Connection, target: sqlite3.Connection, table: str) -> tuple[int, float]:
    """(rows, seconds spent writing) for one table, its sequence of ids kept."""
    columns = [row[1] for row in source.execute(f'PRAGMA table_info("{table}")')]
    names = ", ".join(f'"{name}"' for name in columns)
    insert = f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" * len(columns))})'
    rows = source.execute(f'SELECT {names} FROM "{table}" ORDER BY id')
    count, spent = 0, 0.0
    while batch := rows.fetchmany(BATCH):
        started = time.perf_counter()
        with target:
            target.executemany(insert, batch)
            if table == "introspect_transcriptentry":
                # The loader fills the full-text index once per batch (entry_rows.insert_entries).
                target.execute(
                    "INSERT INTO introspect_transcriptentry_fts(rowid, text, tool_name, type) "
                    "SELECT id, text, tool_name, type FROM introspect_transcriptentry "
                    "WHERE id >= ? AND inert = 0",
                    (batch[0][0],),
                )
        spent += time.perf_counter() - started
        count += len(batch)
    return count, spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--from", dest="source", type=Path, required=True, help="a database a cold import filled"
    )
    parser.add_argument(
        "--pragma",
        action="append",
        default=[],
        help="one more PRAGMA for the target (e.g. cache_size=-65536)",
    )
    parser.add_argument("--table", action="append", choices=TABLES, help="only this table (repeatable)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="waysweb-floor-") as work:
        path = Path(work) / "floor.sqlite3"
        migrated(path)
        source = sqlite3.connect(f"file:{args.source}?mode=ro", uri=True)
        target = sqlite3.connect(path, isolation_level=None)
        for pragma in (*PRAGMAS, *(f"PRAGMA {extra}" for extra in args.pragma)):
            target.execute(pragma)
        target.isolation_level = "IMMEDIATE"
        total = 0.0
        for table in args.table or TABLES:
            count, spent = copy(source, target, table)
            total += spent
            print(
                f"{table:32s} {count:>10,} rows  {spent:7.1f} s  {count / spent if spent else 0:>9,.0f} rows/s"
            )
        print(f"{'all':32s} {'':>10s}       {total:7.1f} s")


if __name__ == "__main__":
    main()
