"""The one SQLite writer's floor for the rows a cold events import writes, by the shape of their tables.

    uv run python bench/row_floor.py --from /tmp/cold/db.sqlite3     # after bench/cold_ingest.py --only events

SQLite lets one connection write at a time, so the rows an import stores are written one after the
other however many cores read and prepare them: the events, then the turns and the ways they showed
(the derive), then the indexes left out of the load. This copies those rows, as the import stored
them, into copies of their tables beside the originals (in a scratch copy of the database, so that
every foreign key looks its parent up in the real table), in the importer's batches of 5,000, one
transaction a batch, with the importer's pragmas and the load's page cache, by `executemany` of the
stored values and nothing else. Each table is copied as it stands and in narrower shapes: without
some of its indexes, without its foreign-key checks, with fewer columns. What it prints is the
least time each shape can cost the writer on this machine, for comparison with the import itself
(issue 29: the events tier's 1,008,710 lines at 50,000 lines/s leave 20.2 s for everything).
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.write_floor import BATCH  # noqa: E402 - the repository root first, so that `bench` imports as run
from bench.write_floor import PRAGMAS as IMPORT_PRAGMAS  # noqa: E402

# The importer's pragmas and the page cache a cold load had while it kept the digest key (until stop 51).
PRAGMAS = (*IMPORT_PRAGMAS, "PRAGMA cache_size=-20480")
EVENTS, TURNS, TURN_WAYS = "introspect_waysevent", "introspect_turn", "introspect_turnway"
# The events' unique keys, which the load keeps (importer/deferred_indexes.py).
KEYS = ("digest_unique", "sha256_collided")
# The columns the narrowest events shape keeps: its key, its session, when, what and which way.
NARROW = ("id", "digest", "session_id", "source_id", "ts", "event", "way")


@dataclass(frozen=True)
class Shape:
    """One way to write a table's rows: which of its indexes stay (by a part of their name; None:
    all), whether foreign keys are checked, which columns are written (None: all), whether the
    stored line (`raw`) is written or left empty."""

    label: str
    table: str
    indexes: tuple[str, ...] | None = None
    foreign_keys: bool = True
    columns: tuple[str, ...] | None = None
    raw: bool = True


SHAPES = (
    Shape("events as the load writes them (their digest key)", EVENTS, indexes=KEYS),
    Shape("events, no foreign-key checks", EVENTS, indexes=KEYS, foreign_keys=False),
    Shape("events, no digest key", EVENTS, indexes=()),
    Shape("events, no digest key, raw line empty", EVENTS, indexes=(), raw=False),
    Shape(f"events, {len(NARROW)} columns and the raw line", EVENTS, indexes=(), columns=(*NARROW, "raw")),
    Shape(f"events, {len(NARROW)} columns", EVENTS, indexes=(), columns=NARROW),
    Shape("turns with their indexes", TURNS),
    Shape("turns, unique key and window index only", TURNS, indexes=("turn_session_window",)),
    Shape("turns, no foreign-key checks", TURNS, foreign_keys=False),
    Shape("turns' ways with their indexes", TURN_WAYS),
    Shape("turns' ways, way and turn indexes only", TURN_WAYS, indexes=("way_id", "turn_id")),
    Shape("turns' ways, no foreign-key checks", TURN_WAYS, foreign_keys=False),
)


def write(db: sqlite3.Connection, shape: Shape) -> tuple[int, float, float, float]:
    """(rows, seconds inserting, seconds committing, MB the copy takes) for one shape."""
    table, copy = shape.table, f"floor_{shape.table}"
    db.execute(f'DROP TABLE IF EXISTS "{copy}"')
    ddl, indexes, names = definition(db, table, shape.columns)
    db.execute(ddl.replace(f'"{table}"', f'"{copy}"', 1))
    for sql in indexes:
        name = sql.split('"')[1]
        if shape.indexes is None or any(part in name for part in shape.indexes):
            db.execute(sql.replace(f'"{table}"', f'"{copy}"').replace(f'"{name}"', f'"floor_{name}"'))
    quoted = ", ".join(f'"{name}"' for name in names)
    rows = db.execute(f'SELECT {quoted} FROM "{table}" ORDER BY id').fetchall()
    if not shape.raw:
        at = names.index("raw")
        rows = [(*row[:at], "", *row[at + 1 :]) for row in rows]
    db.execute(f"PRAGMA foreign_keys = {int(shape.foreign_keys)}")
    insert = f'INSERT INTO "{copy}" ({quoted}) VALUES ({", ".join("?" * len(names))})'
    inserting = committing = 0.0
    for start in range(0, len(rows), BATCH):
        began = time.perf_counter()
        db.execute("BEGIN IMMEDIATE")
        db.executemany(insert, rows[start : start + BATCH])
        inserted = time.perf_counter()
        db.execute("COMMIT")
        inserting += inserted - began
        committing += time.perf_counter() - inserted
    # the copy and its indexes: the only names of the database that start so
    (size,) = db.execute(
        "SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name LIKE 'floor!_%' ESCAPE '!'"
    ).fetchone()
    db.execute(f'DROP TABLE "{copy}"')
    return len(rows), inserting, committing, size / 1e6


def definition(db: sqlite3.Connection, table: str, columns: tuple[str, ...] | None):
    """The table's CREATE statement (cut to `columns`), its indexes' statements, the columns written."""
    (ddl,) = db.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
    ).fetchone()
    indexes = [
        sql
        for (sql,) in db.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
            (table,),
        )
    ]
    names = [row[1] for row in db.execute(f'PRAGMA table_info("{table}")')]
    if columns is None:
        return ddl, indexes, names
    head, body = ddl.split("(", 1)
    parts = split_columns(body.rsplit(")", 1)[0])
    kept = [part for part in parts if part.split('"')[1] in columns]
    return f"{head}({', '.join(kept)})", [], [name for name in names if name in columns]


def split_columns(body: str) -> list[str]:
    """A CREATE TABLE's column definitions, split at the commas outside parentheses."""
    parts, depth, start = [], 0, 0
    for at, char in enumerate(body):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(body[start:at].strip())
            start = at + 1
    parts.append(body[start:].strip())
    return [part for part in parts if part.startswith('"')]  # table constraints left out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--from", dest="source", type=Path, required=True, help="a database a cold import filled"
    )
    parser.add_argument("--runs", type=int, default=1, help="each shape this many times (the best is kept)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="waysweb-row-floor-") as work:
        path = Path(work) / "floor.sqlite3"
        shutil.copyfile(args.source, path)
        db = sqlite3.connect(path, isolation_level=None)
        for pragma in PRAGMAS:
            db.execute(pragma)
        for shape in SHAPES:
            best = min((write(db, shape) for _ in range(args.runs)), key=lambda run: run[1] + run[2])
            rows, inserting, committing, size = best
            print(
                f"{shape.label:58s} {rows:>10,} rows  insert {inserting:5.1f} s  commit {committing:4.1f} s"
                f"  = {inserting + committing:5.1f} s  {size:7.1f} MB",
                flush=True,
            )


if __name__ == "__main__":
    main()
