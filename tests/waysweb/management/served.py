"""A real `manage.py serve` in a subprocess, on a generated Claude Code history in an empty HOME.

Shared by the tests that need the command as a user runs it (first import behind the pages, a
closed stdout, Ctrl-C) and the first-run browser walkthrough.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from django.conf import settings

from sample import formats

SESSIONS = 30
TURNS = 400  # 800 lines a transcript, 24,000 in all: several seconds of importing on this machine
REPLY = "The change is in place and the tests pass. " * 10  # ≈ 440 bytes a reply
DAY0 = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)


def sid(n: int) -> str:
    """Session n's id; its first eight characters (the list's short id) differ from every other's."""
    return f"{n:08d}-0000-4000-8000-{n:012d}"


def write_history(
    home: Path, *, sessions: int = SESSIONS, turns: int = TURNS, oldest_turns: int | None = None
) -> None:
    """`sessions` transcripts of one project, session n started on day n; each file's mtime is its
    last line's time, as Claude Code leaves it. `oldest_turns` makes session 0, the file read last,
    that long."""
    project = "/home/dev/src/app"
    for n in range(sessions):
        env = formats.envelope(
            cwd=project, session_id=sid(n), version="2.1.180", git_branch="main", slug="serve-first"
        )
        start = DAY0 + timedelta(days=n)
        lines, parent = [], None
        count = oldest_turns if n == 0 and oldest_turns else turns
        # Two minutes a turn, or closer: the file's last line (its mtime) stays on its own day, so
        # the files are read in session order, newest first.
        step = min(timedelta(minutes=2), timedelta(hours=20) / count)
        for turn in range(count):
            at = start + step * turn
            prompt_uuid, reply_uuid = f"p-{n}-{turn}", f"r-{n}-{turn}"
            lines.append(
                formats.transcript_prompt(
                    parent,
                    env,
                    f"session {n} prompt {turn}: make it faster",
                    prompt_id=f"pid-{n}-{turn}",
                    uuid=prompt_uuid,
                    timestamp=at.isoformat().replace("+00:00", "Z"),
                )
            )
            lines.append(
                formats.transcript_assistant(
                    prompt_uuid,
                    env,
                    formats.text_block(REPLY),
                    model="claude-opus-4-6",
                    message_id=f"msg-{n}-{turn}",
                    request_id=f"req-{n}-{turn}",
                    stop_reason="end_turn",
                    usage=formats.usage(10, 0, 100, 50),
                    uuid=reply_uuid,
                    timestamp=(at + timedelta(seconds=30)).isoformat().replace("+00:00", "Z"),
                )
            )
            parent = reply_uuid
        path = home / formats.transcript_path(project, sid(n))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(formats.jsonl(lines))
        written = (at + timedelta(seconds=30)).timestamp()
        os.utime(path, (written, written))


def ephemeral_floor() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_ports(n: int) -> list[int]:
    """`n` distinct ports nothing listens on (held open together, so they differ), below the
    kernel's ephemeral range: a port from that range can be handed to one of this test's own
    connections as its source port while nothing listens on it yet (a TCP self-connect), and the
    server started there then cannot bind it."""
    floor = ephemeral_floor()
    # Each test worker (pytest-xdist) takes its own residue class of ports: a port free when one
    # worker checks it can be bound by the other's server before this one's server starts.
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    pool = range(max(1024, floor - 12000) + worker, floor, workers)
    candidates = random.Random().sample(pool, 200)
    with ExitStack() as stack:
        ports: list[int] = []
        for port in candidates:
            sock = stack.enter_context(socket.socket())
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            ports.append(port)
            if len(ports) == n:
                return ports
    raise RuntimeError(f"no {n} free ports below {floor}")


def free_port() -> int:
    return free_ports(1)[0]


def get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read().decode()


def imported_sessions(database: Path, *, derived: bool = False) -> set[str]:
    """The sessions the running server's database holds now (read-only, beside the WAL writer);
    with `derived`, only those the importer has finished deriving."""
    where = " WHERE derived_version > 0" if derived else ""
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5) as db:
            return {row[0] for row in db.execute(f"SELECT sid FROM introspect_session{where}")}
    except sqlite3.OperationalError:
        return set()  # not migrated yet


def children(pid: int) -> list[int]:
    """The live child processes of `pid` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid …: comm may hold spaces and parentheses, so split after the last ")".
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


@dataclass
class Served:
    process: subprocess.Popen
    base: str
    database: Path
    data: Path

    def importer(self, timeout: float = 60) -> int:
        """The pid of the importer `serve` started (its one child)."""
        deadline = time.monotonic() + timeout
        while not (kids := children(self.process.pid)):
            assert time.monotonic() < deadline, "serve started no importer"
            assert self.process.poll() is None, "serve ended"
            time.sleep(0.1)
        return kids[0]

    def wait_listening(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                get(f"{self.base}/import-progress/")
                return
            except OSError:
                assert time.monotonic() < deadline, "serve never answered"
                assert self.process.poll() is None, "serve ended"
                time.sleep(0.1)

    def stop(self) -> None:
        """Ctrl-C to the whole group, then SIGKILL whatever is left (a test's cleanup, not a test)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=20)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)  # an importer left behind, too
        self.process.wait()


def start(tmp_path: Path, home: Path, *, stdout, stderr=subprocess.STDOUT) -> Served:
    """`manage.py serve` on `home` with its own data directory, database and port, in its own
    process group (its importer in it too, as a terminal's Ctrl-C reaches both)."""
    database = tmp_path / "serve.sqlite3"
    port = free_port()
    env = {
        **os.environ,
        "HOME": str(home),
        "WAYSWEB_DATA_DIR": str(tmp_path / "data"),
        "WAYSWEB_DATABASE_URL": f"sqlite:///{database}",
        "XDG_STATE_HOME": "",
        "XDG_CONFIG_HOME": "",
        "XDG_DATA_HOME": "",
        "CLAUDE_CONFIG_DIR": "",
        "WAYSWEB_CLAUDE_DIR": "",
        "WAYSWEB_STATE_DIR": "",
        "WAYSWEB_DEMO": "0",
        "DJANGO_SETTINGS_MODULE": "waysweb.settings",
    }
    manage = Path(settings.BASE_DIR) / "manage.py"
    process = subprocess.Popen(
        [sys.executable, str(manage), "serve", "--port", str(port)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        start_new_session=True,
    )
    return Served(process, f"http://127.0.0.1:{port}", database, tmp_path / "data")
