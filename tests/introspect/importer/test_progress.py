"""The import pass's progress: what it has to read, how far it is, and the file pages read."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

import orjson

from introspect.importer import loader, progress
from introspect.importer.sources import Source


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_it_counts_the_bytes_past_each_checkpoint_and_publishes_them(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_bytes(b"x" * 1000)
    b.write_bytes(b"y" * 3000)
    sa, sb = (
        Source("transcript", tmp_path, "a.jsonl", 0, "a"),
        Source("transcript", tmp_path, "b.jsonl", 0, "b"),
    )
    seen: list[progress.Snapshot] = []
    tracker = progress.Tracker.planned([sa, sb], {}, report=seen.append)
    tracker.clock = clock = Clock()
    tracker.started = clock.now
    assert (tracker.files_total, tracker.bytes_total) == (2, 4000)
    tracker.progress(loader.FileResult(sa), 500, 1000)
    assert seen == [] and not progress.path().exists()  # a short pass shows nothing
    clock.now += 1
    tracker.progress(loader.FileResult(sa), 1000, 1000)
    tracker.file_done(loader.FileResult(sa))  # within the heartbeat interval: not written again
    [snap] = seen
    assert (snap.files_done, snap.bytes_done, snap.bytes_total, snap.percent) == (0, 1000, 4000, 25)
    assert snap.rate == 1000 and snap.seconds_left == 3 and snap.minutes_left == 1
    assert progress.current().bytes_done == 1000
    clock.now += 1
    tracker.progress(loader.FileResult(sb), 1500, 3000)
    assert (seen[-1].files_done, seen[-1].bytes_done) == (1, 2500)
    tracker.finish()
    assert seen[-1].finished and progress.current() is None and not progress.path().exists()


def test_it_ignores_a_heartbeat_left_by_an_importer_that_is_gone(settings):
    now = datetime.now(UTC)
    snap = progress.Snapshot(1, 2, 10, 20, now, now, 1.0, host=settings.WAYSWEB_HOST, pid=os.getpid())
    progress.write(snap)
    assert progress.current() is not None
    data = orjson.loads(progress.path().read_bytes())
    progress.path().write_bytes(
        orjson.dumps({**data, "updated_at": (now - timedelta(minutes=5)).isoformat()})
    )
    assert progress.current() is None  # it stopped moving
    progress.path().write_bytes(
        orjson.dumps({**data, "pid": 2**22 + 12345})
    )  # above pid_max: no such process
    assert progress.current() is None
    progress.path().write_bytes(b"{half a fi")
    assert progress.current() is None
