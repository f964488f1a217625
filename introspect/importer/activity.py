"""Whether an import is under way right now, and how far: what the pages say from the first second.

Once the importer runs, its files say it (heartbeat.py: running its first pass; progress.py: how
far a long pass has read). Before that, for the seconds the importer `serve` starts needs to load
Python and Django and take the lock, only `serve` knows: it answers the pages from the process
that started it, and records it here (`launched`). Without that, a page opened the moment the
terminal says "serving" saw no importer at all and told the user to start one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from introspect.importer import heartbeat, progress

STARTING = "starting"  # serve started the importer; it has not said anything yet
READING = "reading"  # a long pass is reading files: progress.Snapshot says how far
IMPORTING = "importing"  # the first pass, before its reading is measured or while it derives


class Process(Protocol):
    pid: int

    def poll(self) -> int | None: ...


@dataclass(frozen=True)
class Launch:
    process: Process
    at: datetime


# This process only: set by `serve` when it starts the importer, read by the pages it serves.
launch: Launch | None = None


def launched(process: Process) -> None:
    """`serve` started the importer `process` (a subprocess.Popen) in this process, now."""
    global launch
    launch = Launch(process, datetime.now(UTC))


@dataclass(frozen=True)
class Activity:
    phase: str  # STARTING, READING or IMPORTING
    progress: progress.Snapshot | None = None


def current() -> Activity | None:
    """The import under way, or None when nothing is importing (idle, stopped, never started)."""
    return of(heartbeat.current())


def of(reading: heartbeat.Reading) -> Activity | None:
    """The import under way by this heartbeat reading (and what this process started)."""
    if reading.progress is not None:
        return Activity(READING, reading.progress)
    if reading.state == heartbeat.RUNNING:
        return Activity(IMPORTING)
    if starting(reading):
        return Activity(STARTING)
    return None


def starting(reading: heartbeat.Reading) -> bool:
    """The importer this process started lives and has written no heartbeat of its own yet (the
    file may still hold the last run's)."""
    if launch is None or launch.process.poll() is not None:  # poll(): a dead child is not alive
        return False
    return reading.started_at is None or reading.started_at < launch.at
