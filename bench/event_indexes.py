"""What each index of the events table costs a cold import: its rows written again under each index set.

    uv run python -m bench.event_indexes --from /tmp/waysweb-bench-large-…/bench.sqlite3

Copies `introspect_waysevent` of a database a cold import filled into a bare table, in the
importer's batches (one transaction each, its pragmas and a 64 MiB page cache), once per index set:
none, the sha256 unique key alone, every secondary index without it, and an 8-byte integer digest
of the line in place of the 64-character hex key. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import time
from pathlib import Path

from bench.write_floor import BATCH, PRAGMAS

TABLE = "introspect_waysevent"
UNIQUE = '"sha256" varchar(64) NOT NULL UNIQUE'


def timed(source: sqlite3.Connection, path: Path, *, unique: bool, indexes: list[str], digest: bool) -> float:
    ddl = source.execute("SELECT sql FROM sqlite_master WHERE name = ?", (TABLE,)).fetchone()[0]
    if not unique or digest:
        ddl = ddl.replace(UNIQUE, '"sha256" varchar(64) NOT NULL' + (', "digest" bigint' if digest else ""))
    target = sqlite3.connect(path, isolation_level=None)
    for pragma in (*PRAGMAS, "PRAGMA cache_size=-65536"):
        target.execute(pragma)
    target.execute(ddl)
    if digest:
        target.execute(f'CREATE UNIQUE INDEX digest ON "{TABLE}" (digest)')
    for sql in indexes:
        target.execute(sql)
    columns = [row[1] for row in source.execute(f'PRAGMA table_info("{TABLE}")')]
    names = ", ".join(f'"{name}"' for name in columns)
    width = len(columns) + digest
    insert = (
        f'INSERT INTO "{TABLE}" ({names}{", digest" if digest else ""}) VALUES ({", ".join("?" * width)})'
    )
    sha = columns.index("sha256")
    rows = source.execute(f'SELECT {names} FROM "{TABLE}" ORDER BY id')
    target.isolation_level = "IMMEDIATE"
    spent = 0.0
    while batch := rows.fetchmany(BATCH):
        if digest:
            batch = [
                (*row, int.from_bytes(bytes.fromhex(row[sha][:16]), "big", signed=True)) for row in batch
            ]
        started = time.perf_counter()
        with target:
            target.executemany(insert, batch)
        spent += time.perf_counter() - started
    target.close()
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="source", type=Path, required=True)
    args = parser.parse_args()
    source = sqlite3.connect(f"file:{args.source}?mode=ro", uri=True)
    secondary = [
        sql
        for (sql,) in source.execute(
            "SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type = 'index' AND sql IS NOT NULL",
            (TABLE,),
        )
    ]
    cases = {
        "no index at all": dict(unique=False, indexes=[], digest=False),
        "sha256 unique key alone": dict(unique=True, indexes=[], digest=False),
        "secondary indexes, no unique key": dict(unique=False, indexes=secondary, digest=False),
        "integer digest unique, alone": dict(unique=False, indexes=[], digest=True),
        "integer digest unique + secondary": dict(unique=False, indexes=secondary, digest=True),
        "sha256 unique + secondary (today)": dict(unique=True, indexes=secondary, digest=False),
    }
    for label, case in cases.items():
        with tempfile.TemporaryDirectory(prefix="waysweb-indexes-") as work:
            print(f"{label:36s} {timed(source, Path(work) / 'events.sqlite3', **case):6.1f} s", flush=True)


if __name__ == "__main__":
    main()
