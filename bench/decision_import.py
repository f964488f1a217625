"""How fast `manage.py ingest` imports a decision log: 100,000 scans (+ pulls) into a fresh SQLite database.

    uv run python bench/decision_import.py                  # 100,000 scans
    uv run python bench/decision_import.py --scans 20000 --work /tmp/decisions-bench

Writes bench/decision_rules.py's deterministic log (the writer's full shape: candidates, outcomes of
every result, judge statuses, pulls, a few malformed and unknown-kind lines) as the live
`decisions.jsonl` of a HOME with nothing else in it, then runs `migrate`, `ingest --no-ways`, and the
two commands over the imported rows (`introspect stats --json`, `introspect decisions SESSION --json`)
as child processes, each with its own peak RSS (`os.wait4`: that child alone). Prints lines/s of the
import and the rows it wrote. Target: RSS < 300 MB. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import child  # noqa: E402 - after the path
from bench.decision_rules import write_log  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scans", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--work", type=Path, help="keep the HOME and database here (the log is reused)")
    parser.add_argument("--write-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="waysweb-decisions-"))
    state = work / "home" / ".local" / "state" / "agent-ways"
    log = state / "decisions.jsonl"
    if args.write_only:
        state.mkdir(parents=True, exist_ok=True)
        lines, session = write_log(log, args.scans, args.seed)
        (work / "session").write_text(session)
        print(f"log: {lines:,} lines, {log.stat().st_size / 2**20:.1f} MiB")
        return
    if not log.exists():
        # Written by a child: a parent's peak RSS carries over into the children it forks.
        subprocess.run(
            [sys.executable, __file__, *sys.argv[1:], "--work", str(work), "--write-only"], check=True
        )
    lines = sum(1 for _ in log.open("rb"))
    for name in ("db.sqlite3", "db.sqlite3-wal", "db.sqlite3-shm"):
        (work / name).unlink(missing_ok=True)
    shutil.rmtree(work / "data", ignore_errors=True)
    env = child.environment(work)
    run = child.manage(["migrate", "-v0"], env, work)
    print(f"migrate: {run.seconds:.1f} s ({run.cpu:.1f} s CPU), peak RSS {run.peak_mb:.0f} MB", flush=True)
    run = child.manage(["ingest", "--no-ways"], env, work)
    summary = next(
        (line for line in run.out.splitlines() if line.startswith("Imported")), run.out.strip()[-300:]
    )
    print(
        f"ingest: {lines:,} lines in {run.seconds:.1f} s ({run.cpu:.1f} s CPU) = {lines / run.seconds:,.0f} "
        f"lines/s ({lines / run.cpu:,.0f} per CPU second), peak RSS {run.peak_mb:.0f} MB"
    )
    print(f"  {summary}")
    with sqlite3.connect(work / "db.sqlite3") as db:
        for table in ("decisionrecord", "decisioncandidate", "decisionoutcome", "quarantine"):
            (count,) = db.execute(f"select count(*) from introspect_{table}").fetchone()
            print(f"  {table}: {count:,} rows", flush=True)
    run = child.manage(["introspect", "stats", "--json"], env, work)
    print(
        f"introspect stats --json: {run.seconds:.1f} s ({run.cpu:.1f} s CPU), peak RSS {run.peak_mb:.0f} MB"
    )
    session = (work / "session").read_text()
    run = child.manage(["introspect", "decisions", session, "--json"], env, work)
    print(
        f"introspect decisions SESSION --json: {run.seconds:.1f} s ({run.cpu:.1f} s CPU), "
        f"peak RSS {run.peak_mb:.0f} MB"
    )
    print(f"work directory: {work}")


if __name__ == "__main__":
    main()
