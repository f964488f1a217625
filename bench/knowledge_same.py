"""Whether two ledger passes left the same knowledge: every file's bytes and the ledger's knowledge
rows, between two scratch folders of bench/ledger_pass.py (old code and new on the same database).

    uv run python bench/knowledge_same.py A/ledger-pass B/ledger-pass

Compares, on SQLite: each file under data/knowledge (names and bytes); the knowledge records, the
knowledge events and the records' secret findings, every column but the times a run stamps (when a
row was written, and the mtime of a file written in another second), ids included. And on each side
alone: every present record's file_size and file_mtime_ns are its file's as it is now (a pass that
did not read a file back must still have recorded the stat it would have read it at). Prints "same"
or what differs; exits 1 when anything does. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from pathlib import Path

# Columns a run stamps with its own clock: they differ between any two runs.
STAMPED = {"first_seen", "updated_at", "at", "file_mtime_ns"}
TABLES = {
    "ledger_knowledgerecord": "",
    "ledger_knowledgeevent": "",
    "introspect_secretfinding": "WHERE place = 'ledger.knowledgerecord'",
}


def files_of(scratch: Path) -> dict[str, bytes]:
    base = scratch / "data" / "knowledge"
    return {str(p.relative_to(base)): p.read_bytes() for p in sorted(base.rglob("*")) if p.is_file()}


def rows_of(scratch: Path, table: str, where: str) -> tuple[list[str], list[tuple]]:
    with sqlite3.connect(scratch / "db.sqlite3") as db:
        names = [row[1] for row in db.execute(f"PRAGMA table_info({table})") if row[1] not in STAMPED]
        quoted = ", ".join(f'"{name}"' for name in names)
        rows = db.execute(f"SELECT {quoted} FROM {table} {where} ORDER BY id").fetchall()
    # The knowledge directory is each scratch folder's own: compared below it.
    prefix = str(scratch.resolve())
    return names, [
        tuple(value.replace(prefix, "<scratch>") if isinstance(value, str) else value for value in row)
        for row in rows
    ]


def stats_differ(scratch: Path) -> list[str]:
    """Present records whose recorded (size, mtime_ns) is not their file's."""
    with sqlite3.connect(scratch / "db.sqlite3") as db:
        rows = db.execute(
            "SELECT directory, source_class, record_id, file_size, file_mtime_ns "
            "FROM ledger_knowledgerecord WHERE present"
        ).fetchall()
    out = []
    for directory, source_class, record_id, size, mtime_ns in rows:
        st = os.stat(Path(directory) / source_class / f"{record_id}.md")
        if (st.st_size, st.st_mtime_ns) != (size, mtime_ns):
            out.append(f"{record_id}: recorded {(size, mtime_ns)}, file {(st.st_size, st.st_mtime_ns)}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    args = parser.parse_args()
    problems = []
    old_files, new_files = files_of(args.old), files_of(args.new)
    if old_files.keys() != new_files.keys():
        problems.append(
            f"files: {len(old_files.keys() - new_files.keys())} only in old, "
            f"{len(new_files.keys() - old_files.keys())} only in new"
        )
    differ = [name for name in old_files.keys() & new_files.keys() if old_files[name] != new_files[name]]
    if differ:
        problems.append(f"files: {len(differ)} differ, e.g. {sorted(differ)[:3]}")
    for table, where in TABLES.items():
        old_names, old_rows = rows_of(args.old, table, where)
        new_names, new_rows = rows_of(args.new, table, where)
        if old_names != new_names or old_rows != new_rows:
            changed = sum(a != b for a, b in zip(old_rows, new_rows, strict=False))
            problems.append(f"{table}: {len(old_rows)} rows old, {len(new_rows)} new, {changed} differ")
        print(f"{table}: {len(old_rows):,} rows compared")
    for side in (args.old, args.new):
        wrong = stats_differ(side)
        if wrong:
            problems.append(f"{side}: {len(wrong)} records' stats are not their files', e.g. {wrong[:2]}")
    print(f"{len(old_files):,} files compared")
    print("\n".join(problems) if problems else "same")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
