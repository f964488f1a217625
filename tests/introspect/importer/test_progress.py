"""The import pass's progress: what it has to read, how far it is, and the file pages read."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

import orjson
import pytest

from introspect.importer import loader, progress
from introspect.importer.discovery import Source


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
    assert snap.rate == 1000 and snap.seconds_left == 3
    assert snap.time_left == ""  # one second in: too early to say
    assert progress.current().bytes_done == 1000
    clock.now += 1
    tracker.progress(loader.FileResult(sb), 1500, 3000)
    assert (seen[-1].files_done, seen[-1].bytes_done) == (1, 2500)
    tracker.finish()
    assert seen[-1].finished and progress.current() is None and not progress.path().exists()


def test_the_sessions_put_together_after_the_load_are_published_and_cleared_at_the_end(settings):
    now = datetime.now(UTC)
    read = progress.Snapshot(3, 3, 4000, 4000, now, now, 5.0, host=settings.WAYSWEB_HOST, pid=os.getpid())
    seen: list[progress.Snapshot] = []
    deriving = progress.Deriving(read, report=seen.append, clock=(clock := Clock()))
    deriving.chunk_done(100, 350)
    clock.now += 0.1
    deriving.chunk_done(200, 350)  # within the heartbeat interval: not written again
    assert [(s.sessions_done, s.sessions_total) for s in seen] == [(100, 350)]
    assert progress.current().deriving and progress.current().sessions_percent == 28
    assert progress.current().bytes_done == 4000  # the reading stays said: every byte read
    clock.now += 1
    deriving.chunk_done(350, 350)
    assert seen[-1].sessions_done == 350 and seen[-1].seconds == pytest.approx(6.1)
    deriving.finish()
    assert progress.current() is None and not progress.path().exists()


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


def snapshot(
    done: int, total: int, seconds: float, rate: float = 0.0, *, written_ago: float = 0.0
) -> progress.Snapshot:
    now = datetime.now(UTC)
    written = now - timedelta(seconds=written_ago)
    return progress.Snapshot(1, 2, done, total, now, written, seconds, smoothed_rate=rate)


def test_it_says_the_time_left_in_seconds_under_a_minute_and_never_a_minute_at_the_end():
    mb = 1 << 20
    assert (
        snapshot(99 * mb, 100 * mb, 9.0).time_left == "a few seconds of reading left"
    )  # 99 % of a 10 s pass
    assert snapshot(50 * mb, 100 * mb, 20.0).time_left == "about 20 s of reading left"
    assert snapshot(10 * mb, 110 * mb, 10.0).time_left == "about 2 min of reading left"
    assert snapshot(40 * mb, 100 * mb, 40.0).time_left == "about a minute of reading left"
    assert snapshot(10 * mb, 1000 * mb, 60.0).time_left == "about 99 min of reading left"
    assert snapshot(1 * mb, 1000 * mb, 30.0).time_left == "about 8 h of reading left"
    assert snapshot(1 * mb, 100 * mb, 1.0).time_left == ""  # too early to say
    assert snapshot(0, 100 * mb, 5.0).time_left == ""  # nothing read yet


def test_the_time_left_follows_the_recent_rate_not_the_average_since_the_start():
    mb = 1 << 20
    # 50 MB in the first 10 s, then 1 MB/s for the last 20 s: 40 MB to go, 40 s at the recent
    # rate; the average since the start would say 15.
    assert snapshot(70 * mb, 110 * mb, 30.0).time_left == "about 15 s of reading left"
    assert snapshot(70 * mb, 110 * mb, 30.0, rate=1 * mb).time_left == "about 40 s of reading left"
    # A recent burst does not make it promise more than the pass has shown it can do.
    assert snapshot(70 * mb, 110 * mb, 30.0, rate=20 * mb).time_left == "about 15 s of reading left"


def test_it_counts_down_from_when_it_was_written_and_says_nothing_while_the_pass_derives():
    mb = 1 << 20
    assert (
        snapshot(50 * mb, 100 * mb, 25.0, rate=2 * mb, written_ago=1.0).time_left
        == "about 25 s of reading left"
    )
    paused = snapshot(50 * mb, 100 * mb, 25.0, rate=2 * mb, written_ago=progress.PAUSED_SECS + 1)
    assert paused.paused and paused.time_left == ""


def test_its_rate_is_smoothed_over_the_beats_and_holds_through_a_pause():
    tracker = progress.Tracker(plan={}, clock=Clock())
    tracker.started = 100.0
    mb = 1 << 20
    tracker.smooth(101.0, 4 * mb)  # the first beat: the rate so far
    assert tracker.rate == 4 * mb
    for second in range(2, 21):  # steady at 2 MB/s
        tracker.smooth(100.0 + second, 4 * mb + (second - 1) * 2 * mb)
    assert abs(tracker.rate - 2 * mb) < 0.3 * mb
    steady = tracker.rate
    tracker.smooth(122.0, tracker.rate_bytes)  # two seconds deriving, nothing read
    assert 0.7 * steady < tracker.rate < steady  # it dips, it does not drop to nothing
    tracker.smooth(122.5, tracker.rate_bytes + mb)
    assert tracker.rate > 0.7 * steady
