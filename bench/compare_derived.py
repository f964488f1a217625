"""Whether two SQLite databases derived from one bare database hold the same derived rows, column for column.

    uv run python bench/derive_after_load.py --home H --work W --repo OLD   # then keep a copy of
    cp W/derive-run.sqlite3 /tmp/old.sqlite3                               # its derive-run database
    uv run python bench/derive_after_load.py --home H --work W              # the new code's
    uv run python bench/compare_derived.py /tmp/old.sqlite3 W/derive-run.sqlite3

Both databases began as the same bare copy (derive_after_load.py), so even the ids of the derived
rows must agree when the rows were written in the same order: every column of every derived table
is compared (only the clocks a run stamps are left out), both ways (`EXCEPT`), and a table whose
rows differ is named with a few of them. `--by-key` compares without the derived rows' own ids
(rows written in another order). Not part of the test suite; exits 1 when anything differs.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys

# The derived tables (a derive writes them and nothing else does), and the sessions' columns.
TABLES = (
    "introspect_session",
    "introspect_project",
    "introspect_window",
    "introspect_turn",
    "introspect_turnway",
    "introspect_turnoutcome",
    "introspect_subagent",
)
CLOCKS = {"updated_at", "created_at", "at"}  # stamped by the run, whatever it derived
SHOWN = 3


def columns(db: sqlite3.Connection, table: str, *, by_key: bool) -> list[str]:
    names = [row[1] for row in db.execute(f"PRAGMA main.table_info({table})")]
    dropped = CLOCKS | ({"id"} if by_key and table != "introspect_session" else set())
    return [name for name in names if name not in dropped]


def rows_of(table: str, names: list[str], schema: str, *, by_key: bool) -> str:
    """The table's compared columns; with `by_key`, a turn way names its turn by (session, epoch)."""
    listed = ", ".join(f't."{name}"' for name in names if not (by_key and name == "turn_id"))
    if by_key and table == "introspect_turnway":
        return (
            f"SELECT {listed}, u.session_id, u.epoch FROM {schema}.{table} t "
            f"JOIN {schema}.introspect_turn u ON u.id = t.turn_id"
        )
    return f"SELECT {listed} FROM {schema}.{table} t"


def compare(old: str, new: str, *, by_key: bool) -> bool:
    db = sqlite3.connect(old)
    db.execute("ATTACH DATABASE ? AS new", (new,))
    same = True
    for table in TABLES:
        names = columns(db, table, by_key=by_key)
        old_rows, new_rows = (rows_of(table, names, schema, by_key=by_key) for schema in ("main", "new"))
        (count,) = db.execute(f"SELECT COUNT(*) FROM ({old_rows})").fetchone()
        only_old = db.execute(f"{old_rows} EXCEPT {new_rows} LIMIT {SHOWN}").fetchall()
        only_new = db.execute(f"{new_rows} EXCEPT {old_rows} LIMIT {SHOWN}").fetchall()
        (new_count,) = db.execute(f"SELECT COUNT(*) FROM ({new_rows})").fetchone()
        # EXCEPT is a set operation: the counts catch a row written twice.
        ok = not only_old and not only_new and count == new_count
        same &= ok
        print(f"{table}: {count:,} rows, {new_count:,} new: {'same' if ok else 'DIFFERENT'}")
        for label, rows in (("only old", only_old), ("only new", only_new)):
            for row in rows:
                print(f"  {label}: {row}")
    return same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="one derived database")
    parser.add_argument("new", help="the other, derived from the same bare copy")
    parser.add_argument("--by-key", action="store_true", help="leave the derived rows' own ids out")
    args = parser.parse_args()
    same = compare(args.old, args.new, by_key=args.by_key)
    print("same" if same else "DIFFERENT")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
