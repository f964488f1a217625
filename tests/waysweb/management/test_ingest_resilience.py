"""`ingest` goes on past any one bad value: a stamp in the calendar's first or last year, a long line
of `}{`, a file or a session whose import raises. Each is listed with why; every other line lands."""

from __future__ import annotations

from io import StringIO

import orjson
import pytest
from django.conf import settings
from django.core.management import call_command

from introspect.derive import rebuild, sessions
from introspect.importer import heartbeat, parser, underived
from introspect.importer.run import Options
from introspect.models import ImportRun, Quarantine, Session, SourceProblem, Turn, WaysEvent
from lib import safefs
from tests.conftest import append, line
from tests.waysweb.management.test_ingest import Following
from waysweb import passes

pytestmark = pytest.mark.django_db

LAST, FIRST = "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z"


def ingest(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("ingest", "--no-ways", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def fired(ts: str, session: str, way: str = "d/a") -> bytes:
    return line(ts=ts, event="way_fired", way=way, trigger="keyword", session=session)


def prompt_lines(session: str, ts: str) -> list[dict]:
    """A prompt and its UserPromptSubmit injection, as Claude Code writes them."""
    base = {"sessionId": session, "timestamp": ts, "version": "2.1.180", "cwd": "/p"}
    return [
        {
            **base,
            "type": "user",
            "uuid": f"{session}-u",
            "parentUuid": None,
            "message": {"role": "user", "content": "hi"},
        },
        {
            **base,
            "type": "attachment",
            "uuid": f"{session}-i",
            "parentUuid": f"{session}-u",
            "attachment": {
                "type": "hook_additional_context",
                "hookEvent": "UserPromptSubmit",
                "content": ["x"],
            },
        },
    ]


def test_events_stamped_in_the_year_9999_or_0001_and_a_512_kib_splice_do_not_stop_a_pass(home, client):
    for sid, ts in (("last", LAST), ("first", FIRST)):
        home.transcript("/p", sid, *prompt_lines(sid, ts))
        append(home.live, line(ts=ts, event="session_start", project="/p", session=sid), fired(ts, sid))
        append(home.live, line(ts=ts, event="way_judged", way="d/a", verdict="pass", p_yes=0.9, session=sid))
    torn = b'{"ts":"2026-11-02T10:00:00Z","event":"way_fired","surface":"' + b"}{" * (256 << 10)
    recovered = fired("2026-11-02T10:00:01Z", "now").rstrip(b"\n")
    append(home.live, torn + recovered + b"\n", fired("2026-11-02T10:00:02Z", "now", "d/b"))

    out, _ = ingest()
    assert "Imported 3 files" in out
    turns = dict(Turn.objects.values_list("session__sid", "join_reason"))
    assert turns["last"] == turns["first"] == "timestamp out of range (year 1 or 9999)"
    assert not Turn.objects.filter(session__sid__in=["last", "first"], join_confidence="keyed").exists()
    assert set(WaysEvent.objects.filter(session_key="now").values_list("way", flat=True)) == {"d/a", "d/b"}
    assert Quarantine.objects.get().reason == "splice_prefix"
    assert all(
        "ts_out_of_range" in flags
        for flags in WaysEvent.objects.exclude(session_key="now").values_list("flags", flat=True)
    )

    # Later runs start from a catch-up over the same sessions: they complete, and later lines land.
    ingest()
    append(home.live, fired("2026-11-02T10:05:00Z", "now", "d/c"))
    out, _ = ingest()
    assert "1 lines, 1 imported" in out
    assert Session.objects.get(sid="now").way_fires == 3
    for sid in ("last", "first", "now"):
        assert client.get(f"/sessions/{sid}/").status_code == 200
    assert (
        "heuristic: timestamp out of range (year 1 or 9999)" in client.get("/sessions/last/").content.decode()
    )


def test_a_file_whose_import_raises_is_listed_and_every_other_file_is_imported(home, monkeypatch, client):
    append(home.live, fired("2026-11-02T10:00:00Z", "good"))
    poisoned = home.transcript("/p", "bad", *prompt_lines("bad", "2026-11-02T10:00:00.000Z"))
    real = parser.parse_line

    def parse_line(data: bytes) -> parser.Parsed:
        if b'"sessionId":"bad"' in data and b'"type":"attachment"' in data:
            raise ValueError("a value no parser expected")
        return real(data)

    monkeypatch.setattr(parser, "parse_line", parse_line)
    out, err = ingest()
    assert "Imported 2 files" in out
    assert f"transcript {poisoned}: stopped: the import failed (ValueError: a value no parser expected" in err
    assert "1 file could not be imported" in err
    assert Session.objects.get(sid="good").way_fires == 1
    problem = SourceProblem.objects.get()
    assert (problem.area, problem.path, problem.reason) == (
        "transcripts",
        str(poisoned),
        safefs.IMPORT_FAILED,
    )
    assert problem.detail == (
        "ValueError: a value no parser expected; nothing of it is imported yet, it is read again on every pass"
    )
    assert "could not be imported" in ImportRun.objects.latest("pk").error
    page = client.get("/status/").content.decode()
    assert "stopped: the import failed" in page and str(poisoned) in page

    # It stays listed while it fails, the other files going on; once it imports, the listing goes.
    append(home.live, fired("2026-11-02T10:01:00Z", "good", "d/b"))
    ingest()
    assert Session.objects.get(sid="good").way_fires == 2 and SourceProblem.objects.count() == 1
    monkeypatch.undo()
    ingest()
    assert not SourceProblem.objects.exists()
    assert Session.objects.get(sid="bad").transcript_id is not None


def test_a_follower_names_a_failing_file_once_and_keeps_importing_the_others(home, monkeypatch):
    append(home.live, fired("2026-11-02T10:00:00Z", "good"))
    home.transcript("/p", "bad", *prompt_lines("bad", "2026-11-02T10:00:00.000Z"))
    real = parser.parse_line

    def parse_line(data: bytes) -> parser.Parsed:
        if b'"sessionId":"bad"' in data:
            raise ValueError("a value no parser expected")
        return real(data)

    def react(n: int) -> bool:
        if n == 2:
            append(home.live, fired("2026-11-02T10:01:00Z", "good", "d/b"))
        return n == 4

    monkeypatch.setattr(parser, "parse_line", parse_line)
    _, err = Following(monkeypatch, react).run("--poll", "--interval", "0.05")
    assert err.count("stopped: the import failed (ValueError: a value no parser expected") == 1
    assert Session.objects.get(sid="good").way_fires == 2


def test_a_session_whose_derivation_raises_is_listed_and_every_other_session_is_derived(
    home, monkeypatch, client
):
    append(home.live, fired("2026-11-02T10:00:00Z", "good"), fired("2026-11-02T10:00:00Z", "bad"))
    real = rebuild.plan

    def plan(session, *args, **kwargs):
        if session.sid == "bad":
            raise OverflowError("date value out of range")
        return real(session, *args, **kwargs)

    monkeypatch.setattr(rebuild, "plan", plan)
    _, err = ingest()
    assert "session bad could not be derived (OverflowError: date value out of range)" in err
    assert Session.objects.get(sid="good").turn_count == 1
    assert Session.objects.get(sid="bad").turn_count == 0
    problem = SourceProblem.objects.get()
    assert (problem.area, problem.path, problem.label) == (
        "sessions",
        "session bad",
        "not derived: the rebuild failed",
    )
    assert heartbeat.current().left == "1 session could not be derived"
    assert (
        "1 session not derived</a>" in client.get("/").content.decode()
    )  # the header, not "1 file not read"

    _, err = ingest()  # the next run's catch-up tries it again, and says so again
    assert "session bad could not be derived" in err
    monkeypatch.undo()
    ingest()
    assert Session.objects.get(sid="bad").turn_count == 1
    assert not SourceProblem.objects.exists()
    assert heartbeat.current().left == ""


def test_a_session_a_follower_could_not_derive_is_derived_at_the_next_start_after_later_passes(
    home, monkeypatch
):
    """The start derives only the sessions of files marked as holding rows not derived yet
    (importer/underived.py): a later pass that derived all it read must not clear the mark of a
    file whose session failed before it."""
    append(home.live, fired("2026-11-02T10:00:00Z", "bad"))
    ingest()
    assert Session.objects.get(sid="bad").way_fires == 1
    real = sessions.bring_up_to_date

    def bring_up_to_date(chunk):
        if any(session.sid == "bad" for session in chunk):
            raise OverflowError("date value out of range")
        return real(chunk)

    monkeypatch.setattr(sessions, "bring_up_to_date", bring_up_to_date)
    locs, options = settings.WAYSWEB_LOCATIONS, Options(ways=False)
    append(home.live, fired("2026-11-02T10:01:00Z", "bad", "d/b"))
    assert set(passes.sessions_pass(locs, options).underived) == {"bad"}
    home.transcript("/p", "good", *prompt_lines("good", "2026-11-02T10:02:00.000Z"))  # another file
    assert passes.sessions_pass(locs, options).underived == {}
    assert Session.objects.get(sid="good").message_count == 1
    monkeypatch.undo()
    out, _ = ingest()  # a new command: nothing changed on disk, its start derives what was left
    assert "0 lines" in out
    assert Session.objects.get(sid="bad").way_fires == 2
    assert underived.marked() == set()  # and the start after it reads no row


def test_a_ledger_pass_that_raises_is_reported_and_the_sessions_are_imported(home, monkeypatch):
    append(home.live, fired("2026-11-02T10:00:00Z", "good"))

    def failing(locs, **kwargs):
        raise KeyError("front matter")

    monkeypatch.setattr("waysweb.passes.ledger_pass", failing)
    seen = []

    def react(n: int) -> bool:
        seen.append(heartbeat.current())  # the heartbeat the pass before wrote
        return n == 2

    _, err = Following(monkeypatch, react).run("--poll", "--interval", "0.05")
    assert "the ledger pass failed (KeyError: 'front matter'); it is tried again on the next pass" in err
    assert Session.objects.get(sid="good").way_fires == 1
    assert seen[1].state == "idle" and "the ledger pass failed (KeyError" in seen[1].error


def test_a_line_of_quotes_and_braces_past_the_recovery_cap_is_quarantined_with_its_reason(home, monkeypatch):
    monkeypatch.setattr(parser, "RECOVER_TOKENS", 1000)
    long = b'{"ts":"' + b'"{"' * 2000 + orjson.dumps({"ts": "2026-11-02T10:00:00Z", "event": "x"})
    append(home.live, long + b"\n", fired("2026-11-02T10:00:01Z", "good"))
    ingest()
    assert Quarantine.objects.get().reason == "too_long_to_recover"
    assert Session.objects.get(sid="good").way_fires == 1
