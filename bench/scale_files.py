"""Fault case 28 (importer-reliability.md §14) at its full size: many small files beside big ones.

    uv run python bench/scale_files.py [--files 10000] [--big-mb 500] [--bigs 3] [--work DIR]

Writes `--files` one-line subagent transcripts and `--bigs` transcripts of `--big-mb` MiB each into a
private HOME, then times, each a `manage.py ingest --no-ways` into a fresh SQLite database: the cold
import, an idle pass (nothing new: a stat per file), and a pass after one new line in every
hundredth small file and a MiB more in each big one (every file's new lines land in that pass).
The full size writes 1.5 GB and takes minutes: it is measured here, never in the suite;
tests/faults/test_scale.py keeps the behaviour (no query per file, no file held back) at a size
that fits the suite. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.poison import env_for, timed_pass  # noqa: E402

PROMPT_PAD = "x" * 900  # ~1 KiB a line in the big files


def line(session: str, n: int, text: str, **fields) -> bytes:
    """One Claude Code user prompt line, its uuid distinct per (session, n)."""
    body = {
        "type": "user",
        "uuid": f"{session}-u{n}",
        "sessionId": session,
        "timestamp": f"2026-11-02T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
        "message": {"role": "user", "content": text},
    }
    return orjson.dumps(body | fields) + b"\n"


def write_big(path: Path, session: str, first: int, megabytes: int) -> int:
    """Append about `megabytes` MiB of prompts to `path`; the next line number."""
    n, target = first, megabytes << 20
    with open(path, "ab") as fh:
        written = 0
        while written < target:
            chunk = b"".join(line(session, n + k, f"{n + k} {PROMPT_PAD}") for k in range(1000))
            fh.write(chunk)
            written += len(chunk)
            n += 1000
    return n


def small_path(home: Path, n: int) -> Path:
    return home / ".claude" / "projects" / "-p" / "s1" / "subagents" / f"agent-a{n}.jsonl"


def ingest(env: dict, database: Path) -> tuple[float, int]:
    """The pass's seconds (a child: process start included) and the raw lines stored after it."""
    seconds, _, status, last = timed_pass(ROOT, env)
    if status != 0:
        raise SystemExit(f"ingest failed ({status}): {last}")
    with sqlite3.connect(database) as db:
        return seconds, db.execute("SELECT count(*) FROM introspect_physicalline").fetchone()[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--big-mb", type=int, default=500)
    parser.add_argument("--bigs", type=int, default=3)
    parser.add_argument("--work", type=Path)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="waysweb-bench-scale-"))
    home = work / "home"
    started = time.perf_counter()
    for n in range(args.files):
        path = small_path(home, n)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(line("s1", n, f"small {n}", isSidechain=True, agentId=f"a{n}"))
    bigs = [home / ".claude" / "projects" / "-p" / f"big{k}.jsonl" for k in range(args.bigs)]
    next_line = [write_big(path, path.stem, 0, args.big_mb) for path in bigs]
    written_s = time.perf_counter() - started

    env = env_for(home, work, ROOT, "scale.sqlite3")
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "-v0"], env=env, check=True, cwd=ROOT)
    database = work / "scale.sqlite3"
    cold_s, cold = ingest(env, database)
    idle_s, idle = ingest(env, database)

    late = 0
    for n in range(0, args.files, 100):
        with open(small_path(home, n), "ab") as fh:
            fh.write(line("s1", 10_000_000 + n, f"late {n}", isSidechain=True, agentId=f"a{n}"))
        late += 1
    for k, path in enumerate(bigs):
        before = next_line[k]
        next_line[k] = write_big(path, path.stem, before, 1)
        late += next_line[k] - before
    append_s, appended = ingest(env, database)

    figures = {
        "small_files": args.files,
        "big_files": args.bigs,
        "big_mb_each": args.big_mb,
        "write_s": round(written_s, 1),
        "cold_import_s": round(cold_s, 1),
        "idle_pass_s": round(idle_s, 2),
        "lines_stored": cold,
        "idle_lines_imported": idle - cold,
        "append_pass_s": round(append_s, 2),
        "append_lines_written": late,
        "append_lines_imported": appended - idle,
        "work": str(work),
    }
    print(orjson.dumps(figures, option=orjson.OPT_INDENT_2).decode())
    if figures["idle_lines_imported"] or figures["append_lines_imported"] != late:
        raise SystemExit("the idle pass imported lines, or the append pass held some back")


if __name__ == "__main__":
    main()
