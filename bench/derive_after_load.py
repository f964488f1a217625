"""The steps after a cold import's load, timed alone: the one derive of every session, then the ledger pass.

    uv run python bench/cold_ingest.py --home /tmp/large/home --only events --work /tmp/ev   # once
    uv run python bench/derive_after_load.py --home /tmp/large/home --work /tmp/ev [--profile F]

Takes the database `cold_ingest.py --work` left, and once makes a bare copy of it (`bare.sqlite3`):
its imported rows as the load leaves them, every derived row, knowledge event and record gone and
every session built by no version (`--one-by-one`: each session derived alone, as a pass derives
its settled sessions while the writer waits for the worker). Each run copies the bare database, then times
`rebuild_sessions` over every session (as `passes.sessions_pass` runs it after the load) and
`passes.ledger_pass` (the knowledge candidates at the episode boundaries, the knowledge directory
read back), each in CPU and wall seconds, with the load average; so the derivation can be measured
again and again without paying for the load. With `--profile`, both steps run under cProfile
(CPU time) and the top functions are printed. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import sqlite3
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The repository root in place of this script's folder, as the other bench scripts put it first.
sys.path[0] = str(ROOT)

from bench import peers  # noqa: E402 - the repository root first, so that `bench` imports as run

# Every derived table, emptied in the bare copy (the load writes none of them).
DERIVED_TABLES = (
    "introspect_turnway",
    "introspect_turn",
    "introspect_window",
    "introspect_turnoutcome",
    "introspect_subagent",
    "ledger_reviewaction",
    "ledger_knowledgerecord",
    "ledger_knowledgeevent",
)


def make_bare(source: Path, bare: Path) -> None:
    """`source` without its derived rows, its sessions as the load writes them (built by no version)."""
    partial = bare.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    with sqlite3.connect(source) as db:
        db.execute(f"VACUUM INTO '{partial}'")
    db = sqlite3.connect(partial)
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table in DERIVED_TABLES:
        if table in tables:
            db.execute(f"DELETE FROM {table}")
    db.execute(
        "UPDATE introspect_session SET derived_version = 0, built_event_id = 0, built_entry_id = 0, "
        "project_id = NULL, transcript_id = NULL"
    )
    db.execute("DELETE FROM introspect_project")
    db.commit()
    db.execute("VACUUM")
    db.close()
    partial.rename(bare)


# Columns that differ from one run to the next whatever was derived: ids, clocks.
UNSTABLE = {"id", "updated_at", "first_seen", "at", "built_event_id", "built_entry_id", "file_mtime_ns"}
# A derived table's rows keyed by what names them across runs: (table, the SQL joins giving the key).
DUMPED = (
    (
        "introspect_session",
        "s.sid, (SELECT path FROM introspect_project p WHERE p.id = t.project_id)",
        "t.id",
    ),
    ("introspect_window", "s.sid", "t.session_id"),
    ("introspect_turn", "s.sid", "t.session_id"),
    ("introspect_turnoutcome", "s.sid", "t.session_id"),
    ("introspect_subagent", "s.sid", "t.session_id"),
    ("ledger_knowledgeevent", "s.sid", "t.session_id"),
    ("ledger_knowledgerecord", "s.sid", "t.session_id"),
)


def dump(database: Path, out: Path) -> None:
    """Every derived table's rows, sorted, without ids and clocks: two runs' dumps diff to nothing
    when they derived the same."""
    db = sqlite3.connect(database)
    with out.open("w") as fh:
        for table, key, session in DUMPED:
            columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
            kept = [f"t.{c}" for c in columns if c not in UNSTABLE and c not in ("session_id", "project_id")]
            rows = db.execute(
                f"SELECT {key}, {', '.join(kept)} FROM {table} t "
                f"LEFT JOIN introspect_session s ON s.id = {session}"
            )
            for row in sorted(map(repr, rows)):
                fh.write(f"{table} {row}\n")
        rows = db.execute(
            "SELECT s.sid, t.epoch, w.position, w.event_id, w.judge_event_id, w.way_id, w.trigger_channel, "
            "w.gated, w.suppressed, w.redisclosed, w.fire_score, w.matched_span FROM introspect_turnway w "
            "JOIN introspect_turn t ON t.id = w.turn_id JOIN introspect_session s ON s.id = t.session_id"
        )
        for row in sorted(map(repr, rows)):
            fh.write(f"introspect_turnway {row}\n")
    db.close()


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--home", type=Path, required=True, help="the corpus HOME the database was imported from"
    )
    parser.add_argument("--work", type=Path, required=True, help="cold_ingest.py's --work")
    parser.add_argument("--profile", type=Path, help="run both steps under cProfile, the stats written here")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--repo", type=Path, help="derive with this checkout's code (before/after)")
    parser.add_argument("--dump", type=Path, help="write every derived table here after the steps")
    parser.add_argument(
        "--only", choices=("derive", "ledger"), help="one step alone (ledger: after a derive)"
    )
    parser.add_argument(
        "--one-by-one",
        action="store_true",
        help="derive each session alone, as a pass does while its writer waits for the worker",
    )
    return parser.parse_args()


def prepare(args: argparse.Namespace) -> Path:
    """The run's database, a fresh copy of the bare one, and the environment Django will read it by."""
    bare = args.work / "bare.sqlite3"
    if not bare.exists():
        make_bare(args.work / "db.sqlite3", bare)
    run = args.work / "derive-run.sqlite3"
    for name in ("derive-run.sqlite3", "derive-run.sqlite3-wal", "derive-run.sqlite3-shm"):
        (args.work / name).unlink(missing_ok=True)
    shutil.copyfile(bare, run)
    data = args.work / "derive-data"
    shutil.rmtree(data, ignore_errors=True)
    os.environ.update(peers.ingest_env(args.home, data, run))
    if args.repo:
        sys.path.insert(0, str(args.repo.resolve()))
    return run


# Django is set up once, at import, on the database and code the arguments chose (as bench/inproc.py):
# run as a script only.
ARGS = arguments() if __name__ == "__main__" else None
RUN = prepare(ARGS) if ARGS is not None else None
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "waysweb.settings")

import django  # noqa: E402 - after the database and code were chosen

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connections  # noqa: E402

from introspect.derive import sessions  # noqa: E402
from introspect.models import Session  # noqa: E402
from waysweb import passes  # noqa: E402


def main(args: argparse.Namespace, run: Path) -> None:
    profile = cProfile.Profile(time.process_time) if args.profile else None
    sids = list(Session.objects.values_list("sid", flat=True))
    steps = {
        "derive": (
            (lambda: [sessions.rebuild_sessions([sid], behind=False) for sid in sids])
            if args.one_by_one
            else lambda: sessions.rebuild_sessions(sids)
        ),
        "ledger": lambda: passes.ledger_pass(settings.WAYSWEB_LOCATIONS),
    }
    for name, step in steps.items():
        if args.only and name != args.only and not (args.only == "ledger" and name == "derive"):
            continue
        profiled = profile is not None and (args.only is None or name == args.only)
        load = os.getloadavg()[0]
        cpu, wall = time.process_time(), time.perf_counter()
        if profiled:
            profile.enable()
        step()
        if profiled:
            profile.disable()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        print(
            f"{name}: {wall:.1f} s wall, {cpu:.1f} CPU s ({len(sids):,} sessions); "
            f"load {load:.2f} -> {os.getloadavg()[0]:.2f}" + (" (profiled)" if profiled else ""),
            flush=True,
        )
    if args.dump:
        connections.close_all()
        dump(run, args.dump)
    if profile is not None:
        profile.dump_stats(args.profile)
        stats = pstats.Stats(str(args.profile))
        stats.sort_stats("tottime").print_stats(args.top)
        stats.sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main(ARGS, RUN)
