"""`ingest` keeps the importer's heartbeat: what the Import status page says about it."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import OperationalError, connections

from introspect.importer import heartbeat
from introspect.importer.lock import importer_lock
from tests.conftest import append, line
from tests.waysweb.management.test_ingest import Following
from waysweb import passes

pytestmark = pytest.mark.django_db

FIRST = line(ts="2026-11-02T10:12:00Z", event="session_start", session="s")


def test_a_single_pass_leaves_it_stopped_after_one_pass_without_an_error(home):
    append(home.live, FIRST)
    call_command("ingest", "--no-ways", stdout=StringIO())
    reading = heartbeat.current()
    assert (reading.state, reading.follow, reading.error) == ("stopped", False, "")
    assert reading.idle_since is not None  # the pass that found the line


def test_a_failed_pass_leaves_it_stopped_with_the_error(home, monkeypatch):
    append(home.live, FIRST)

    def failing(*args, **kwargs):
        raise OperationalError("disk I/O error")

    monkeypatch.setattr(passes, "sessions_pass", failing)
    with pytest.raises(CommandError):
        call_command("ingest", "--no-ways", stdout=StringIO(), stderr=StringIO())
    reading = heartbeat.current()
    assert reading.state == "stopped" and "disk I/O error" in reading.error


def test_following_it_is_idle_between_passes_and_stopped_once_asked_to_stop(home, monkeypatch):
    append(home.live, FIRST)
    seen = []

    def react(n: int) -> bool:
        if n == 2:
            seen.append(heartbeat.current())  # after the first pass, before the second one's beat
        return n == 2

    Following(monkeypatch, react).run("--poll", "--interval", "0.05")
    assert seen[0].state == "idle" and seen[0].follow and seen[0].idle_since is not None
    reading = heartbeat.current()
    assert (reading.state, reading.follow, reading.error) == ("stopped", True, "")


def test_a_second_importer_refused_leaves_the_first_ones_heartbeat_alone(home):
    beat = heartbeat.Heartbeat(follow=True)
    beat.after_pass(found=True)
    before = heartbeat.path().read_bytes()
    other = connections.create_connection("default")
    try:
        with importer_lock(other), pytest.raises(CommandError, match="Only one importer"):
            call_command("ingest", "--no-ways", stdout=StringIO())
    finally:
        other.close()
    assert heartbeat.path().read_bytes() == before
