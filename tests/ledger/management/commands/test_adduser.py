"""`manage.py adduser`: accounts from the command line, with or without the reviewer role."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from introspect import served_database
from ledger.management.commands import adduser

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[4]


def test_it_creates_users_from_the_command_line(monkeypatch, settings):
    settings.WAYSWEB_DEMO = True  # the sample's database: nothing to decide
    monkeypatch.setenv("NEW_PASSWORD", "correct horse battery")
    out = StringIO()
    call_command("adduser", "ann", "--reviewer", "--password-env", "NEW_PASSWORD", stdout=out)
    user = get_user_model().objects.get(username="ann")
    assert user.check_password("correct horse battery") and user.has_perm("ledger.review_knowledge")
    assert "Created ann (reviewer)" in out.getvalue()


class Restarted(Exception):
    """The command would run again on the bundled sample's database (WAYSWEB_DEMO=1)."""


@pytest.fixture(autouse=True)
def restarts(monkeypatch) -> None:
    """Never the real restart: it would replace the test run with `manage.py <pytest's arguments>`."""

    def restart():
        raise Restarted

    monkeypatch.setattr(served_database, "restart_on_sample", restart)


def add(*args: str) -> str:
    out = StringIO()
    call_command("adduser", *args, "--password-env", "NEW_PASSWORD", stdout=out)
    return out.getvalue()


@pytest.fixture(autouse=True)
def password(monkeypatch):
    monkeypatch.setenv("NEW_PASSWORD", "correct horse battery")


def test_it_says_it_made_the_account_in_your_database_when_serve_shows_your_data(home, settings, restarts):
    settings.WAYSWEB_DEMO = False
    home.transcript("/home/dev/app", "s1", {"type": "user", "message": {"role": "user", "content": "hi"}})
    out = add("bea")
    assert f"Created bea (viewer) in your database {served_database.label(connection.settings_dict)}." in out
    assert get_user_model().objects.filter(username="bea").exists()


def test_with_demo_it_moves_to_the_samples_database_before_asking_anything(home, settings, restarts):
    settings.WAYSWEB_DEMO = False
    home.transcript("/home/dev/app", "s1", {"type": "user", "message": {"role": "user", "content": "hi"}})
    out = StringIO()
    with pytest.raises(Restarted):
        call_command("adduser", "cy", "--demo", "--password-env", "NEW_PASSWORD", stdout=out)
    assert "Using the bundled sample's database" in out.getvalue() and "--demo given" in out.getvalue()
    assert not get_user_model().objects.filter(username="cy").exists()


def test_with_nothing_of_the_users_it_follows_serve_to_the_samples_database(home, settings, restarts):
    settings.WAYSWEB_DEMO = False
    out = StringIO()
    with pytest.raises(Restarted):
        call_command("adduser", "di", "--password-env", "NEW_PASSWORD", stdout=out)
    assert "as `serve` would: no agent-ways events found" in out.getvalue()


def test_on_the_samples_database_it_says_so_and_that_the_account_logs_in_to_the_sample_only(
    settings, restarts
):
    settings.WAYSWEB_DEMO = True
    out = add("ed", "--demo")
    assert (
        f"Created ed (viewer) in the bundled sample's database {served_database.label(connection.settings_dict)}."
        in out
    )
    assert "logs in to the sample only" in out
    assert get_user_model().objects.get(username="ed").check_password("correct horse battery")


def run_adduser(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """`manage.py adduser` as a user runs it: a real process, restarts and database files included."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("WAYSWEB_", "CLAUDE_", "XDG_")) and key != "DJANGO_SETTINGS_MODULE"
    }
    env.update(
        HOME=str(tmp_path / "home"), WAYSWEB_DATA_DIR=str(tmp_path / "data"), NEW_PASSWORD="long enough"
    )
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "adduser", *args, "--password-env", "NEW_PASSWORD"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def users_in(database: Path) -> list[str]:
    with sqlite3.connect(database) as db:
        return [name for (name,) in db.execute("SELECT username FROM auth_user")]


def test_a_real_run_puts_the_account_where_serve_looks_and_says_which_file(tmp_path):
    (tmp_path / "home").mkdir()
    demo = run_adduser(tmp_path, "fay", "--demo")
    assert demo.returncode == 0, demo.stderr
    assert f"in the bundled sample's database {tmp_path / 'data' / 'demo.sqlite3'}." in demo.stdout
    assert users_in(tmp_path / "data" / "demo.sqlite3") == ["fay"]
    transcript = tmp_path / "home" / ".claude" / "projects" / "-home-dev-app" / "s1.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text('{"type": "user", "message": {"role": "user", "content": "hi"}}\n')
    own = run_adduser(tmp_path, "gus")
    assert own.returncode == 0, own.stderr
    assert f"in your database {tmp_path / 'data' / 'waysweb.sqlite3'}." in own.stdout
    assert users_in(tmp_path / "data" / "waysweb.sqlite3") == ["gus"]
    assert users_in(tmp_path / "data" / "demo.sqlite3") == ["fay"]


def test_without_a_terminal_it_says_to_use_password_env_instead_of_a_traceback(tmp_path):
    (tmp_path / "home").mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("WAYSWEB_", "CLAUDE_", "XDG_")) and key != "DJANGO_SETTINGS_MODULE"
    }
    env.update(HOME=str(tmp_path / "home"), WAYSWEB_DATA_DIR=str(tmp_path / "data"))
    ran = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "adduser", "hal", "--demo"],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        start_new_session=True,  # no controlling terminal, as under cron, CI or a service
    )
    assert ran.returncode == 1
    assert "Traceback" not in ran.stderr and "EOFError" not in ran.stderr
    assert "no terminal to ask for the password" in ran.stderr
    assert "adduser hal --password-env NEW_PASSWORD" in ran.stderr
    assert "Created" not in ran.stdout


def test_ctrl_d_at_the_prompt_gives_no_password_not_a_traceback(settings, monkeypatch):
    settings.WAYSWEB_DEMO = True
    real_open = os.open
    monkeypatch.setattr(adduser.os, "open", lambda *args: real_open(os.devnull, os.O_RDONLY))  # a terminal

    def eof(prompt: str) -> str:
        raise EOFError

    monkeypatch.setattr(adduser.getpass, "getpass", eof)
    with pytest.raises(CommandError, match="no password given"):
        call_command("adduser", "ivy", stdout=StringIO())
