"""waysweb beside the tools a user would otherwise run, on the same transcripts, in one run.

    uv sync --group bench                                   # agentsview (its Go binary) and claude-code-log
    uv run python bench/run.py --peers [--tier large] [--json PATH] [--text PATH]
    uv run python bench/run.py --peers --megabytes 5        # one generated session of 5 MiB: a quick run

Generates the transcripts (bench/corpus.py: the large tier holds ≈ 1 GiB of them, the small ≈ 30 MiB,
`--megabytes N` one session of N MiB), then runs each tool on them as a child process, one after the
other, and records its wall time, the peak RSS of its process tree (its children summed, sampled from
/proc) and what it left on disk:
- read + orjson parse of every line, in this process (the floor any importer pays);
- ccusage 20 (`ccusage session --json --offline`; no database), npm-installed into a cache directory
  outside the repository (`--ccusage-dir`, default ~/.cache/waysweb-bench/ccusage) if npm is there;
- agentsview (`AGENTSVIEW_NO_DAEMON=1 agentsview sync`: one import, no server), its HOME and data
  directory in a scratch folder so it never reads or writes the user's own;
- waysweb `manage.py ingest` of the transcripts alone into a fresh SQLite database;
- claude-code-log (`convert --all-projects --no-cache`: HTML, not a database).
A tool that is not installed, or fails, is reported as such and the others are still measured.
Ratios are each tool's figure over waysweb's. Not part of the test suite: no figure is asserted.
"""

from __future__ import annotations

import contextlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import NamedTuple

import orjson

ROOT = Path(__file__).resolve().parent.parent
CCUSAGE_VERSION = "20.0.24"
PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass
class Measure:
    """One tool's run: None where it does not apply or could not be measured."""

    tool: str
    seconds: float | None = None
    peak_rss_mb: float | None = None
    disk_mb: float | None = None
    version: str = ""
    missing: str = ""  # why it was not measured (not installed, failed)
    notes: dict = field(default_factory=dict)


@dataclass
class Tree:
    """The peak summed RSS of a process and its descendants, sampled while it runs."""

    root: int
    peak: int = 0
    done: threading.Event = field(default_factory=threading.Event)

    def sample(self) -> int:
        children: dict[int, list[int]] = {}
        rss: dict[int, int] = {}
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError, ValueError, IndexError):
                with open(f"/proc/{entry.name}/stat", "rb") as fh:
                    # The command name may hold spaces: the fields after it follow its last ')'.
                    fields = fh.read().rsplit(b")", 1)[1].split()
                pid = int(entry.name)
                children.setdefault(int(fields[1]), []).append(pid)
                rss[pid] = int(fields[21]) * PAGE
        total, todo = 0, [self.root]
        while todo:
            pid = todo.pop()
            total += rss.get(pid, 0)
            todo.extend(children.get(pid, ()))
        return total

    def watch(self, every: float = 0.05) -> None:
        while not self.done.wait(every):
            self.peak = max(self.peak, self.sample())


class Run(NamedTuple):
    seconds: float
    rss_mb: float
    status: int
    tail: str  # the last lines of its output, stderr last
    cpu_s: float  # user + system seconds of the child and the children it waited for


def run_tree(command: list[str], env: dict, *, cwd: Path | None = None) -> Run:
    """Wall seconds, peak tree RSS in MB, exit status, output and CPU seconds of one child command.

    The tree's peak is the larger of /proc sampling (children summed) and the child's own
    `ru_maxrss` from `wait4` (a peak between two samples)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        child = subprocess.Popen(command, env=env, cwd=cwd, stdout=out, stderr=err, start_new_session=True)
        tree = Tree(child.pid)
        watcher = threading.Thread(target=tree.watch, daemon=True)
        watcher.start()
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        tree.done.set()
        watcher.join()
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        # stderr last: a failing tool's own last words end the tail.
        tail = "\n".join(last_bytes(f) for f in (out, err)).strip()
    peak = max(tree.peak, usage.ru_maxrss * 1024)
    return Run(seconds, peak / 1e6, child.returncode, tail, usage.ru_utime + usage.ru_stime)


def last_bytes(fh, size: int = 2000) -> str:
    fh.seek(max(0, fh.seek(0, os.SEEK_END) - size))
    return fh.read().decode("utf-8", "replace").strip()


def disk_bytes(*paths: Path) -> int:
    """Bytes the files under `paths` hold (apparent sizes, as the tools' own `du -b` would say)."""
    total = 0
    for path in paths:
        if path.is_file():
            total += path.stat().st_size
        elif path.is_dir():
            total += sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())
    return total


def version_of(command: list[str], env: dict | None = None) -> str:
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
        out = (done.stdout or done.stderr).strip().splitlines()
        return out[0][:80] if out else ""
    return ""


def tool_path(name: str) -> str | None:
    """The tool from this interpreter's environment (the bench group), else from PATH."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


def fresh(folder: Path) -> Path:
    """An empty folder: nothing of an earlier run left in it."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def installed(measure: Measure, name: str) -> str | None:
    """The bench group's tool, or None with the reason on `measure`."""
    binary = tool_path(name)
    if binary is None:
        measure.missing = "not installed: uv sync --group bench"
    return binary


def summary(tail: str, *starts: str) -> str:
    """The lines of a tool's output that say what it did (its own counts)."""
    return " | ".join(line.strip() for line in tail.splitlines() if line.strip().startswith(starts))


def failed(measure: Measure, status: int, tail: str) -> Measure:
    last = tail.splitlines()[-1:] if tail else []
    measure.missing = f"failed with exit status {status}: {' '.join(last)[:300]}"
    return measure


# ---------------------------------------------------------------------------------------------------
# The tools


def read_parse(files: list[Path]) -> Measure:
    """Read every transcript line and orjson-load it, in this process: the floor of any importer."""
    started = time.perf_counter()
    lines = 0
    for path in files:
        with open(path, "rb") as fh:
            for line in fh:
                if line.strip():
                    with contextlib.suppress(orjson.JSONDecodeError):
                        orjson.loads(line)
                    lines += 1
    return Measure("read + orjson parse", seconds=time.perf_counter() - started, notes={"lines": lines})


def ccusage_binary(cache: Path) -> str | None:
    """ccusage 20 from the npm cache directory, installed there first if npm is on PATH."""
    binary = cache / "node_modules" / ".bin" / "ccusage"
    if binary.exists():
        return str(binary)
    npm = shutil.which("npm")
    if npm is None:
        return None
    cache.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [npm, "install", "--prefix", str(cache), "--no-audit", "--no-fund", f"ccusage@{CCUSAGE_VERSION}"],
        capture_output=True,
        check=False,
    )
    return str(binary) if binary.exists() else None


def ccusage(home: Path, scratch: Path, cache: Path) -> Measure:
    measure = Measure("ccusage 20 (no database)")
    binary = ccusage_binary(cache)
    if binary is None:
        measure.missing = f"not installed: npm install --prefix {cache} ccusage@{CCUSAGE_VERSION}"
        return measure
    env = {**os.environ, "HOME": str(scratch / "ccusage-home"), "CLAUDE_CONFIG_DIR": str(home / ".claude")}
    measure.version = "ccusage " + version_of([binary, "--version"], env)
    seconds, rss, status, tail, cpu = run_tree([binary, "session", "--json", "--offline"], env)
    if status != 0:
        return failed(measure, status, tail)
    measure.seconds, measure.peak_rss_mb = seconds, rss
    measure.notes["cpu_seconds"] = round(cpu, 1)  # the tree's user + system time: less load-bound
    return measure


def agentsview(home: Path, scratch: Path) -> Measure:
    measure = Measure("agentsview sync")
    binary = installed(measure, "agentsview")
    if binary is None:
        return measure
    data, own_home = fresh(scratch / "agentsview-data"), fresh(scratch / "agentsview-home")
    env = {
        **os.environ,
        # Its config, data and every default root are in the scratch HOME: never the user's own.
        "HOME": str(own_home),
        "XDG_CONFIG_HOME": str(own_home / ".config"),
        "XDG_DATA_HOME": str(own_home / ".local" / "share"),
        "AGENTSVIEW_DATA_DIR": str(data),
        "CLAUDE_PROJECTS_DIR": str(home / ".claude" / "projects"),
        "AGENTSVIEW_NO_DAEMON": "1",  # one import and exit: no background server
        "AGENTSVIEW_TELEMETRY_ENABLED": "0",  # on by default, and fails offline
    }
    measure.version = version_of([binary, "--version"], env)
    seconds, rss, status, tail, cpu = run_tree([binary, "sync"], env)
    if status != 0:
        return failed(measure, status, tail)
    measure.seconds, measure.peak_rss_mb = seconds, rss
    measure.notes["cpu_seconds"] = round(cpu, 1)  # the tree's user + system time: less load-bound
    measure.disk_mb = disk_bytes(data) / 1e6
    measure.notes["said"] = summary(tail, "Sync complete", "Database:")
    return measure


def ingest_env(home: Path, data: Path, database: Path) -> dict:
    """A waysweb child's environment: the corpus HOME, its own data folder and SQLite database,
    nothing of the caller's own locations. Bytecode is written and read as on a user's machine: a
    caller's PYTHONDONTWRITEBYTECODE would make every child compile Django and waysweb from source."""
    caller = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    return {
        **caller,
        "HOME": str(home),
        "WAYSWEB_DATA_DIR": str(data),
        "WAYSWEB_DATABASE_URL": f"sqlite:///{database}",
        "DJANGO_SETTINGS_MODULE": "waysweb.settings",
        "XDG_STATE_HOME": "",
        "XDG_CONFIG_HOME": "",
        "XDG_DATA_HOME": "",
        "CLAUDE_CONFIG_DIR": "",
    }


def waysweb(home: Path, scratch: Path) -> Measure:
    """`manage.py ingest` of the transcripts alone (no agent-ways events or way files, which the peers
    do not read) into a fresh SQLite database; on disk: the database and its WAL."""
    measure = Measure("waysweb ingest")
    measure.version = "waysweb " + version_of(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"])
    work = scratch / "waysweb"
    shutil.rmtree(work, ignore_errors=True)
    (work / "no-events").mkdir(parents=True)
    database = work / "db.sqlite3"
    env = ingest_env(home, work / "data", database)
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], env=env, check=True)
    before = disk_bytes(database, Path(f"{database}-wal"))
    no_events = work / "no-events"
    seconds, rss, status, tail, cpu = run_tree(
        [
            *manage,
            "ingest",
            "--no-ways",
            "--state-dir",
            str(no_events),
            "--legacy",
            str(no_events / "events.jsonl"),
        ],
        env,
    )
    if status != 0:
        return failed(measure, status, tail)
    measure.seconds, measure.peak_rss_mb = seconds, rss
    measure.notes["cpu_seconds"] = round(cpu, 1)  # the tree's user + system time: less load-bound
    stored = disk_bytes(database, Path(f"{database}-wal"))
    measure.disk_mb = stored / 1e6
    measure.notes["said"] = summary(tail, "Imported")
    measure.notes["empty_schema_mb"] = round(before / 1e6, 1)
    measure.notes["database"] = str(database)
    return measure


def claude_code_log(home: Path, scratch: Path) -> Measure:
    measure = Measure("claude-code-log convert")
    binary = installed(measure, "claude-code-log")
    if binary is None:
        return measure
    out, own_home = fresh(scratch / "ccl-out"), fresh(scratch / "ccl-home")
    env = {**os.environ, "HOME": str(own_home)}
    measure.version = version_of([binary, "--version"], env)
    command = [
        binary,
        "convert",
        "--all-projects",
        "--projects-dir",
        str(home / ".claude" / "projects"),
        "-o",
        str(out),
        "--no-cache",
    ]
    seconds, rss, status, tail, cpu = run_tree(command, env)
    if status != 0:
        return failed(measure, status, tail)
    measure.seconds, measure.peak_rss_mb = seconds, rss
    measure.notes["cpu_seconds"] = round(cpu, 1)  # the tree's user + system time: less load-bound
    measure.disk_mb = disk_bytes(out) / 1e6
    measure.notes["output"] = "HTML pages"
    return measure


# ---------------------------------------------------------------------------------------------------
# One run


TOOLS = ("parse", "ccusage", "agentsview", "waysweb", "claude-code-log")


def compare(
    home: Path,
    transcripts: list[Path],
    scratch: Path,
    *,
    tools: tuple[str, ...] = TOOLS,
    ccusage_dir: Path | None = None,
    keep: bool = False,
) -> dict:
    """Each tool of `tools` on the transcripts under `home`, one after the other; the result as a dict
    (notes, rows in run order, ratios to waysweb)."""
    source = sum(path.stat().st_size for path in transcripts)
    cache = ccusage_dir or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / (
        "waysweb-bench/ccusage"
    )
    scratch.mkdir(parents=True, exist_ok=True)
    runners = {
        "parse": lambda: read_parse(transcripts),
        "ccusage": lambda: ccusage(home, scratch, cache),
        "agentsview": lambda: agentsview(home, scratch),
        "waysweb": lambda: waysweb(home, scratch),
        "claude-code-log": lambda: claude_code_log(home, scratch),
    }
    rows: list[Measure] = []
    for name in tools:
        load = os.getloadavg()[0]
        measure = runners[name]()
        measure.notes["load_before"] = round(load, 2)
        rows.append(measure)
        print(describe(measure), flush=True)
    if not keep:
        for name in ("agentsview-data", "ccl-out", "waysweb"):
            shutil.rmtree(scratch / name, ignore_errors=True)
    ours = next((m for m in rows if m.tool == "waysweb ingest" and m.seconds), None)
    result = {
        "notes": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "machine": platform.machine(),
            "transcript_files": len(transcripts),
            "source_mb": round(source / 1e6, 1),
            "load_after": [round(v, 2) for v in os.getloadavg()],
        },
        "rows": [],
    }
    for measure in rows:
        row = {k: (round(v, 3) if isinstance(v, float) else v) for k, v in asdict(measure).items()}
        row["ratios_to_waysweb"] = ratios(measure, ours)
        if measure.disk_mb is not None and source:
            row["disk_to_source"] = round(measure.disk_mb * 1e6 / source, 3)
        result["rows"].append(row)
    return result


def ratios(measure: Measure, ours: Measure | None) -> dict:
    """This tool's time, RSS and disk over waysweb's (None where either is missing)."""
    out = {}
    for key in ("seconds", "peak_rss_mb", "disk_mb"):
        mine, theirs = getattr(measure, key), getattr(ours, key, None) if ours else None
        out[key] = round(mine / theirs, 3) if mine is not None and theirs else None
    return out


def describe(measure: Measure) -> str:
    if measure.missing:
        return f"{measure.tool}: not measured ({measure.missing})"
    parts = [f"{measure.seconds:.1f} s"]
    if measure.peak_rss_mb is not None:
        parts.append(f"{measure.peak_rss_mb:.0f} MB RSS")
    if measure.disk_mb is not None:
        parts.append(f"{measure.disk_mb:.0f} MB on disk")
    return f"{measure.tool}: " + ", ".join(parts)


def table(result: dict, title: str) -> str:
    """The result as a plain-text table (the committed .txt)."""
    notes = result["notes"]
    lines = [
        title,
        f"{notes['transcript_files']} transcript files, {notes['source_mb']:,.1f} MB; Python {notes['python']}, "
        f"{notes['cpus']} CPUs; load after: {notes['load_after']}",
        "",
        f"{'tool':28s} {'version':24s} {'time s':>9s} {'×ww':>6s} {'RSS MB':>8s} {'×ww':>6s} "
        f"{'disk MB':>9s} {'×ww':>6s} {'×src':>6s} {'load':>5s}",
    ]

    def num(value, fmt):
        return "" if value is None else format(value, fmt)

    for row in result["rows"]:
        r = row["ratios_to_waysweb"]
        if row["missing"]:
            lines.append(f"{row['tool']:28s} not measured: {row['missing']}")
            continue
        lines.append(
            f"{row['tool']:28s} {row['version'][:24]:24s} {num(row['seconds'], ',.1f'):>9s} "
            f"{num(r['seconds'], '.2f'):>6s} {num(row['peak_rss_mb'], ',.0f'):>8s} "
            f"{num(r['peak_rss_mb'], '.2f'):>6s} {num(row['disk_mb'], ',.0f'):>9s} "
            f"{num(r['disk_mb'], '.2f'):>6s} {num(row.get('disk_to_source'), '.2f'):>6s} "
            f"{row['notes'].get('load_before', ''):>5}"
        )
    lines.append("")
    ours = next(
        (row["notes"].get("cpu_seconds") for row in result["rows"] if row["tool"] == "waysweb ingest"), None
    )
    for row in result["rows"]:
        cpu = row["notes"].get("cpu_seconds")
        if cpu is not None:
            ratio = f" ({cpu / ours:.2f}× waysweb's)" if ours else ""
            lines.append(f"CPU {row['tool']}: {cpu:,.1f} s{ratio}")
    lines.append("")
    lines.append(
        "×ww: the tool's figure over waysweb's; ×src: on disk over the source bytes; load: 1-min load"
    )
    lines.append("average when the tool started (the machine is shared: figures under load are slower).")
    return "\n".join(lines) + "\n"
