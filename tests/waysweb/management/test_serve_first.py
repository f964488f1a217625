"""`manage.py serve` listens first and imports behind it, newest files first (issue 15).

Drives the real command in a subprocess, on a free port, with HOME at a generated Claude Code
history big enough that its import takes several seconds: the pages answer while it runs, every
page shows the progress strip, and the newest session is on the list before the oldest file is
read.
"""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.conf import settings

from sample import formats

SESSIONS = 30
TURNS = 400  # 800 lines a transcript, 24,000 in all: several seconds of importing on this machine
REPLY = "The change is in place and the tests pass. " * 10  # ≈ 440 bytes a reply
DAY0 = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)


def sid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def write_history(home: Path) -> None:
    """SESSIONS transcripts of one project, session n started on day n; each file's mtime is its
    last line's time, as Claude Code leaves it."""
    project = "/home/dev/src/app"
    for n in range(SESSIONS):
        env = formats.envelope(
            cwd=project, session_id=sid(n), version="2.1.180", git_branch="main", slug="serve-first"
        )
        start = DAY0 + timedelta(days=n)
        lines, parent = [], None
        for turn in range(TURNS):
            at = start + timedelta(minutes=2 * turn)
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
        written = (start + timedelta(minutes=2 * TURNS)).timestamp()
        os.utime(path, (written, written))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read().decode()


def imported_sessions(database: Path) -> set[str]:
    """The sessions the running server's database holds now (read-only, beside the WAL writer)."""
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5) as db:
            return {row[0] for row in db.execute("SELECT sid FROM introspect_session")}
    except sqlite3.OperationalError:
        return set()  # not migrated yet


@pytest.fixture
def served(tmp_path):
    """`serve` on a generated history; yields (base URL, database path, output file)."""
    home = tmp_path / "home"
    write_history(home)
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
    out = tmp_path / "serve.out"
    manage = Path(settings.BASE_DIR) / "manage.py"
    with out.open("wb") as sink:
        server = subprocess.Popen(
            [sys.executable, str(manage), "serve", "--port", str(port)],
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its follower too, stopped as one group
        )
    try:
        yield f"http://127.0.0.1:{port}", database, out
    finally:
        os.killpg(server.pid, signal.SIGINT)  # Ctrl-C
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def test_it_answers_while_the_first_import_runs_and_lists_the_newest_session_first(served):
    base, database, out = served
    newest, oldest = sid(SESSIONS - 1), sid(0)
    started = time.monotonic()
    first_page = None
    strip_seen = False
    while True:
        assert time.monotonic() - started < 30, (
            f"the newest session was not listed:\n{out.read_text()[-3000:]}"
        )
        try:
            status, body = get(f"{base}/")
        except OSError:
            time.sleep(0.1)
            continue
        assert status == 200
        first_page = first_page or time.monotonic() - started
        strip_seen = strip_seen or 'id="progress-strip"' in body
        if newest in body:
            # The newest session is listed while the oldest file is not read yet.
            assert oldest not in body
            assert oldest not in imported_sessions(database)
            break
        time.sleep(0.2)
    assert first_page < 15, f"the first page took {first_page:.1f} s"
    # Every page shows the strip while the import runs, and polls its own route for a fresh one.
    while not strip_seen and oldest not in imported_sessions(database):
        strip_seen = 'id="progress-strip"' in get(f"{base}/ways/")[1]
        time.sleep(0.2)
    assert strip_seen, "no progress strip while the import ran"
    status, fragment = get(f"{base}/import-progress/")
    assert status == 200 and "<html" not in fragment
    # The rest lands behind it: every session, and the strip gone once the import is done.
    while len(imported_sessions(database)) < SESSIONS or 'id="progress-strip"' in get(f"{base}/")[1]:
        assert time.monotonic() - started < 90, f"the import did not finish:\n{out.read_text()[-3000:]}"
        time.sleep(0.5)
    assert get(f"{base}/import-progress/")[1].strip() == ""
