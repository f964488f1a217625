"""The secret key kept in the data directory (waysweb/settings.py `secret_key`)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from waysweb import settings


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.delenv("DJANGO_SECRET_KEY", raising=False)
    monkeypatch.setattr(settings, "DATA_DIR", tmp_path / "data")
    return tmp_path / "data"


def test_a_key_is_made_once_and_kept(data):
    first = settings.secret_key()
    assert len(first) >= 50
    assert (data / "secret_key").read_text() == first
    assert settings.secret_key() == first
    assert [path.name for path in data.iterdir()] == ["secret_key"]  # no temporary file left
    assert (data / "secret_key").stat().st_mode & 0o777 == 0o600


def test_the_environment_key_wins_and_nothing_is_written(data, monkeypatch):
    monkeypatch.setenv("DJANGO_SECRET_KEY", "from-the-environment")
    assert settings.secret_key() == "from-the-environment"
    assert not (data / "secret_key").exists()


def test_a_key_linked_by_another_process_meanwhile_is_the_one_taken_whole(data, monkeypatch):
    """The other process's key appears between this one's read and its link: this one takes it,
    and never sees the file without its key (the race two `serve` started at once ran into)."""
    real_link = os.link

    def link_after_another(source, target):
        with open(target, "x") as fh:
            fh.write("the-other-process-key")
        return real_link(source, target)

    monkeypatch.setattr(os, "link", link_after_another)
    assert settings.secret_key() == "the-other-process-key"
    assert (data / "secret_key").read_text() == "the-other-process-key"
    assert [path.name for path in data.iterdir()] == ["secret_key"]


def test_an_empty_key_file_left_by_a_kill_mid_write_gets_a_key(data):
    data.mkdir(parents=True)
    (data / "secret_key").write_text("")
    key = settings.secret_key()
    assert key
    assert (data / "secret_key").read_text() == key
    assert settings.secret_key() == key


def test_a_data_directory_that_cannot_hold_the_key_says_so(data, monkeypatch):
    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(settings.tempfile, "mkstemp", refused)
    with pytest.raises(ImproperlyConfigured, match="set DJANGO_SECRET_KEY instead"):
        settings.secret_key()
    assert not (data / "secret_key").exists()


# Each child imports the settings, which read or make the key (SECRET_KEY) as `serve` does at start.
PRINT_KEY = "from waysweb import settings; print(settings.SECRET_KEY)"


def test_processes_started_together_all_get_the_one_key_on_disk(data):
    env = {**os.environ, "WAYSWEB_DATA_DIR": str(data)}
    env.pop("DJANGO_SECRET_KEY", None)
    children = [
        subprocess.Popen(
            [sys.executable, "-c", PRINT_KEY],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    got = [child.communicate(timeout=120)[0].strip() for child in children]
    assert [child.returncode for child in children] == [0] * len(children)
    on_disk = (data / "secret_key").read_text()
    assert on_disk
    assert got == [on_disk] * len(children)
