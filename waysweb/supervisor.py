"""`serve`'s importer kept running: a follower that dies is started again, after a growing pause.

`serve` imports in a child process (`ingest --follow`) so that a crash there cannot take the web
server down; this is what notices the crash. Each unexpected exit is said on serve's terminal and
in the importer's heartbeat (importer/heartbeat.py), which every page reads for its banner: "the
importer stopped: <error>; restarting in N s". The pause grows with each exit in a row (a value
that kills every importer would otherwise restart it in a tight loop) and starts over once a
follower has run for `HEALTHY_SECS`.
"""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from collections.abc import Callable
from datetime import timedelta

from introspect.importer import heartbeat

BACKOFF_SECS = (1, 2, 5, 10, 30, 60)
HEALTHY_SECS = 300.0
STOP_TIMEOUT_SECS = 10
# Ctrl-C reaches the follower (same process group) as soon as serve: it may exit before serve has
# said it is stopping. An exit is only news once serve has not stopped within this.
EXIT_GRACE_SECS = 2.0


def exit_reason(code: int) -> str:
    """How a process ended, in words: its exit status, or the signal that killed it."""
    if code < 0:
        try:
            return f"its process was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"its process was killed by signal {-code}"
    return f"its process exited with status {code}"


class Supervisor:
    """Starts the follower with `start`, watches it from a thread, and starts it again when it exits
    while `serve` still runs; `stop` ends both (SIGTERM, then SIGKILL after STOP_TIMEOUT_SECS)."""

    def __init__(
        self,
        start: Callable[[], subprocess.Popen],
        *,
        notice: Callable[[str], None],
        backoff: tuple[float, ...] = BACKOFF_SECS,
        healthy_secs: float = HEALTHY_SECS,
        grace_secs: float = EXIT_GRACE_SECS,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.start_process = start
        self.notice = notice
        self.backoff = backoff
        self.healthy_secs = healthy_secs
        self.grace_secs = grace_secs
        self.clock = clock
        self.exits = 0  # unexpected exits in a row
        self.restarts = 0
        self.process: subprocess.Popen | None = None
        self.started_at = clock()
        self.stopping = threading.Event()
        self.lock = threading.Lock()  # a restart never races `stop`
        self.thread = threading.Thread(target=self.watch, name="importer-supervisor", daemon=True)

    def start(self) -> Supervisor:
        self.launch()
        self.thread.start()
        return self

    def launch(self) -> None:
        self.process = self.start_process()
        self.started_at = self.clock()

    def watch(self) -> None:
        while True:
            code = self.process.wait()
            if self.stopping.wait(self.grace_secs):
                return
            delay = self.next_delay()
            self.say_stopped(code, delay)
            if self.stopping.wait(delay):
                return
            with self.lock:
                if self.stopping.is_set():
                    return
                self.launch()
                self.restarts += 1

    def next_delay(self) -> float:
        """The pause before the next start: longer for each exit in a row, reset after a healthy run."""
        if self.clock() - self.started_at >= self.healthy_secs:
            self.exits = 0
        delay = self.backoff[min(self.exits, len(self.backoff) - 1)]
        self.exits += 1
        return delay

    def say_stopped(self, code: int, delay: float) -> None:
        """The importer's own last word (its heartbeat's error) when it left one, else how it ended;
        written to the heartbeat for the pages unless another importer is running (then it is theirs)."""
        reading = heartbeat.current()
        why = reading.error or exit_reason(code)
        if reading.state == heartbeat.STOPPED:
            heartbeat.restarting(why, heartbeat.now() + timedelta(seconds=delay))
        self.notice(f"The importer stopped: {why}; restarting it in {delay:g} s.")

    def stop(self, *, timeout: float = STOP_TIMEOUT_SECS, hurry: Callable[[], bool] = lambda: False) -> None:
        """Asks the follower to stop (SIGTERM: it ends its batch), kills it after `timeout` or as soon
        as `hurry()` says so (a second Ctrl-C), and ends the watching thread."""
        with self.lock:
            self.stopping.set()
            process = self.process
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            deadline = self.clock() + timeout
            while process.poll() is None:
                if self.clock() > deadline or hurry():
                    process.kill()
                    break
                time.sleep(0.05)
            process.wait()
        if self.thread.is_alive():
            self.thread.join(timeout=timeout)
