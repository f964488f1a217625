"""The session's own rules: "live" is written in the last minutes of the real clock, nothing else."""

from __future__ import annotations

import os
import shutil
import time
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from introspect.models import Session
from lib import locations
from tests.conftest import append, line

pytestmark = pytest.mark.django_db


def stamp(ago: timedelta, *, ms: bool = False) -> str:
    at = timezone.now() - ago
    return at.strftime("%Y-%m-%dT%H:%M:%S.000Z" if ms else "%Y-%m-%dT%H:%M:%SZ")


def said(sid: str, ago: timedelta, text: str, *, uuid: str, kind: str = "user") -> dict:
    return {
        "type": kind,
        "uuid": uuid,
        "sessionId": sid,
        "timestamp": stamp(ago, ms=True),
        "cwd": "/home/dev/app",
        "message": {"role": kind, "content": text}
        | ({"id": f"m-{uuid}", "model": "claude-sonnet-4-6"} if kind == "assistant" else {}),
    }


def ingest() -> None:
    call_command("ingest", stdout=StringIO())


def listed_live() -> list[str]:
    return sorted(Session.objects.filter(Session.live_filter()).values_list("sid", flat=True))


def test_the_sample_is_never_live_though_its_files_were_written_a_moment_ago(tmp_path, settings, client):
    # A fresh clone (or copy) of the sample dates every file now; its lines are weeks old.
    home = tmp_path / "home"
    shutil.copytree(locations.SAMPLE_HOME, home, symlinks=True)
    now = time.time()
    for path in home.rglob("*"):
        if path.is_file() and not path.is_symlink():
            os.utime(path, (now, now))
    settings.WAYSWEB_LOCATIONS = locations.resolve({"HOME": str(home)})
    ingest()
    assert Session.objects.count() > 5
    assert [s.sid for s in Session.objects.select_related("transcript") if s.is_live] == []
    assert listed_live() == []
    page = client.get("/").content.decode()
    assert "badge--live" not in page
    assert list(client.get("/", {"live": "1"}).context["page"]) == []


def test_a_claude_code_session_is_live_by_its_newest_line_not_its_files_mtime(home, client):
    home.transcript("/home/dev/app", "now-1", said("now-1", timedelta(minutes=1), "tidy up", uuid="a"))
    old = home.transcript("/home/dev/app", "old-1", said("old-1", timedelta(days=20), "tidy up", uuid="b"))
    os.utime(old, None)  # touched now: a restored backup, a copy without -p
    ingest()
    assert listed_live() == ["now-1"]
    assert Session.objects.get(sid="now-1").is_live and not Session.objects.get(sid="old-1").is_live
    assert [s.sid for s in client.get("/", {"live": "1"}).context["page"]] == ["now-1"]


def test_an_agent_ways_session_stays_live_while_its_conversation_goes_on_after_its_last_event(home):
    sid = "aw-1"
    append(
        home.live,
        line(ts=stamp(timedelta(minutes=40)), event="session_start", project="/home/dev/app", session=sid),
        line(ts=stamp(timedelta(minutes=39)), event="way_fired", way="d/a", trigger="bash", session=sid),
    )
    home.transcript("/home/dev/app", sid, said(sid, timedelta(minutes=39), "first", uuid="p1"))
    ingest()
    assert not Session.objects.get(sid=sid).is_live  # rebuilt whole: nothing written for 39 minutes
    home.transcript(
        "/home/dev/app", sid, said(sid, timedelta(seconds=5), "still on it", uuid="a1", kind="assistant")
    )
    ingest()  # the appended line extends the session
    assert Session.objects.get(sid=sid).is_live
    assert listed_live() == [sid]


def test_a_line_dated_ahead_of_the_clock_is_not_writing_now(home):
    home.transcript("/home/dev/app", "ahead", said("ahead", -timedelta(days=3), "from the future", uuid="f"))
    ingest()
    assert not Session.objects.get(sid="ahead").is_live
    assert listed_live() == []
