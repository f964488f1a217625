"""Single values that used to stop the importer: how long a pass over them takes now.

    uv run python bench/poison.py [--work DIR] [--root CHECKOUT] [--kib 512]

Writes a small HOME holding what issue 24 measured stopping or stalling every pass:
- events and a transcript prompt stamped `9999-12-31T23:59:59Z` and `0001-01-01T00:00:00Z` (the
  join's ±8 s and the verdict search's ±3 s once raised OverflowError, on every later run too);
- one events line of `--kib` KiB of `}{` (a torn record run into the next; splice recovery once
  parsed every prefix ending at a `}{`: 256 KiB took 15.6 s, 512 KiB 81 s, again after each restart);
- an ordinary line after each of them.
Then runs `migrate` and three `ingest` passes as child processes of CHECKOUT (default: this one)
against a fresh SQLite database — cold, again unchanged, and after one appended line — and prints
each child's seconds (process start included), the import pass's own as it reports them, its exit
status and how many of the later lines landed. `--only dates|splice` writes one kind alone. Also times the parser
alone on a few shapes of `}{` lines. `--root` runs another checkout's `manage.py` with this one's
environment (for a before/after on the same machine). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from introspect.importer import parser as line_parser  # noqa: E402 (no Django: the parser is pure)

LAST, FIRST = "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z"


def event(ts: str, session: str, name: str = "way_fired", **fields) -> bytes:
    body = {"ts": ts, "event": name, "session": session}
    if name == "way_fired":
        body |= {"way": "d/a", "trigger": "keyword"}
    return orjson.dumps(body | fields) + b"\n"


def transcript(home: Path, session: str, ts: str) -> None:
    """A prompt and its UserPromptSubmit injection at `ts`: what the join looks for around a fire."""
    base = {"sessionId": session, "timestamp": ts, "version": "2.1.180", "cwd": "/p"}
    lines = [
        base
        | {
            "type": "user",
            "uuid": f"{session}-u",
            "parentUuid": None,
            "message": {"role": "user", "content": "hi"},
        },
        base
        | {
            "type": "attachment",
            "uuid": f"{session}-i",
            "parentUuid": f"{session}-u",
            "attachment": {
                "type": "hook_additional_context",
                "hookEvent": "UserPromptSubmit",
                "content": ["x"],
            },
        },
    ]
    path = home / ".claude" / "projects" / "-p" / f"{session}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))


def write_home(home: Path, kib: int, only: str) -> Path:
    live = home / ".local" / "state" / "agent-ways" / "events.jsonl"
    live.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for session, ts in (("last", LAST), ("first", FIRST)) if only != "splice" else ():
        transcript(home, session, ts)
        lines += [
            event(ts, session, "session_start", project="/p"),
            event(ts, session),
            event(ts, session, "way_judged", way="d/a", verdict="pass", p_yes=0.9, threshold=0.5),
        ]
    if only != "dates":
        torn = b'{"ts":"2026-11-02T10:00:00Z","event":"way_fired","surface":"' + b"}{" * (kib << 9)
        lines.append(torn + event("2026-11-02T10:00:01Z", "after"))
    lines.append(event("2026-11-02T10:00:02Z", "after"))
    live.write_bytes(b"".join(lines))
    return live


def env_for(home: Path, work: Path, root: Path, database: str = "poison.sqlite3") -> dict:
    """A `manage.py` child's environment: this HOME, a SQLite database and data folder in `work`,
    nothing of the caller's own locations."""
    return {
        **os.environ,
        "HOME": str(home),
        "WAYSWEB_DATA_DIR": str(work / "data"),
        "WAYSWEB_DATABASE_URL": f"sqlite:///{work / database}",
        "DJANGO_SETTINGS_MODULE": "waysweb.settings",
        "PYTHONPATH": str(root),
        "XDG_STATE_HOME": "",
        "XDG_CONFIG_HOME": "",
        "XDG_DATA_HOME": "",
        "CLAUDE_CONFIG_DIR": "",
        "WAYSWEB_CLAUDE_DIR": "",
        "WAYSWEB_STATE_DIR": "",
    }


def timed_pass(root: Path, env: dict) -> tuple[float, str, int, str]:
    """The child's seconds, the import pass's own (from its summary), its exit status, its last words."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(root / "manage.py"), "ingest", "--no-ways"],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    seconds = time.perf_counter() - started
    last = (done.stderr.strip().splitlines() or [""])[-1]
    own = re.search(r"sessions updated in ([\d.]+) s", done.stdout)
    return seconds, own.group(1) if own else "—", done.returncode, last


def landed(database: Path) -> int:
    with sqlite3.connect(database) as db:
        return db.execute("SELECT count(*) FROM introspect_waysevent WHERE session_key = 'after'").fetchone()[
            0
        ]


def parser_times(kib: int) -> list[tuple[str, float, str]]:
    """The parser alone, in this process, on lines of `kib` KiB that do not parse."""
    n = kib << 10
    shapes = {
        "a string full of }{, torn": b'{"ts":"2026-11-02T10:00:00Z","text":"' + b"}{" * (n // 2),
        "}{ and nothing else": b"}{" * (n // 2),
        'quotes and braces "{"': b'{"a":' + b'"{"' * (n // 3),
        "records run together": b'{"a":1}' + b'{"b":2}' * (n // 7),
        "a torn prefix, then a record": b'{"x":"' + b"a" * n + b'{"ts":"2026-11-02T10:00:00Z","event":"x"}',
    }
    out = []
    for name, line in shapes.items():
        started = time.perf_counter()
        parsed = line_parser.parse_line(line)
        seconds = time.perf_counter() - started
        outcome = f"{len(parsed.records)} recovered" + (
            f", {parsed.quarantine[0]}" if parsed.quarantine else ""
        )
        out.append((name, seconds, outcome))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--work", type=Path, help="where to write the HOME and the database (a temporary folder)"
    )
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose manage.py runs")
    parser.add_argument("--kib", type=int, default=512, help="size of the }{ line in KiB (default 512)")
    parser.add_argument(
        "--only", choices=("dates", "splice"), help="write only the stamps, or only the }{ line"
    )
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="waysweb-poison-"))
    home = work / "home"
    live = write_home(home, args.kib, args.only or "")
    env = env_for(home, work, args.root)
    subprocess.run(
        [sys.executable, str(args.root / "manage.py"), "migrate", "-v0"], env=env, cwd=args.root, check=True
    )
    print(f"checkout {args.root}; HOME and database under {work}")
    print(f"{'pass':<28}{'seconds':>9}{'import':>8}  exit  later lines  last words")
    for name in ("cold", "again, unchanged", "after one appended line"):
        if name.startswith("after"):
            with live.open("ab") as fh:
                fh.write(event("2026-11-02T10:05:00Z", "after", way="d/c"))
        seconds, own, code, last = timed_pass(args.root, env)
        print(
            f"{name:<28}{seconds:>9.2f}{own:>8}  {code:>4}  {landed(work / 'poison.sqlite3'):>11}  {last[:90]}"
        )
    if args.root == ROOT:
        print(f"\nthe parser alone on {args.kib} KiB lines that do not parse:")
        for name, seconds, outcome in parser_times(args.kib):
            print(f"  {name:<32}{seconds:>8.3f} s  {outcome}")


if __name__ == "__main__":
    main()
