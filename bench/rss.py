"""Peak RSS of `manage.py ingest` on the inputs that used to blow the importer's memory budget.

    uv run python bench/rss.py [--archive-mb 300] [--line-mb 50] [--only archive|line] [--work DIR]
    uv run python bench/rss.py --transcript-gb 2   # one trunk transcript of 2 GiB of ordinary turns instead
    uv run python bench/rss.py --tier large     # the whole bench corpus instead (~1 min to write, ~6 to import)
    uv run python bench/rss.py --session-mb 600 --rebuild --result bench/results/DATE-rss-rebuild.json

Writes a focused HOME (not the whole bench corpus, which takes ~6 min to import):
- `events-2026-10-23.jsonl.gz`: ONE gzip member of `--archive-mb` MiB of distinct event lines (as agent-ways
  rotates a whole events file into an archive), then a small second member;
- a trunk transcript with a few ordinary lines and one tool result of `--line-mb` MB on a single line
  (the output twice, as Claude Code writes it: `message.content` and `toolUseResult.stdout`).
With `--transcript-gb N`, one trunk transcript of N GiB of ordinary turns instead (a session that
ran for months: every line of it is derived at once). With `--session-mb N`, one ordinary session
of bench/corpus.py of N MiB instead (its line-size mix, subagents and agent-ways events). Then
runs `migrate` and `ingest` as child processes against a fresh SQLite database and prints each
child's peak RSS (from `os.wait4`, so only that child is counted). With `--rebuild`, then marks
every session as derived by an older version and runs `ingest` again: nothing new to read, every
session rebuilt whole (as after a DERIVED_VERSION bump), the rebuild's own peak. `--result`
writes the numbers as JSON.
Target: < 300 MB.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import child, corpus  # noqa: E402 - the repository root first, so that `bench` imports as run

STATE = ".local/state/agent-ways"
PROJECT = "-home-dev-src-rss"
SESSION = "5f0c3a52-4d1e-4b7a-9c33-2a1f0e6b7d10"
# The fields Claude Code repeats on every transcript line of the session.
ENVELOPE = {
    "isSidechain": False,
    "userType": "external",
    "cwd": "/home/dev/src/rss",
    "sessionId": SESSION,
    "version": "2.1.180",
    "gitBranch": "main",
}
WORDS = ("alpha", "build", "cache", "delta", "epoch", "fetch", "graph", "hover", "index", "joint", "kernel")


def event_lines(target: int, *, sessions: int = 50):
    """Distinct event lines of about 300 bytes until `target` bytes were produced."""
    r = random.Random(1)
    produced = n = 0
    while produced < target:
        second = n // 20
        line = (
            orjson.dumps(
                {
                    "ts": f"2026-10-{1 + second // 86400 % 28:02d}T{second // 3600 % 24:02d}:{second // 60 % 60:02d}:"
                    f"{second % 60:02d}Z",
                    "event": "way_fired",
                    "way": f"softwaredev/{r.choice(WORDS)}/{r.choice(WORDS)}",
                    "domain": "softwaredev",
                    "trigger": "bash",
                    "scope": "agent",
                    "project": "/home/dev/src/rss",
                    "n": str(n),
                    "note": " ".join(r.choice(WORDS) for _ in range(20)),
                    "session": f"sess-{n % sessions:04d}",
                }
            )
            + b"\n"
        )
        produced += len(line)
        n += 1
        yield line


def write_archive(home: Path, megabytes: int) -> Path:
    """One big member (streamed through a compressor, never held whole) and one small one."""
    path = home / STATE / "events-2026-10-23.jsonl.gz"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        with gzip.GzipFile(fileobj=fh, mode="wb", compresslevel=1, mtime=0) as gz:
            pending = []
            for line in event_lines(megabytes << 20):
                pending.append(line)
                if len(pending) >= 4096:
                    gz.write(b"".join(pending))
                    pending.clear()
            gz.write(b"".join(pending))
        fh.write(
            gzip.compress(
                b'{"ts":"2026-10-23T00:00:00Z","event":"session_start","session":"tail"}\n', mtime=0
            )
        )
    return path


def huge_output(size: int) -> str:
    r = random.Random(2)
    rows = []
    produced = 0
    while produced < size:
        row = (
            f"[{produced:012d}] {r.choice(WORDS)} {r.getrandbits(64):016x} "
            + " ".join(r.choice(WORDS) for _ in range(8))
            + "\n"
        )
        rows.append(row)
        produced += len(row)
    return "".join(rows)


def write_transcript(home: Path, megabytes: int) -> Path:
    path = home / ".claude" / "projects" / PROJECT / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    env = ENVELOPE
    out = huge_output(megabytes * 1_000_000 // 2)
    lines = [
        {
            "parentUuid": None,
            **env,
            "type": "user",
            "message": {"role": "user", "content": "run the build"},
            "uuid": "u-1",
            "timestamp": "2026-12-01T10:00:00.000Z",
        },
        {
            "parentUuid": "u-1",
            **env,
            "type": "assistant",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "model": "claude-opus-4-6",
                "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "make"}}
                ],
                "usage": {"input_tokens": 4, "output_tokens": 30, "cache_read_input_tokens": 100},
            },
            "uuid": "a-1",
            "timestamp": "2026-12-01T10:00:01.000Z",
        },
        {
            "parentUuid": "a-1",
            **env,
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {"tool_use_id": "toolu_1", "type": "tool_result", "content": out, "is_error": False}
                ],
            },
            "toolUseResult": {"stdout": out, "stderr": "", "interrupted": False, "isImage": False},
            "uuid": "u-2",
            "timestamp": "2026-12-01T10:00:09.000Z",
        },
        {
            "parentUuid": "u-2",
            **env,
            "type": "assistant",
            "message": {
                "id": "msg_2",
                "role": "assistant",
                "model": "claude-opus-4-6",
                "content": [{"type": "text", "text": "The build passed."}],
            },
            "uuid": "a-2",
            "timestamp": "2026-12-01T10:00:10.000Z",
        },
    ]
    with open(path, "wb") as fh:
        fh.writelines(orjson.dumps(line) + b"\n" for line in lines)
    return path


def write_long_transcript(home: Path, gib: float) -> Path:
    """One trunk transcript of `gib` GiB, streamed: turns of a prompt, a tool call, its result
    (1-40 KB, some of them 200 KB) and a reply, each line parented on the one before, as a
    months-long Claude Code session leaves one."""
    path = home / ".claude" / "projects" / PROJECT / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    env = ENVELOPE
    r = random.Random(3)
    outputs = [huge_output(r.choice((1_000, 4_000, 12_000, 40_000, 200_000))) for _ in range(64)]
    target = int(gib * (1 << 30))
    written = turn = 0
    parent = None
    with open(path, "wb", buffering=1 << 20) as fh:
        while written < target:
            turn += 1
            second = turn * 20
            stamp = f"2026-{1 + second // 2419200 % 12:02d}-{1 + second // 86400 % 28:02d}T"
            stamp += f"{second // 3600 % 24:02d}:{second // 60 % 60:02d}:{second % 60:02d}"
            out = outputs[turn % len(outputs)]
            tool = f"toolu_{turn:08d}"
            lines = [
                {"type": "user", "message": {"role": "user", "content": f"step {turn}: run the build"}},
                {
                    "type": "assistant",
                    "message": {
                        "id": f"msg_{turn}a",
                        "role": "assistant",
                        "model": "claude-opus-4-6",
                        "content": [
                            {"type": "tool_use", "id": tool, "name": "Bash", "input": {"command": "make"}}
                        ],
                        "usage": {
                            "input_tokens": 4,
                            "output_tokens": 30,
                            "cache_read_input_tokens": 1000 + turn,
                        },
                    },
                    "requestId": f"req_{turn}a",
                },
                {
                    "type": "user",
                    "message": {
                        "role": "user",
                        "content": [
                            {"tool_use_id": tool, "type": "tool_result", "content": out, "is_error": False}
                        ],
                    },
                    "toolUseResult": {"stdout": out, "stderr": "", "interrupted": False, "isImage": False},
                },
                {
                    "type": "assistant",
                    "message": {
                        "id": f"msg_{turn}b",
                        "role": "assistant",
                        "model": "claude-opus-4-6",
                        "content": [{"type": "text", "text": f"Step {turn} built."}],
                        "usage": {
                            "input_tokens": 4,
                            "output_tokens": 8,
                            "cache_read_input_tokens": 1100 + turn,
                        },
                    },
                    "requestId": f"req_{turn}b",
                },
            ]
            for n, line in enumerate(lines):
                uuid = f"{turn:08d}-0000-4000-8000-{n:012d}"
                data = orjson.dumps(
                    {"parentUuid": parent, **env, **line, "uuid": uuid, "timestamp": f"{stamp}.{n:03d}Z"}
                )
                fh.write(data + b"\n")
                written += len(data) + 1
                parent = uuid
    return path


def write_inputs(args: argparse.Namespace, home: Path) -> None:
    started = time.perf_counter()
    if args.tier:
        info = corpus.generate(home, args.tier)
        print(
            f"corpus {args.tier}: {info.events_lines:,} event lines ({info.events_bytes / 2**20:.0f} MiB), "
            f"{info.transcript_lines:,} transcript lines ({info.transcript_bytes / 2**20:.0f} MiB)"
        )
    if args.session_mb:
        info = corpus.one_session(home, args.session_mb)
        print(
            f"one session: {info.transcript_lines:,} transcript lines ({info.transcript_bytes / 2**20:.0f} MiB, "
            f"{len(info.transcript_files)} files), {info.events_lines:,} event lines"
        )
    elif args.transcript_gb:
        path = write_long_transcript(home, args.transcript_gb)
        print(f"transcript {path.stat().st_size / 2**30:.2f} GiB, {sum(1 for _ in path.open('rb')):,} lines")
    elif not args.tier and not args.session_mb and args.only != "line":
        archive = write_archive(home, args.archive_mb)
        print(
            f"archive {archive.stat().st_size / 2**20:.1f} MiB compressed, "
            f"{args.archive_mb} MiB uncompressed (one member)"
        )
    if not args.tier and not args.transcript_gb and not args.session_mb and args.only != "archive":
        transcript = write_transcript(home, args.line_mb)
        longest = max(len(line) for line in transcript.read_bytes().split(b"\n"))
        print(
            f"transcript {transcript.stat().st_size / 1e6:.1f} MB, longest line {longest / 1e6:.1f} MB, "
            f"zlib level 1 {len(zlib.compress(transcript.read_bytes(), 1)) / 1e6:.1f} MB"
        )
    print(f"written in {time.perf_counter() - started:.1f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--archive-mb", type=int, default=300, help="uncompressed MiB in the archive's big member"
    )
    parser.add_argument("--line-mb", type=int, default=50, help="MB of the single transcript line")
    parser.add_argument("--only", choices=("archive", "line"), help="write only one of the two inputs")
    parser.add_argument(
        "--tier", choices=sorted(corpus.TIERS), help="import bench/corpus.py's corpus of this tier"
    )
    parser.add_argument("--work", type=Path, help="keep the HOME and database here (the HOME is reused)")
    parser.add_argument(
        "--transcript-gb", type=float, help="one trunk transcript of this many GiB instead of the two inputs"
    )
    parser.add_argument(
        "--session-mb", type=int, help="one ordinary session of bench/corpus.py of this many MiB instead"
    )
    parser.add_argument(
        "--rebuild", action="store_true", help="then every session rebuilt whole by a second ingest"
    )
    parser.add_argument("--result", type=Path, help="write the numbers to this JSON file")
    parser.add_argument("--write-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="waysweb-rss-"))
    home = work / "home"
    if args.write_only:
        write_inputs(args, home)
        return
    if not home.exists():
        # Written by a child process: Linux carries a parent's peak RSS over into the children it
        # forks (ru_maxrss survives fork and exec), so a parent that held the inputs would inflate
        # every number measured below.
        subprocess.run(
            [sys.executable, __file__, *sys.argv[1:], "--work", str(work), "--write-only"], check=True
        )
    for name in ("db.sqlite3", "db.sqlite3-wal", "db.sqlite3-shm"):
        (work / name).unlink(missing_ok=True)
    shutil.rmtree(work / "data", ignore_errors=True)
    env = child.environment(work, home=home)
    run = child.manage(["migrate", "-v0"], env, work)
    print(f"migrate: {run.seconds:.1f} s, peak RSS {run.peak_mb:.0f} MB")
    run = child.manage(["ingest", "--no-ways"], env, work)
    seconds, peak = run.seconds, run.peak_mb
    summary = next(
        (line for line in run.out.splitlines() if line.startswith("Imported")), run.out.strip()[-300:]
    )
    files = list((home / ".claude").rglob("*.jsonl"))
    lines = sum(line_count(path) for path in files)
    rows = entry_rows(work / "db.sqlite3")
    print(f"ingest: {seconds:.1f} s, peak RSS {peak:.0f} MB (target < 300)\n  {summary}")
    result = {
        "inputs": inputs(args),
        "transcript_bytes": sum(path.stat().st_size for path in files),
        "transcript_lines": lines,
        "transcript_rows": rows,
        "import": {
            "seconds": round(seconds, 1),
            "peak_rss_mb": round(peak),
            "lines_per_s": round(lines / seconds),
        },
    }
    if args.rebuild:
        sessions = mark_underived(work / "db.sqlite3")
        run = child.manage(["ingest", "--no-ways"], env, work, name="rebuild")
        seconds, peak = run.seconds, run.peak_mb
        print(f"rebuild of {sessions} sessions: {seconds:.1f} s, peak RSS {peak:.0f} MB (target < 300)")
        result["rebuild"] = {
            "sessions": sessions,
            "seconds": round(seconds, 1),
            "peak_rss_mb": round(peak),
            "rows_per_s": round(rows / seconds),
        }
    if args.result:
        result["commit"] = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        result["machine"] = f"{platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}"
        result["target_rss_mb"] = 300
        args.result.write_text(json.dumps(result, indent=2) + "\n")
        print(f"written {args.result}")
    print(f"work directory: {work}")


def inputs(args: argparse.Namespace) -> str:
    if args.session_mb:
        return f"bench/corpus.py one_session({args.session_mb} MiB)"
    if args.transcript_gb:
        return f"one trunk transcript of {args.transcript_gb} GiB (write_long_transcript)"
    if args.tier:
        return f"bench/corpus.py tier {args.tier}"
    return f"archive {args.archive_mb} MiB, one line of {args.line_mb} MB (only: {args.only or 'both'})"


def line_count(path: Path) -> int:
    """Counted a MiB at a time: this process's peak carries over into the children it starts later."""
    with open(path, "rb") as fh:
        return sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 20), b""))


def entry_rows(database: Path) -> int:
    with sqlite3.connect(database) as db:
        return db.execute("SELECT count(*) FROM introspect_transcriptentry").fetchone()[0]


def mark_underived(database: Path) -> int:
    """Every session as built by version 0: the next pass rebuilds each whole (derive/sessions.py)."""
    with sqlite3.connect(database) as db:
        return db.execute("UPDATE introspect_session SET derived_version = 0").rowcount


if __name__ == "__main__":
    main()
