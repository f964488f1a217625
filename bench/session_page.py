"""Server time of a long session's replay page: a generated 5,000-turn session, first screen.

    uv run python bench/session_page.py [--turns 5000] [--requests 30]

Builds a HOME with one long session (events + transcript), imports it into a throwaway SQLite
database, then times the session page (first screen), the next page fragment, the event log and
the session list through Django's test client (server time, no network). Prints p50/p95 and the
query counts, with this process's CPU time and the time spent in full garbage collections beside
them: on a shared machine a wall p95 far above the CPU p95 is other load, and a p95 far above p50
with a full collection counted is the collector (it walks every live object: tens of ms on this
2-core machine), not the page.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent


def build_home(home: Path, turns: int, sid: str) -> None:
    state = home / ".local/state/agent-ways"
    state.mkdir(parents=True)
    transcript = home / ".claude/projects/-home-dev-bench" / f"{sid}.jsonl"
    transcript.parent.mkdir(parents=True)
    ways = [
        "softwaredev/delivery/commits",
        "softwaredev/code/testing",
        "build",
        "security/secrets",
        "meta/context",
    ]
    with open(state / "events.jsonl", "wb") as events, open(transcript, "wb") as lines:
        events.write(
            orjson.dumps(
                {
                    "ts": "2026-11-01T00:00:00Z",
                    "event": "session_start",
                    "session": sid,
                    "project": "/home/dev/bench",
                }
            )
            + b"\n"
        )
        parent = None
        for n in range(turns):
            second = 10 * (n + 1)
            day, clock = 1 + second // 86400, second % 86400
            stamp = f"2026-11-{day:02d}T{clock // 3600:02d}:{clock % 3600 // 60:02d}:{clock % 60:02d}"
            if n and n % 1000 == 0:
                events.write(
                    orjson.dumps(
                        {
                            "ts": stamp + "Z",
                            "event": "session_start",
                            "session": sid,
                            "project": "/home/dev/bench",
                        }
                    )
                    + b"\n"
                )
            events.write(
                orjson.dumps(
                    {
                        "ts": stamp + "Z",
                        "event": "way_fired",
                        "way": ways[n % 5],
                        "trigger": "keyword" if n % 2 else "semantic:embedding:en",
                        "matched_span": "commit" if n % 2 else None,
                        "fire_score": "0.61",
                        "session": sid,
                        "token_position": str(1000 * (n % 900)),
                    }
                )
                + b"\n"
            )
            for uuid, kind, extra in (
                (f"u{n}", "user", {"message": {"role": "user", "content": f"please commit change {n}"}}),
                (
                    f"i{n}",
                    "attachment",
                    {
                        "attachment": {
                            "type": "hook_additional_context",
                            "hookEvent": "UserPromptSubmit",
                            "content": ["# Way"],
                        }
                    },
                ),
                (
                    f"t{n}",
                    "assistant",
                    {
                        "requestId": f"r{n}",
                        "message": {
                            "id": f"m{n}",
                            "role": "assistant",
                            "model": "claude-opus-4-6",
                            "content": [
                                {
                                    "type": "tool_use",
                                    "id": f"toolu_{n}",
                                    "name": "Bash",
                                    "input": {"command": f"git commit -m 'change {n}'"},
                                }
                            ],
                            "usage": {
                                "input_tokens": 3,
                                "output_tokens": 40,
                                "cache_creation_input_tokens": 100,
                                "cache_read_input_tokens": 1000 * (n % 900),
                            },
                        },
                    },
                ),
                (
                    f"r{n}",
                    "user",
                    {
                        "message": {
                            "role": "user",
                            "content": [
                                {
                                    "type": "tool_result",
                                    "tool_use_id": f"toolu_{n}",
                                    "content": "[main 1a2b3c] change",
                                }
                            ],
                        },
                        "toolUseResult": {"stdout": "[main 1a2b3c] change", "stderr": ""},
                    },
                ),
                (
                    f"a{n}",
                    "assistant",
                    {
                        "requestId": f"q{n}",
                        "message": {
                            "id": f"n{n}",
                            "role": "assistant",
                            "model": "claude-opus-4-6",
                            "content": [{"type": "text", "text": f"Committed **change {n}**."}],
                        },
                    },
                ),
            ):
                ms = {"user": 0, "attachment": 300}.get(kind, 700)
                lines.write(
                    orjson.dumps(
                        {
                            "type": kind,
                            "uuid": uuid,
                            "parentUuid": parent,
                            "sessionId": sid,
                            "timestamp": f"{stamp}.{ms:03d}Z",
                            "version": "2.1.180",
                            **extra,
                        }
                    )
                    + b"\n"
                )
                parent = uuid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=5000)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--work", type=Path, help="reuse (or create) this directory instead of a fresh one")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of the first-screen request")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="waysweb-bench-"))
    home = work / "home"
    sid = "bench-0000-4000-8000-long-session"
    if not home.exists():
        build_home(home, args.turns, sid)
    env = {
        **os.environ,
        "HOME": str(home),
        "WAYSWEB_DATA_DIR": str(work / "data"),
        "DJANGO_SETTINGS_MODULE": "waysweb.settings",
        "WAYSWEB_DATABASE_URL": f"sqlite:///{work / 'bench.sqlite3'}",
    }
    command = [
        sys.executable,
        str(ROOT / "bench" / "inproc.py"),
        "pages",
        "--sid",
        sid,
        "--requests",
        str(args.requests),
    ]
    subprocess.run([*command, *(["--profile"] if args.profile else [])], env=env, check=True)


if __name__ == "__main__":
    main()
