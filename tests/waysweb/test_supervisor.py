"""`serve`'s supervisor starts its importer again when it dies, after a pause that grows, and says so."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from introspect.importer import heartbeat
from waysweb import supervisor

pytestmark = pytest.mark.django_db

QUICK = (0.05, 0.1, 0.2)


class Followers:
    """Stand-ins for `ingest --follow`: each started process runs `code` (the next of `codes`)."""

    def __init__(self, *codes: str):
        self.codes = list(codes)
        self.started: list[subprocess.Popen] = []

    def __call__(self) -> subprocess.Popen:
        code = self.codes.pop(0) if len(self.codes) > 1 else self.codes[0]
        self.started.append(subprocess.Popen([sys.executable, "-c", code]))
        return self.started[-1]


def wait_for(condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


CRASH = (
    "from introspect.importer import heartbeat\n"
    "beat = heartbeat.Heartbeat(follow=True); beat.started(); beat.stopped('OverflowError: date value out of range')\n"
    "raise SystemExit(1)"
)
SLEEP = "import time; time.sleep(60)"


@pytest.fixture
def child_settings(settings, monkeypatch):
    """The stand-ins write the heartbeat where this test reads it."""
    monkeypatch.setenv("DJANGO_SETTINGS_MODULE", "waysweb.settings")
    monkeypatch.setenv("WAYSWEB_DATA_DIR", str(settings.DATA_DIR))
    monkeypatch.setenv("WAYSWEB_HOST", settings.WAYSWEB_HOST)
    monkeypatch.setenv("PYTHONPATH", str(settings.BASE_DIR))
    return settings


def test_it_restarts_a_dead_importer_and_says_why_on_the_terminal_and_in_the_heartbeat(child_settings):
    followers = Followers(f"import django; django.setup()\n{CRASH}", SLEEP)
    said: list[str] = []
    watcher = supervisor.Supervisor(followers, notice=said.append, backoff=(30,), grace_secs=0.01).start()
    try:
        wait_for(lambda: said)
        assert said == [
            "The importer stopped: OverflowError: date value out of range; restarting it in 30 s."
        ]
        reading = heartbeat.current()
        assert reading.state == "stopped" and reading.error == "OverflowError: date value out of range"
        assert 28 <= reading.restart_in <= 30
    finally:
        watcher.stop()
    assert len(followers.started) == 1  # stopped while it waited: not started again


def test_the_pause_grows_with_each_exit_in_a_row_and_it_keeps_restarting(child_settings):
    followers = Followers("raise SystemExit(3)", "raise SystemExit(3)", "raise SystemExit(3)", SLEEP)
    said: list[str] = []
    watcher = supervisor.Supervisor(followers, notice=said.append, backoff=QUICK, grace_secs=0.01).start()
    try:
        wait_for(lambda: len(followers.started) == 4)
        assert said == [
            f"The importer stopped: its process exited with status 3; restarting it in {delay:g} s."
            for delay in QUICK
        ]
        assert watcher.restarts == 3 and followers.started[-1].poll() is None  # the fourth runs
    finally:
        watcher.stop()
    assert followers.started[-1].returncode == -signal.SIGTERM


def test_a_follower_that_ran_long_enough_starts_the_pause_over(child_settings):
    watcher = supervisor.Supervisor(Followers(SLEEP), notice=print, backoff=QUICK, healthy_secs=0.0)
    assert [watcher.next_delay() for _ in range(3)] == [QUICK[0]] * 3
    watcher = supervisor.Supervisor(Followers(SLEEP), notice=print, backoff=QUICK, healthy_secs=60.0)
    assert [watcher.next_delay() for _ in range(4)] == [*QUICK, QUICK[-1]]


def test_a_killed_importer_is_named_by_its_signal(child_settings):
    followers = Followers("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", SLEEP)
    said: list[str] = []
    watcher = supervisor.Supervisor(followers, notice=said.append, backoff=(0.05,), grace_secs=0.01).start()
    try:
        wait_for(lambda: len(followers.started) == 2)
    finally:
        watcher.stop()
    assert said == ["The importer stopped: its process was killed by SIGKILL; restarting it in 0.05 s."]


def test_an_exit_while_serve_stops_is_not_restarted(child_settings):
    followers = Followers(SLEEP)
    said: list[str] = []
    watcher = supervisor.Supervisor(followers, notice=said.append, backoff=(0.05,), grace_secs=5.0).start()
    followers.started[0].send_signal(signal.SIGINT)  # Ctrl-C reaches the follower first...
    time.sleep(0.2)
    watcher.stop()  # ...and serve a moment later
    assert said == [] and len(followers.started) == 1


def test_another_importers_heartbeat_is_left_alone(child_settings):
    other = heartbeat.Heartbeat(follow=True)
    other.started()  # this process: alive, importing
    said: list[str] = []
    watcher = supervisor.Supervisor(
        Followers("raise SystemExit(1)", SLEEP), notice=said.append, backoff=(0.05,), grace_secs=0.01
    ).start()
    try:
        wait_for(lambda: said)
    finally:
        watcher.stop()
    reading = heartbeat.current()
    assert (reading.state, reading.restart_at) == ("running", None)
