"""`manage.py` as a child process of a benchmark: its environment, and what one run cost.

A benchmark measures a command in a process of its own: Linux carries a parent's peak RSS over into
the children it forks, and `os.wait4` gives the child's own peak and CPU time. The environment
points HOME, the data directory and the database into the benchmark's work folder and clears the
XDG and Claude Code variables, so nothing of the user's own setup is read.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def environment(work: Path, *, home: Path | None = None, database: str = "db.sqlite3") -> dict[str, str]:
    """The child's environment: HOME (`work/home` unless given), data and database under `work`."""
    return {
        **os.environ,
        "HOME": str(home or work / "home"),
        "WAYSWEB_DATA_DIR": str(work / "data"),
        "WAYSWEB_DATABASE_URL": f"sqlite:///{work / database}",
        "DJANGO_SETTINGS_MODULE": "waysweb.settings",
        "XDG_STATE_HOME": "",
        "XDG_CONFIG_HOME": "",
        "XDG_DATA_HOME": "",
        "CLAUDE_CONFIG_DIR": "",
    }


@dataclass
class Run:
    seconds: float  # wall: on a shared machine it says how busy the machine was
    cpu: float  # user + system: what the work cost
    peak_mb: float  # the child's own peak RSS
    out: str


def manage(args: list[str], env: dict, work: Path, *, name: str = "") -> Run:
    """Run `manage.py ARGS` to its end, its output in `work/NAME.out` and `.err` (NAME: the command's)."""
    started = time.perf_counter()
    name = name or args[0]
    out_path, err_path = work / f"{name}.out", work / f"{name}.err"
    with open(out_path, "w") as out, open(err_path, "w") as err:
        child = subprocess.Popen(
            [sys.executable, str(ROOT / "manage.py"), *args], env=env, stdout=out, stderr=err
        )
        _, status, usage = os.wait4(child.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    if code != 0:
        raise SystemExit(f"{args[0]} failed ({code}):\n{err_path.read_text()[-3000:]}")
    return Run(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out_path.read_text())
