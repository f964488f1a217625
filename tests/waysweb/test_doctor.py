"""`manage.py doctor` says what is wrong and how to fix it, and fails only on real problems."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from datetime import timedelta
from io import StringIO
from pathlib import Path

import orjson
import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from introspect import served_database
from introspect.importer import health, heartbeat
from introspect.models import DeferredIndex, Session
from tests.conftest import append, line
from waysweb import passes

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


class Restarted(Exception):
    """doctor would run again on the bundled sample's data and database (WAYSWEB_DEMO=1)."""


@pytest.fixture(autouse=True)
def restarts(monkeypatch, settings) -> None:
    """Never the real restart: it would replace the test run with `manage.py <pytest's arguments>`."""
    settings.WAYSWEB_DEMO = False

    def restart():
        raise Restarted

    monkeypatch.setattr(served_database, "restart_on_sample", restart)


def doctor() -> str:
    out = StringIO()
    call_command("doctor", stdout=out)
    return out.getvalue()


def test_an_imported_home_has_no_problems(home):
    append(home.live, line(ts="2026-11-29T10:00:00Z", event="session_start", session="s1"))
    call_command("ingest", stdout=StringIO())
    out = doctor()
    assert "every line of 1 files is imported" in out and "no quarantined lines" in out
    assert out.rstrip().endswith("No problems found, 1 warning(s).")  # no transcripts folder: a warning
    assert "WAYSWEB_CLAUDE_DIR" in out


def test_it_counts_what_the_importer_has_not_read_yet(home):
    append(home.live, line(ts="2026-11-29T10:00:00Z", event="session_start", session="s1"))
    call_command("ingest", stdout=StringIO())
    append(home.live, line(ts="2026-11-29T10:00:01Z", event="way_fired", way="a/b", session="s1"))
    append(home.archive("2026-11-28"), b"")
    out = doctor()
    assert "1 files never imported and 1 with new lines" in out
    assert "run `uv run manage.py ingest` once" in out


def test_quarantined_lines_are_reported_with_their_reasons(home):
    append(home.live, b'{"ts": "2026-11-29T10:00:00Z", "event": \n', b"\xff\xfe not utf-8\n")
    call_command("ingest", stdout=StringIO())
    out = doctor()
    assert "2 lines quarantined" in out and "/status/" in out


def test_a_missing_data_directory_fails_with_the_fix(home, settings):
    append(home.live, line(ts="2026-11-29T10:00:00Z", event="session_start", session="s1"))
    shutil.rmtree(settings.DATA_DIR)
    out = StringIO()
    with pytest.raises(CommandError, match="1 problem"):
        call_command("doctor", stdout=out)
    assert f"FAIL  permissions  the data directory {settings.DATA_DIR} does not exist" in out.getvalue()
    assert f"mkdir -p {settings.DATA_DIR}" in out.getvalue()


def test_sessions_imported_before_but_no_log_now_is_a_warning(home):
    Session.objects.create(sid="rotated-away")  # serve shows them: the user's database, not the sample
    out = doctor()
    assert "warn  sources      no agent-ways events log" in out and "install agent-ways" in out


def test_it_names_the_database_it_checks(home):
    append(home.live, line(ts="2026-11-29T10:00:00Z", event="session_start", session="s1"))
    out = doctor()
    assert out.startswith(
        f"Checking the database `serve` uses: your database {served_database.label(connection.settings_dict)}."
    )


def test_with_nothing_of_the_users_it_checks_the_sample_as_serve_would_show_it(home):
    out = StringIO()
    with pytest.raises(Restarted):
        call_command("doctor", stdout=out)
    assert "`serve` would show the bundled sample (no agent-ways events found under" in out.getvalue()
    assert "CLAUDE_CONFIG_DIR" in out.getvalue()


def test_with_demo_it_checks_the_sample(home):
    append(home.live, line(ts="2026-11-29T10:00:00Z", event="session_start", session="s1"))
    with pytest.raises(Restarted):
        call_command("doctor", "--demo", stdout=StringIO())


def test_on_the_sample_it_names_the_samples_database(home, settings):
    settings.WAYSWEB_DEMO = True
    append(home.live, line(ts="2026-11-29T10:00:00Z", event="session_start", session="s1"))
    out = doctor()
    where = served_database.label(connection.settings_dict)  # a file, or a URL on PostgreSQL
    assert f"the bundled sample's database {where}." in out.splitlines()[0]


def test_transcripts_without_events_are_what_serve_shows(home):
    home.transcript("/home/dev/app", "s1", {"type": "user", "message": {"role": "user", "content": "hi"}})
    out = doctor()
    assert (
        "ok    sources      no agent-ways events log" in out and "shows your Claude Code transcripts" in out
    )
    assert "bundled sample" not in out


def run_doctor(tmp_path: Path, url: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "WAYSWEB_DATA_DIR": str(tmp_path / "data"),
        "WAYSWEB_DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "waysweb.settings",
    }
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "doctor"],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_an_unmigrated_database_fails_and_says_to_migrate(tmp_path):
    done = run_doctor(tmp_path, f"sqlite:///{tmp_path / 'fresh.sqlite3'}")
    assert done.returncode == 1
    assert "migrations not applied" in done.stdout and "manage.py migrate" in done.stdout


def test_an_unreachable_postgresql_fails_with_how_to_fix_it(tmp_path):
    pytest.importorskip("psycopg")
    done = run_doctor(tmp_path, "postgres://nobody@127.0.0.1:1/none")
    assert done.returncode == 1
    assert "cannot connect to the postgresql database" in done.stdout and "start PostgreSQL" in done.stdout


def test_an_importer_that_stopped_is_a_problem_until_a_pass_completes(home):

    append(home.live, line(ts="2026-11-29T10:00:00Z", event="session_start", session="s1"))
    call_command("ingest", stdout=StringIO())
    health.record("the disk holding the database is full")
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("doctor", stdout=out)
    assert "FAIL  importer     the importer stopped: the disk holding the database is full" in out.getvalue()
    call_command("ingest", stdout=StringIO())
    assert "No problems found" in doctor()


def test_indexes_a_stopped_cold_load_left_out_are_a_warning_until_an_importer_builds_them(home):
    append(home.live, line(ts="2026-11-29T10:00:00Z", event="session_start", session="s1"))
    call_command("ingest", stdout=StringIO())
    DeferredIndex.objects.create(
        name="event_session_order", table="introspect_waysevent", sql="CREATE INDEX …"
    )
    out = doctor()
    assert "warn  indexes      1 of the events' indexes are left out (event_session_order)" in out
    assert "run `uv run manage.py ingest`" in out
    DeferredIndex.objects.all().delete()
    assert "indexes are left out" not in doctor()


def test_an_importer_that_crashed_is_a_problem_and_says_when_serve_restarts_it(home, monkeypatch):
    append(home.live, line(ts="2026-11-29T10:00:00Z", event="session_start", session="s1"))

    def crashing(*args, **kwargs):
        raise RuntimeError("a bug nobody caught")

    monkeypatch.setattr(passes, "sessions_pass", crashing)
    with pytest.raises(RuntimeError):
        call_command("ingest", stdout=StringIO(), stderr=StringIO())
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("doctor", stdout=out)
    assert "FAIL  importer     the importer stopped at " in out.getvalue()
    assert ": RuntimeError: a bug nobody caught" in out.getvalue()

    heartbeat.restarting("ignored: the importer's own error is kept", heartbeat.now() + timedelta(seconds=30))
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("doctor", stdout=out)
    assert "RuntimeError: a bug nobody caught; `serve` restarts it in 30 s" in out.getvalue()
    monkeypatch.undo()
    call_command("ingest", stdout=StringIO())
    assert "No problems found" in doctor()


def test_a_follower_gone_without_a_word_is_a_warning(home, settings):
    append(home.live, line(ts="2026-11-29T10:00:00Z", event="session_start", session="s1"))
    beat = heartbeat.Heartbeat(follow=True)
    beat.after_pass(found=True)
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    data = orjson.loads(heartbeat.path().read_bytes()) | {"pid": int(gone.stdout)}
    heartbeat.path().write_bytes(orjson.dumps(data))
    out = doctor()
    assert "warn  importer     the importer (ingest --follow) is gone at " in out
    assert "without saying why (killed? out of memory?)" in out


def test_a_pass_that_went_on_past_a_file_it_could_not_import_is_a_warning(home):
    append(home.live, line(ts="2026-11-29T10:00:00Z", event="session_start", session="s1"))
    heartbeat.Heartbeat(follow=False).after_pass(found=True, left="1 file could not be imported")
    out = doctor()
    assert "the importer's last pass went on past what it could not do: 1 file could not be imported" in out


def test_it_names_the_paths_the_importer_would_not_read(home, tmp_path):
    append(home.live, line(ts="2026-11-29T10:00:00Z", event="session_start", session="s1"))
    (tmp_path / "shadow").write_text("secret")
    home.legacy.parent.mkdir(parents=True)
    home.legacy.symlink_to(tmp_path / "shadow")
    call_command("ingest", stdout=StringIO(), stderr=StringIO())
    out = doctor()
    assert "1 paths under the imported roots were not read (skipped: leaves its root 1)" in out
    assert str(home.legacy) in out and "see Not read on /status/" in out


def test_it_says_which_secrets_mode_is_on(home, settings):
    append(home.live, line(ts="2026-11-29T10:00:00Z", event="session_start", session="s1"))
    call_command("ingest", stdout=StringIO())
    settings.WAYSWEB_SECRETS_MASKED_ONLY = True
    assert "team mode: lines are stored with secrets masked" in doctor()
    settings.WAYSWEB_SECRETS_MASKED_ONLY = False
    out = doctor()
    if connection.vendor == "sqlite":
        assert "ok    secrets      local mode: secrets are stored as read" in out
    else:  # a shared database holding what one machine read: said, with the fix
        assert "local mode on a shared database" in out and "WAYSWEB_SECRETS_MASKED_ONLY=1" in out
    settings.WAYSWEB_SECRET_SCAN = False
    assert "detection at import is off" in doctor()
