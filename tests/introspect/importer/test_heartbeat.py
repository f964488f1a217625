"""The importer's heartbeat: what `ingest` writes as it runs, and what a page reads back from it."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

import orjson

from introspect.importer import health, heartbeat, progress


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def written() -> dict:
    return orjson.loads(heartbeat.path().read_bytes())


def test_it_is_running_from_the_start_then_idle_since_the_last_pass_that_found_something():
    beat = heartbeat.Heartbeat(follow=True, clock=Clock())
    beat.started()
    assert heartbeat.current().state == "running"
    beat.after_pass(found=True)
    reading = heartbeat.current()
    assert reading.state == "idle" and reading.follow and reading.idle_since is not None
    assert reading.idle_since >= reading.started_at


def test_an_idle_follower_writes_at_most_every_beat_interval_not_on_every_poll():
    clock = Clock()
    beat = heartbeat.Heartbeat(follow=True, clock=clock)
    beat.started()
    beat.after_pass(found=True)
    first = heartbeat.path().read_bytes()
    for _ in range(20):  # twenty half-second polls that found nothing
        clock.now += 0.5
        beat.after_pass(found=False)
    assert heartbeat.path().read_bytes() == first
    clock.now += heartbeat.BEAT_EVERY_SECS
    beat.after_pass(found=False)
    assert written()["beat_at"] != orjson.loads(first)["beat_at"]
    assert written()["idle_since"] == orjson.loads(first)["idle_since"]  # still idle since the same pass


def test_a_failing_pass_is_written_at_once_and_cleared_by_the_next_good_one():
    clock = Clock()
    beat = heartbeat.Heartbeat(follow=True, clock=clock)
    beat.after_pass(found=True)
    clock.now += 0.5
    beat.after_pass(found=False, error="import pass failed (disk I/O error); retrying")
    assert heartbeat.current().error == "import pass failed (disk I/O error); retrying"
    clock.now += 0.5
    beat.after_pass(found=False)
    assert heartbeat.current().error == ""


def test_it_is_stopped_with_the_error_that_ended_it_and_only_the_first_stop_counts():
    beat = heartbeat.Heartbeat(follow=True)
    beat.started()
    beat.stopped("database is locked")
    beat.stopped()  # the command's `finally` after its `except`
    reading = heartbeat.current()
    assert (reading.state, reading.error) == ("stopped", "database is locked")


def test_a_heartbeat_whose_process_is_gone_reads_as_stopped_with_the_last_failure(settings):
    beat = heartbeat.Heartbeat(follow=True)
    beat.after_pass(found=True)
    data = written()
    heartbeat.path().write_bytes(orjson.dumps({**data, "pid": 2**22 + 12345}))  # no such process
    health.record("the importer was killed by the OOM killer")
    reading = heartbeat.current()
    assert (reading.state, reading.error) == ("stopped", "the importer was killed by the OOM killer")


def test_another_hosts_heartbeat_is_believed_until_it_is_stale():
    beat = heartbeat.Heartbeat(follow=True)
    beat.after_pass(found=True)
    data = {**written(), "host": "other-machine", "pid": 1}
    heartbeat.path().write_bytes(orjson.dumps(data))
    assert heartbeat.current().state == "idle"
    old = datetime.now(UTC) - timedelta(seconds=heartbeat.STALE_SECS + 1)
    heartbeat.path().write_bytes(orjson.dumps({**data, "beat_at": old.isoformat()}))
    assert heartbeat.current().state == "stopped"


def test_a_long_pass_under_way_is_running_whatever_the_heartbeat_said():
    beat = heartbeat.Heartbeat(follow=True)
    beat.after_pass(found=True)
    now = datetime.now(UTC)
    progress.write(progress.Snapshot(3, 10, 300, 1000, now, now, 2.0, pid=os.getpid()))
    reading = heartbeat.current()
    assert reading.state == "running" and reading.progress.files_done == 3


def test_without_a_heartbeat_it_is_unknown_or_stopped_by_the_last_failure():
    assert heartbeat.current().state == "unknown"
    health.record("no such table: introspect_sourcefile")
    assert heartbeat.current().state == "stopped"
    assert heartbeat.current().error == "no such table: introspect_sourcefile"


def test_an_unreadable_heartbeat_is_no_heartbeat():
    heartbeat.path().write_bytes(b"{torn")
    assert heartbeat.current().state == "unknown"


def test_a_busy_follower_writes_its_idle_since_at_most_once_a_second():
    clock = Clock()
    beat = heartbeat.Heartbeat(follow=True, clock=clock)
    beat.after_pass(found=True)
    first = written()
    for _ in range(9):  # passes 50 ms apart, each finding the session's newest lines
        clock.now += 0.05
        beat.after_pass(found=True)
    assert written() == first
    clock.now += heartbeat.FOUND_EVERY_SECS
    beat.after_pass(found=True)
    assert written()["idle_since"] > first["idle_since"]


def test_what_a_pass_went_on_past_is_written_at_once_and_cleared_by_a_pass_that_did_it_all():
    clock = Clock()
    beat = heartbeat.Heartbeat(follow=True, clock=clock)
    beat.after_pass(found=True)
    clock.now += 0.5
    beat.after_pass(found=False, left="1 file could not be imported")
    assert heartbeat.current().left == "1 file could not be imported"
    clock.now += 0.5
    beat.after_pass(found=False)
    assert heartbeat.current().left == ""


def test_serve_restarting_keeps_the_importers_own_error_and_says_when(settings):
    beat = heartbeat.Heartbeat(follow=True)
    beat.started()
    beat.stopped("OverflowError: date value out of range")
    heartbeat.restarting("its process exited with status 1", heartbeat.now() + timedelta(seconds=10))
    reading = heartbeat.current()
    assert (reading.state, reading.error) == ("stopped", "OverflowError: date value out of range")
    assert reading.restart_in in (9, 10)
    heartbeat.Heartbeat(follow=True).started()  # the importer it started writes over it
    assert (heartbeat.current().state, heartbeat.current().restart_in) == ("running", None)


def test_serve_restarting_an_importer_that_died_without_a_word_says_how_it_ended(settings):
    heartbeat.restarting("its process was killed by SIGKILL", heartbeat.now() - timedelta(seconds=5))
    reading = heartbeat.current()
    assert (reading.error, reading.restart_in) == ("its process was killed by SIGKILL", 0)
