"""`manage.py serve` starts its importer again when it dies, and every page says so meanwhile.

Drives the real command in a subprocess on a free port; its importer (`ingest --follow`, a child
process) is killed as the kernel's out-of-memory killer would kill it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import orjson
import pytest
from django.conf import settings

from tests.conftest import line
from tests.waysweb.management.served import free_port


def page(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return " ".join(response.read().decode().split())


def beat(data: Path) -> dict:
    try:
        return orjson.loads((data / "importer-heartbeat.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}


def wait_for(condition, what: str, timeout: float = 90.0):
    deadline = time.monotonic() + timeout
    while True:
        try:
            found = condition()
        except OSError:
            found = None  # not listening yet
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.fixture
def served(tmp_path):
    """`serve` on a HOME with one events line; yields (base URL, data directory, output file)."""
    home = tmp_path / "home"
    live = home / ".local" / "state" / "agent-ways" / "events.jsonl"
    live.parent.mkdir(parents=True)
    live.write_bytes(line(ts="2026-11-02T10:00:00Z", event="session_start", project="/p", session="s1"))
    data = tmp_path / "data"
    port = free_port()
    env = {
        **os.environ,
        "HOME": str(home),
        "WAYSWEB_DATA_DIR": str(data),
        "WAYSWEB_DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite3'}",
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
            [sys.executable, str(manage), "serve", "--port", str(port), "--poll"],
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield f"http://127.0.0.1:{port}", data, out
    finally:
        os.killpg(server.pid, signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def test_a_killed_importer_is_started_again_and_every_page_says_so_meanwhile(served):
    url, data, out = served
    first = wait_for(lambda: beat(data).get("state") == "idle" and beat(data)["pid"], "the first pass")
    assert "The importer stopped" not in page(url + "/")

    os.kill(first, signal.SIGKILL)

    def stopped_banner() -> str | None:
        text = page(url + "/ways/")
        return text if "The importer stopped" in text else None

    banner = wait_for(stopped_banner, "the banner")
    assert "The importer stopped:</strong> <span>its process was killed by SIGKILL; restarting " in banner
    assert 'hx-get="/importer-alert/"' in banner

    again = wait_for(
        lambda: (
            beat(data).get("state") in ("running", "idle")
            and beat(data)["pid"] != first
            and beat(data)["pid"]
        ),
        "a new importer",
    )
    assert again != first
    wait_for(lambda: "The importer stopped" not in page(url + "/"), "the banner to go")
    assert page(url + "/importer-alert/") == ""
    said = out.read_text()
    assert "The importer stopped: its process was killed by SIGKILL; restarting it in 1 s." in said
