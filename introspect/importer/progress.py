"""How far the running import pass is, kept in a small file beside the database.

Files and bytes done of the total the pass has to read, its rate and the time left. The page
frame reads it on every request (the progress strip) and `ingest` draws it as a bar. A file, as
health.py keeps the last failure, rather than a row: a page reads it without a query, and writing
it never waits on the lock the batches hold. Only a pass that runs longer than `SHOW_AFTER_SECS`
writes it (a --follow poll that finds a few lines never does), at most every
`HEARTBEAT_EVERY_SECS`, and removes it when it ends; a file left behind by a killed importer is
ignored once its process is gone or it has not moved for `STALE_SECS`.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import orjson
from django.conf import settings

from introspect.importer import loader
from introspect.importer.discovery import Source
from lib import statefile

NAME = "import-progress.json"
SHOW_AFTER_SECS = 0.5
HEARTBEAT_EVERY_SECS = 0.5
STALE_SECS = 30
# The rate the time left is reckoned from is smoothed over about this long: files read at
# different speeds (a transcript, an events archive) and the pass derives what landed every few
# seconds, pausing its reading; the rate since the start lags a pass that slows down, and the
# rate of the last beat jumps with every pause.
RATE_SECS = 10.0
# No time left is said before the pass has read this long: the first beats are a poor measure.
ESTIMATE_AFTER_SECS = 2.0
# A pass that reads writes every HEARTBEAT_EVERY_SECS; silent this long, it is deriving the
# sessions that landed (waysweb/passes.py), and no time left is said until it reads again.
PAUSED_SECS = 3.0


@dataclass
class Snapshot:
    """One reading of the pass: what it has read and what it has left, for a page or a terminal."""

    files_done: int
    files_total: int
    bytes_done: int
    bytes_total: int
    started_at: datetime
    updated_at: datetime
    seconds: float  # since the pass started
    host: str = ""
    pid: int = 0
    finished: bool = False
    smoothed_rate: float = 0.0  # bytes a second, smoothed over RATE_SECS (Tracker.smooth); 0: none yet
    # Once every file is read: the sessions put together after the load (waysweb/passes.py), of how many.
    sessions_done: int = 0
    sessions_total: int = 0

    @property
    def deriving(self) -> bool:
        return self.sessions_total > 0

    @property
    def sessions_percent(self) -> int:
        return int(100 * self.sessions_done / self.sessions_total) if self.sessions_total else 100

    @property
    def fraction(self) -> float:
        return min(1.0, self.bytes_done / self.bytes_total) if self.bytes_total else 1.0

    @property
    def percent(self) -> int:
        return int(self.fraction * 100)

    @property
    def rate(self) -> float:
        """Bytes a second to reckon the time left with: the smoothed rate or the rate since the
        pass started, whichever is lower. A pass slows down more often than it speeds up (later
        files touch longer sessions, the machine gets busy): an estimate too long holds, one too
        short does not."""
        average = self.bytes_done / self.seconds if self.seconds > 0 else 0.0
        return min(self.smoothed_rate, average) if self.smoothed_rate > 0 else average

    @property
    def seconds_left(self) -> float | None:
        """At the rate, from when this was written; None before anything was read."""
        if not self.rate:
            return None
        return max(0.0, (self.bytes_total - self.bytes_done) / self.rate)

    @property
    def paused(self) -> bool:
        """Not read for PAUSED_SECS: deriving what landed."""
        return (datetime.now(UTC) - self.updated_at).total_seconds() > PAUSED_SECS

    @property
    def time_left(self) -> str:
        """What a page says ("about 25 s of reading left"), "" while it is too early to say or the
        pass is paused. In seconds under a minute: at 99 % of a ten-second pass, "about a minute"
        (minutes rounded up) was wrong. It says reading: the bytes are what it measures, and the
        sessions read last are put together after (the strip says so then)."""
        left = self.seconds_left
        if left is None or self.seconds < ESTIMATE_AFTER_SECS or self.paused:
            return ""
        left = max(0.0, left - (datetime.now(UTC) - self.updated_at).total_seconds())
        if left < 10:
            return "a few seconds of reading left"
        if left < 55:
            return f"about {5 * round(left / 5)} s of reading left"
        minutes = round(left / 60)
        if minutes <= 1:
            return "about a minute of reading left"
        if minutes < 120:
            return f"about {minutes} min of reading left"
        return f"about {round(left / 3600)} h of reading left"


@dataclass
class Planned:
    start: int  # where the pass resumes the file (its checkpoint)
    todo: int  # bytes past the checkpoint when the pass started


@dataclass
class Tracker:
    """Counts a pass's progress from the loader's callbacks and publishes it (file and `report`)."""

    plan: dict[tuple[str, str], Planned]
    report: Callable[[Snapshot], None] | None = None
    clock: Callable[[], float] = time.monotonic
    started: float = 0.0
    started_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    files_done: int = 0
    bytes_before: int = 0  # of the files finished
    bytes_current: int = 0  # of the file being read
    last_beat: float | None = None
    rate: float = 0.0  # smoothed (smooth); 0 until the first beat
    rate_at: float | None = None
    rate_bytes: int = 0

    @classmethod
    def planned(
        cls,
        found: list[Source],
        generations: dict[tuple[str, str], loader.Generation | None],
        *,
        ignore_checkpoints: bool = False,
        report: Callable[[Snapshot], None] | None = None,
        stats: dict[Source, os.stat_result | None] | None = None,
    ) -> Tracker:
        """What the pass has to read: each file's bytes past its checkpoint (a stat each, no read;
        `stats` when the pass took them already)."""
        plan = {}
        for source in found:
            if stats is not None:
                st = stats.get(source)
                if st is None:
                    continue
                size = st.st_size
            else:
                try:
                    size = os.stat(source.path, follow_symlinks=False).st_size
                except OSError:
                    continue
            row = generations.get((str(source.root), source.rel_path))
            start = 0 if row is None or ignore_checkpoints else row.offset
            # Shorter than its checkpoint: truncated, read again from 0 as a new generation.
            start = 0 if size < start else start
            if size > start:
                plan[(str(source.root), source.rel_path)] = Planned(start, size - start)
        tracker = cls(plan=plan, report=report)
        tracker.started = tracker.clock()
        return tracker

    @property
    def files_total(self) -> int:
        return len(self.plan)

    @property
    def bytes_total(self) -> int:
        return sum(p.todo for p in self.plan.values())

    def progress(self, file: loader.FileResult, offset: int, size: int) -> None:
        """The loader's per-batch callback: the file being read is at `offset`."""
        planned = self.plan.get((str(file.source.root), file.source.rel_path))
        if planned is None:
            return
        done = offset - planned.start if offset >= planned.start else offset
        self.bytes_current = max(0, min(planned.todo, done))
        self.beat()

    def also(
        self, other: Callable[[loader.FileResult, int, int], None] | None
    ) -> Callable[[loader.FileResult, int, int], None]:
        """The loader's per-batch callback counting here and calling `other` (the caller's) too."""

        def both(file: loader.FileResult, offset: int, size: int) -> None:
            self.progress(file, offset, size)
            if other is not None:
                other(file, offset, size)

        return both

    def file_done(self, file: loader.FileResult) -> None:
        planned = self.plan.get((str(file.source.root), file.source.rel_path))
        if planned is None:
            return
        self.files_done += 1
        self.bytes_before += planned.todo
        self.bytes_current = 0
        self.beat()

    def smooth(self, now: float, done: int) -> None:
        """Move the rate towards the one since the last beat, by how much time passed: an
        exponential average over about RATE_SECS, whatever the beats' spacing."""
        since = now - (self.started if self.rate_at is None else self.rate_at)
        if since <= 0:
            return
        latest = (done - self.rate_bytes) / since
        weight = 1.0 if self.rate_at is None else 1.0 - math.exp(-since / RATE_SECS)
        self.rate += weight * (latest - self.rate)
        self.rate_at, self.rate_bytes = now, done

    def snapshot(self, *, finished: bool = False) -> Snapshot:
        return Snapshot(
            files_done=self.files_done,
            files_total=self.files_total,
            bytes_done=min(self.bytes_total, self.bytes_before + self.bytes_current),
            bytes_total=self.bytes_total,
            started_at=self.started_at,
            updated_at=datetime.now(UTC),
            seconds=self.clock() - self.started,
            host=settings.WAYSWEB_HOST,
            pid=os.getpid(),
            finished=finished,
            smoothed_rate=self.rate,
        )

    def beat(self) -> None:
        now = self.clock()
        if now - self.started < SHOW_AFTER_SECS:
            return
        if self.last_beat is not None and now - self.last_beat < HEARTBEAT_EVERY_SECS:
            return
        self.last_beat = now
        self.smooth(now, min(self.bytes_total, self.bytes_before + self.bytes_current))
        snap = self.snapshot()
        write(snap)
        if self.report is not None:
            self.report(snap)

    def finish(self) -> None:
        """The pass read everything: the strip goes, and a bar that was shown is completed."""
        if self.last_beat is None:
            return
        clear()
        if self.report is not None:
            self.report(self.snapshot(finished=True))


@dataclass
class Deriving:
    """The sessions a long pass puts together after its load, published as the pass's reading was
    (the strip, the terminal bar): without it the strip went blank for the last third of a cold
    import of a million events while most sessions were still missing from the list."""

    read: Snapshot  # the pass's reading, finished
    report: Callable[[Snapshot], None] | None = None
    clock: Callable[[], float] = time.monotonic
    last_beat: float | None = None

    def chunk_done(self, done: int, total: int) -> None:
        now = self.clock()
        if self.last_beat is not None and now - self.last_beat < HEARTBEAT_EVERY_SECS and done < total:
            return
        self.last_beat = now
        snap = dataclasses.replace(
            self.read,
            updated_at=datetime.now(UTC),
            seconds=self.read.seconds + now - self.started,
            sessions_done=done,
            sessions_total=total,
        )
        write(snap)
        if self.report is not None:
            self.report(snap)

    def __post_init__(self) -> None:
        self.started = self.clock()

    def finish(self) -> None:
        if self.last_beat is not None:
            clear()


def path() -> Path:
    return Path(settings.DATA_DIR) / NAME


def write(snap: Snapshot) -> None:
    """Best effort, atomically (a page never reads half a file); a full disk only loses the strip."""
    data = asdict(snap)
    data.pop("finished")
    statefile.write(path(), data)


def clear() -> None:
    statefile.remove(path())


def current() -> Snapshot | None:
    """The running pass's progress, or None when no pass is running (or its importer is gone)."""
    try:
        data = orjson.loads(path().read_bytes())
        snap = Snapshot(
            **{
                **data,
                "started_at": datetime.fromisoformat(data["started_at"]),
                "updated_at": datetime.fromisoformat(data["updated_at"]),
            }
        )
    except (OSError, orjson.JSONDecodeError, TypeError, KeyError, ValueError):
        return None
    if (datetime.now(UTC) - snap.updated_at).total_seconds() > STALE_SECS:
        return None
    if snap.host == settings.WAYSWEB_HOST and not alive(snap.pid):
        return None
    return snap


def alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # there, only not ours to signal
    except (OverflowError, ValueError):
        return False
    return True
