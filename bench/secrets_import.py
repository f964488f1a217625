"""A cold import with secret detection on and off (WAYSWEB_SECRET_SCAN), alternated, on one corpus.

    uv run python bench/secrets_import.py --home /tmp/x/home [--rounds 2] [--work DIR]

`--home` is a HOME built by bench/corpus.py (`--tier small`: ~30 MB of transcripts). Each round imports
it into a fresh SQLite database twice, detection off then on, with `manage.py ingest --no-ways` (the
transcripts, events, ledger and memory; the way catalog left out), and prints the wall time of each and
the findings stored. On a shared machine compare the rounds' pairs, not one run against another day's.
Not part of the test suite.
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


def cold_import(home: Path, work: Path, scan: bool) -> tuple[float, int]:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    env = {
        **os.environ,
        "HOME": str(home),
        "WAYSWEB_DATA_DIR": str(work / "data"),
        "WAYSWEB_DATABASE_URL": f"sqlite:///{work / 'bench.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "waysweb.settings",
        "WAYSWEB_SECRET_SCAN": "1" if scan else "0",
        "XDG_STATE_HOME": "",
        "XDG_CONFIG_HOME": "",
        "XDG_DATA_HOME": "",
        "CLAUDE_CONFIG_DIR": "",
    }
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], env=env, check=True)
    started = time.perf_counter()
    subprocess.run([*manage, "ingest", "--no-ways"], env=env, check=True, capture_output=True)
    seconds = time.perf_counter() - started
    with sqlite3.connect(work / "bench.sqlite3") as db:
        (findings,) = db.execute("SELECT count(*) FROM introspect_secretfinding").fetchone()
    return seconds, findings


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
            seconds, findings = cold_import(args.home, work / "db", scan)
            print(
                f"round {n + 1}  detection {'on ' if scan else 'off'}  {seconds:6.1f} s  findings {findings}"
            )


if __name__ == "__main__":
    main()
