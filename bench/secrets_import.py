"""A cold import with secret detection on and off (WAYSWEB_SECRET_SCAN), alternated, on one corpus.

    uv run python bench/secrets_import.py --home /tmp/x/home [--rounds 2] [--work DIR]

`--home` is a HOME built by bench/corpus.py (`--tier small`: ~30 MB of transcripts). Each round imports
it into a fresh SQLite database twice, detection off then on, with `manage.py ingest --no-ways` (the
transcripts, events, ledger and memory; the way catalog left out), and prints the wall and CPU time of each
and the findings stored. On a shared machine compare the rounds' pairs, not one run against another day's.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import child  # noqa: E402 - the repository root first, so that `bench` imports as run


def cold_import(home: Path, work: Path, scan: bool) -> tuple[child.Run, int]:
    """One cold `ingest --no-ways` of `home` into a fresh database: its wall and CPU time (CPU is
    what the work cost on a shared machine), and the findings it stored."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    env = child.environment(work, home=home, database="bench.sqlite3")
    env["WAYSWEB_SECRET_SCAN"] = "1" if scan else "0"
    child.manage(["migrate", "-v0"], env, work)
    run = child.manage(["ingest", "--no-ways"], env, work)
    with sqlite3.connect(work / "bench.sqlite3") as db:
        (findings,) = db.execute("SELECT count(*) FROM introspect_secretfinding").fetchone()
    return run, findings


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--work", type=Path)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="secrets-import-"))
    mb = sum(p.stat().st_size for p in (args.home / ".claude" / "projects").rglob("*.jsonl")) / 1e6
    print(f"transcripts {mb:.1f} MB")
    for n in range(args.rounds):
        for scan in (False, True):
            run, findings = cold_import(args.home, work / "db", scan)
            print(
                f"round {n + 1}  detection {'on ' if scan else 'off'}  {run.seconds:6.1f} s wall"
                f"  {run.cpu:6.1f} s CPU  {run.peak_mb:5.0f} MB peak  findings {findings}",
                flush=True,
            )


if __name__ == "__main__":
    main()
