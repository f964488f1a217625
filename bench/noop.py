"""A no-op re-run of `manage.py ingest` on an imported database: wall and CPU seconds per run.

    uv run python bench/noop.py --db /tmp/x/db.sqlite3 --data /tmp/x/data --home /tmp/large/home \
        [--tree /work/base] [--tree .] [--runs 5] [--uv]

Runs `python TREE/manage.py ingest -v0` (with `--uv`: `uv run manage.py ingest -v0` in TREE, the
form the README gives; uv checks the project's environment first) against a database already
imported from HOME, so every run finds nothing to do. With several trees, their runs alternate
(A B A B ...), so a busy machine weighs on each alike. Each run's wall seconds and user + system
CPU seconds (from `os.wait4`: that child alone) are printed, then each tree's medians and the load.
The first run of each tree is a warm-up and is not counted (bytecode, page cache, a catch-up).
The database is written to (the importer's heartbeat): give it a copy, never an original.
Target (issue 29): < 1 s through `uv run`.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def environment(args: argparse.Namespace) -> dict[str, str]:
    return {
        **os.environ,
        "HOME": str(args.home),
        "WAYSWEB_DATA_DIR": str(args.data),
        "WAYSWEB_DATABASE_URL": f"sqlite:///{args.db}",
        "DJANGO_SETTINGS_MODULE": "waysweb.settings",
        "XDG_STATE_HOME": "",
        "XDG_CONFIG_HOME": "",
        "XDG_DATA_HOME": "",
        "CLAUDE_CONFIG_DIR": "",
    }


def one_run(tree: Path, env: dict[str, str], *, uv: bool) -> tuple[float, float]:
    """Wall and user + system CPU seconds of one `ingest -v0` in TREE."""
    if uv:
        # TREE's own project, this interpreter's environment (a second tree has no .venv of its own)
        command = ["uv", "run", "--frozen", "manage.py", "ingest", "-v0"]
        env = {**env, "UV_PROJECT_ENVIRONMENT": str(Path(sys.prefix))}
    else:
        command = [sys.executable, "manage.py", "ingest", "-v0"]
    started = time.perf_counter()
    child = subprocess.Popen(command, cwd=tree, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{tree}: ingest failed ({status})")
    return seconds, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--tree", type=Path, action="append", default=[])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--uv", action="store_true", help="through `uv run`, as a user runs it")
    args = parser.parse_args()
    trees = [tree.resolve() for tree in args.tree] or [ROOT]
    env = environment(args)
    runs: dict[Path, list[tuple[float, float]]] = {tree: [] for tree in trees}
    loads = []
    for round_ in range(args.runs + 1):
        for tree in trees:
            loads.append(os.getloadavg()[0])
            seconds, cpu = one_run(tree, env, uv=args.uv)
            label = "warm-up" if round_ == 0 else f"run {round_}"
            print(f"{tree.name:>12} {label:>7}: {seconds:.3f} s wall, {cpu:.3f} CPU s")
            if round_:
                runs[tree].append((seconds, cpu))
    for tree, done in runs.items():
        walls, cpus = [w for w, _ in done], [c for _, c in done]
        print(
            f"{tree.name:>12} median {statistics.median(walls):.3f} s wall ({min(walls):.3f}-{max(walls):.3f}), "
            f"{statistics.median(cpus):.3f} CPU s ({min(cpus):.3f}-{max(cpus):.3f})"
        )
    print(f"load {min(loads):.2f}-{max(loads):.2f}")


if __name__ == "__main__":
    main()
