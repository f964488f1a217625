"""The importer's heartbeat: running, idle since when, or stopped (and why), in a small file.

The status page says whether anything is importing at all — a follower that died an hour ago
looks, from the rows alone, exactly like one with nothing to read. A file beside the database, as
progress.py and health.py keep theirs: a page reads it without a query, and writing it never waits
on the lock the batches hold. A follower polls every half second; it writes when its state changes
(started, a pass failed or recovered, it stopped), after passes that found something at most every
`FOUND_EVERY_SECS`, and otherwise at most every `BEAT_EVERY_SECS`: an idle follower costs one small
write every quarter minute, a busy one one a second, never one per poll. A heartbeat another
host wrote is believed for `STALE_SECS`; one from this host as long as its process lives. `serve`
writes it too when its importer died (`restarting`: why, and when it starts another), and every
page's banner reads that.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import orjson
from django.conf import settings

from introspect.importer import health, progress
from lib import statefile

NAME = "importer-heartbeat.json"
BEAT_EVERY_SECS = 15.0
FOUND_EVERY_SECS = 1.0
# A follower makes a whole pass every 30 s (watch.WHOLE_PASS_SECS) and beats after it: four missed
# beats from another host mean it is gone.
STALE_SECS = 120.0

RUNNING = "running"
IDLE = "idle"
STOPPED = "stopped"


def now() -> datetime:
    return datetime.now(UTC)


@dataclass
class Heartbeat:
    """What the `ingest` loop tells the file: `started`, `after_pass` after each pass, `stopped`."""

    follow: bool
    clock: Callable[[], float] = time.monotonic
    started_at: datetime = field(default_factory=now)
    idle_since: datetime | None = None
    error: str = ""
    left: str = ""  # what the last pass could not import or derive, and where it is listed
    last_write: float | None = None
    done: bool = False

    def started(self) -> None:
        self.write(RUNNING)

    def after_pass(self, *, found: bool, error: str = "", left: str = "") -> None:
        """A pass ended. One that found work, failed, left files or sessions behind, or recovered is
        news at once; an idle one only keeps the heartbeat fresh, at most every BEAT_EVERY_SECS."""
        news = error != self.error or left != self.left or self.idle_since is None
        self.error, self.left = error, left
        if found or self.idle_since is None:
            self.idle_since = now()
        since = None if self.last_write is None else self.clock() - self.last_write
        # A session being written makes a pass every few tens of ms: its "idle since" goes out once a second.
        if news or since is None or since >= (FOUND_EVERY_SECS if found else BEAT_EVERY_SECS):
            self.write(IDLE)

    def stopped(self, error: str = "") -> None:
        """The loop ended, with the error that ended it if one did (only the first call counts)."""
        if self.done:
            return
        self.done = True
        self.error = error
        self.write(STOPPED)

    def write(self, state: str) -> None:
        self.last_write = self.clock()
        statefile.write(
            path(),
            {
                "state": state,
                "follow": self.follow,
                "host": settings.WAYSWEB_HOST,
                "pid": os.getpid(),
                "started_at": self.started_at.isoformat(),
                "idle_since": self.idle_since.isoformat() if self.idle_since else None,
                "beat_at": now().isoformat(),
                "error": self.error,
                "left": self.left,
            },
        )


def restarting(error: str, at: datetime) -> None:
    """`serve` found its importer dead: say why and when it starts another (the banner every page
    shows). The importer it starts writes its own heartbeat over this one."""
    try:
        data = orjson.loads(path().read_bytes())
    except (OSError, orjson.JSONDecodeError):
        data = None
    data = data if isinstance(data, dict) else {}
    statefile.write(
        path(),
        {
            **data,
            "state": STOPPED,
            "host": settings.WAYSWEB_HOST,
            "beat_at": now().isoformat(),
            "error": str(data.get("error") or "") or error,
            "restart_at": at.isoformat(),
        },
    )


@dataclass(frozen=True)
class Reading:
    """What a page says about the importer."""

    state: str  # running, idle, stopped, or "unknown" when no importer ever wrote a heartbeat
    host: str = ""
    follow: bool = False
    started_at: datetime | None = None
    idle_since: datetime | None = None
    beat_at: datetime | None = None
    error: str = ""
    left: str = ""
    progress: progress.Snapshot | None = None
    restart_at: datetime | None = None  # when `serve` starts the stopped importer again
    vanished: bool = False  # stopped without saying so: its process is gone (killed, or its host silent)

    @property
    def restart_in(self) -> int | None:
        """Seconds until `serve` restarts the stopped importer (0: any moment now); None if it will not."""
        if self.state != STOPPED or self.restart_at is None:
            return None
        return max(0, round((self.restart_at - now()).total_seconds()))


def path() -> Path:
    return Path(settings.DATA_DIR) / NAME


def stamp(value: object) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def current() -> Reading:
    """The importer's state now: a long pass under way is running whatever the file says; a
    heartbeat whose process is gone (or, from another host, silent too long) is stopped."""
    running = progress.current()
    try:
        data = orjson.loads(path().read_bytes())
    except (OSError, orjson.JSONDecodeError):
        data = None
    if not isinstance(data, dict):
        if running is not None:
            return Reading(state=RUNNING, host=running.host, progress=running)
        failure = health.last_failure()
        if failure is not None:
            return Reading(state=STOPPED, beat_at=failure["at"], error=failure["message"])
        return Reading(state="unknown")
    beat_at = stamp(data.get("beat_at"))
    host = str(data.get("host") or "")
    state = data.get("state") if data.get("state") in (RUNNING, IDLE, STOPPED) else STOPPED
    vanished = state != STOPPED and not alive(host, data.get("pid"), beat_at)
    if vanished:
        state = STOPPED
    if running is not None:
        state = RUNNING
    error = str(data.get("error") or "")
    if state == STOPPED and not error:
        failure = health.last_failure()  # a crash that ended the loop before it could say so
        error = failure["message"] if failure is not None else ""
    return Reading(
        state=state,
        host=host,
        follow=bool(data.get("follow")),
        started_at=stamp(data.get("started_at")),
        idle_since=stamp(data.get("idle_since")),
        beat_at=beat_at,
        error=error,
        left=str(data.get("left") or ""),
        progress=running,
        restart_at=stamp(data.get("restart_at")),
        vanished=vanished and running is None,
    )


def alive(host: str, pid: object, beat_at: datetime | None) -> bool:
    if host == settings.WAYSWEB_HOST:
        return isinstance(pid, int) and progress.alive(pid)
    return beat_at is not None and (now() - beat_at).total_seconds() <= STALE_SECS
