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
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.decision_rules import write_log  # noqa: E402 - after the path


def run_child(args: list[str], env: dict, work: Path) -> tuple[float, float, float, str]:
    """(wall seconds, CPU seconds, peak RSS in MB, stdout) of one child: on a shared machine the
    wall time says how busy it was, the CPU time (user + system, `os.wait4`) what the work cost."""
    started = time.perf_counter()
    out_path, err_path = work / f"{args[0]}.out", work / f"{args[0]}.err"
    with open(out_path, "w") as out, open(err_path, "w") as err:
        child = subprocess.Popen(
            [sys.executable, str(ROOT / "manage.py"), *args], env=env, stdout=out, stderr=err
        )
        _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{args[0]} failed:\n{err_path.read_text()[-3000:]}")
    cpu = usage.ru_utime + usage.ru_stime
    return time.perf_counter() - started, cpu, usage.ru_maxrss / 1024, out_path.read_text()


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
    env = {
        **os.environ,
        "HOME": str(work / "home"),
        "WAYSWEB_DATA_DIR": str(work / "data"),
        "WAYSWEB_DATABASE_URL": f"sqlite:///{work / 'db.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "waysweb.settings",
        "XDG_STATE_HOME": "",
        "XDG_CONFIG_HOME": "",
        "XDG_DATA_HOME": "",
        "CLAUDE_CONFIG_DIR": "",
    }
    seconds, cpu, peak, _ = run_child(["migrate", "-v0"], env, work)
    print(f"migrate: {seconds:.1f} s ({cpu:.1f} s CPU), peak RSS {peak:.0f} MB", flush=True)
    seconds, cpu, peak, out = run_child(["ingest", "--no-ways"], env, work)
    summary = next((line for line in out.splitlines() if line.startswith("Imported")), out.strip()[-300:])
    print(
        f"ingest: {lines:,} lines in {seconds:.1f} s ({cpu:.1f} s CPU) = {lines / seconds:,.0f} lines/s "
        f"({lines / cpu:,.0f} per CPU second), peak RSS {peak:.0f} MB"
    )
    print(f"  {summary}")
    with sqlite3.connect(work / "db.sqlite3") as db:
        for table in ("decisionrecord", "decisioncandidate", "decisionoutcome", "quarantine"):
            (count,) = db.execute(f"select count(*) from introspect_{table}").fetchone()
            print(f"  {table}: {count:,} rows", flush=True)
    seconds, cpu, peak, _ = run_child(["introspect", "stats", "--json"], env, work)
    print(f"introspect stats --json: {seconds:.1f} s ({cpu:.1f} s CPU), peak RSS {peak:.0f} MB", flush=True)
    session = (work / "session").read_text()
    seconds, cpu, peak, _ = run_child(["introspect", "decisions", session, "--json"], env, work)
    print(f"introspect decisions SESSION --json: {seconds:.1f} s ({cpu:.1f} s CPU), peak RSS {peak:.0f} MB")
    print(f"work directory: {work}")


if __name__ == "__main__":
    main()
