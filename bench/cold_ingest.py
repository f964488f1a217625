"""One cold `manage.py ingest` of a corpus's events or transcripts alone, timed, optionally profiled.

    uv run python bench/corpus.py --tier large --out /tmp/large            # once
    uv run python bench/cold_ingest.py --home /tmp/large --only events      # the 1 M-event tier: lines/s
    uv run python bench/cold_ingest.py --home /tmp/large --only transcripts --profile /tmp/t.prof

Migrates a fresh SQLite database, then runs `ingest` on the corpus HOME's agent-ways events (its
state folder) or its Claude Code transcripts, nothing else, as a child process: wall seconds, lines
per second, the peak RSS of the child's tree, the database's size, and the importer's own summary.
With `--profile`, the child runs under cProfile (timing CPU seconds, not wall) and the top functions
by their own time and by cumulative time are printed (a profiled run is slower: its lines/s are not
the figure to quote).
The 1-minute load average is printed with each result: the machine is shared.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import pstats
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import peers  # noqa: E402 - the repository root first, so that `bench` imports as run

PROFILED = """
import cProfile, runpy, sys, time
out, script = sys.argv[1], sys.argv[2]
sys.argv = sys.argv[2:]
profile = cProfile.Profile(time.process_time)
try:
    profile.runcall(runpy.run_path, script, run_name="__main__")
finally:
    profile.dump_stats(out)
"""


def ingest_args(home: Path, only: str, scratch: Path) -> list[str]:
    """`ingest`'s arguments reading the one kind of input and nothing else."""
    nothing = scratch / "nothing"
    nothing.mkdir(parents=True, exist_ok=True)
    if only == "events":
        return ["--no-transcripts", "--no-ways", "--legacy", str(nothing / "events.jsonl")]
    return ["--no-ways", "--state-dir", str(nothing), "--legacy", str(nothing / "events.jsonl")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="a corpus HOME (bench/corpus.py --out)")
    parser.add_argument("--only", choices=("events", "transcripts"), required=True)
    parser.add_argument("--profile", type=Path, help="run under cProfile, the stats written here")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--work", type=Path, help="keep the database here")
    parser.add_argument(
        "--repo", type=Path, default=ROOT, help="run this checkout's manage.py (before/after)"
    )
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="waysweb-cold-"))
    shutil.rmtree(work / "data", ignore_errors=True)
    work.mkdir(parents=True, exist_ok=True)
    database = work / "db.sqlite3"
    for name in ("db.sqlite3", "db.sqlite3-wal", "db.sqlite3-shm"):
        (work / name).unlink(missing_ok=True)
    env = peers.ingest_env(args.home, work / "data", database)
    manage = [sys.executable, str(args.repo / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], env=env, check=True)
    command = [*manage, "ingest", *ingest_args(args.home, args.only, work)]
    if args.profile:
        # CPU time, not wall time: on a shared machine a function's wall time is mostly waiting.
        command = [sys.executable, "-c", PROFILED, str(args.profile), *command[1:]]
    load = os.getloadavg()[0]
    seconds, rss, status, tail, cpu = peers.run_tree(command, env)
    if status != 0:
        raise SystemExit(f"ingest failed ({status}): {tail[-500:]}")
    said = peers.summary(tail, "Imported")
    worker = peers.summary(tail, "prepared by")  # the worker's CPU, the writer's wait for it
    lines = int(match.group(1).replace(",", "")) if (match := re.search(r": ([0-9,]+) lines", said)) else 0
    size = peers.disk_bytes(database, Path(f"{database}-wal"))
    print(said)
    if worker:
        print(worker)
    print(
        f"{args.only}: {lines:,} lines in {seconds:.1f} s = {lines / seconds:,.0f} lines/s; "
        f"CPU {cpu:.1f} s = {lines / cpu:,.0f} lines per CPU-second; "
        f"peak RSS {rss:.0f} MB; database {size / 1e6:,.0f} MB; load {load:.2f} → {os.getloadavg()[0]:.2f}"
        + (" (profiled)" if args.profile else "")
    )
    if args.profile:
        stats = pstats.Stats(str(args.profile))
        stats.sort_stats("tottime").print_stats(args.top)
        stats.sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
