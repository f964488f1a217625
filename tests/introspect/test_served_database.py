"""Which database `serve` uses: the user's, or the bundled sample's when asked or when nothing is the user's."""

from __future__ import annotations

import pytest

from introspect import served_database
from introspect.models import Session


def test_the_sample_is_shown_only_when_nothing_of_the_users_exists():
    assert served_database.should_use_sample(has_files=False, has_rows=False)
    assert not served_database.should_use_sample(has_files=True, has_rows=False)
    assert not served_database.should_use_sample(has_files=False, has_rows=True)  # rotated away, kept here


@pytest.mark.django_db
def test_an_empty_home_with_no_sessions_means_the_sample_and_says_where_it_looked(home, settings):
    settings.WAYSWEB_DEMO = False
    why = served_database.why_the_sample(False, settings.WAYSWEB_LOCATIONS)
    assert why is not None
    assert str(home.state) in why and str(home.root / ".claude" / "projects") in why


@pytest.mark.django_db
def test_the_users_transcripts_or_imported_sessions_mean_their_own_database(home, settings):
    settings.WAYSWEB_DEMO = False
    home.transcript("/home/dev/app", "s1", {"type": "user", "message": {"role": "user", "content": "hi"}})
    assert served_database.why_the_sample(False, settings.WAYSWEB_LOCATIONS) is None
    for transcript in (home.root / ".claude" / "projects").rglob("*.jsonl"):
        transcript.unlink()
    Session.objects.create(sid="kept")
    assert served_database.why_the_sample(False, settings.WAYSWEB_LOCATIONS) is None


@pytest.mark.django_db
def test_demo_asks_for_the_sample_unless_this_process_is_on_it_already(home, settings):
    home.transcript("/home/dev/app", "s1", {"type": "user", "message": {"role": "user", "content": "hi"}})
    settings.WAYSWEB_DEMO = False
    assert served_database.why_the_sample(True, settings.WAYSWEB_LOCATIONS) == "--demo given"
    settings.WAYSWEB_DEMO = True
    assert served_database.why_the_sample(True, settings.WAYSWEB_LOCATIONS) is None


def test_a_restart_runs_the_same_command_on_the_sample_without_demo(monkeypatch):
    started = []
    monkeypatch.setattr(served_database.sys, "argv", ["manage.py", "adduser", "ann", "--demo", "--reviewer"])
    monkeypatch.setattr(served_database.os, "execve", lambda exe, args, env: started.append((args, env)))
    served_database.restart_on_sample()
    [(args, env)] = started
    assert args[1].endswith("manage.py") and args[2:] == ["adduser", "ann", "--reviewer"]
    assert env["WAYSWEB_DEMO"] == "1"


def test_a_database_is_named_by_its_file_or_its_url_without_the_password():
    sqlite = {"ENGINE": "django.db.backends.sqlite3", "NAME": "/data/waysweb/demo.sqlite3"}
    assert served_database.label(sqlite) == "/data/waysweb/demo.sqlite3"
    postgres = {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "waysweb",
        "USER": "team",
        "PASSWORD": "s3cret",
        "HOST": "db.lan",
        "PORT": 5432,
    }
    assert served_database.label(postgres) == "postgresql://team@db.lan:5432/waysweb"
