"""`manage.py serve` decides between the user's data and the sample, and where it may listen."""

from __future__ import annotations

import pytest
from django.core.management.base import CommandError

from introspect.management.commands import serve


def test_it_shows_the_sample_only_when_nothing_of_the_users_exists():
    assert serve.should_use_sample(has_files=False, has_rows=False)
    assert not serve.should_use_sample(has_files=True, has_rows=False)
    assert not serve.should_use_sample(has_files=False, has_rows=True)  # rotated away upstream, kept here


def test_it_recognises_loopback_hosts():
    assert all(serve.is_loopback(host) for host in ("127.0.0.1", "localhost", "::1", "127.0.0.2"))
    assert not any(serve.is_loopback(host) for host in ("0.0.0.0", "192.168.1.20", "example.com"))


def test_it_refuses_every_interface_without_allowed_hosts(monkeypatch):
    monkeypatch.delenv("DJANGO_ALLOWED_HOSTS", raising=False)
    with pytest.raises(CommandError, match="DJANGO_ALLOWED_HOSTS"):
        serve.Command().check_host("0.0.0.0")


@pytest.mark.django_db
def test_it_allows_a_named_host_it_is_told_to_listen_on(settings):
    settings.ALLOWED_HOSTS = ["127.0.0.1"]
    serve.Command().check_host("192.168.1.20")
    assert "192.168.1.20" in settings.ALLOWED_HOSTS
