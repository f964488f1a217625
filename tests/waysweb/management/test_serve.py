"""`manage.py serve` decides between the user's data and the sample, and where it may listen."""

from __future__ import annotations

import ipaddress
import re
import socket
import threading
from io import StringIO
from types import SimpleNamespace

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from introspect.importer import activity
from tests.waysweb.management.served import free_port
from waysweb.management.commands import serve


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1",
        "localhost",
        "localhost.",
        "::1",
        "[::1]",
        "127.0.0.2",
        "127.1",
        "2130706433",
        "0x7f000001",
        " 127.0.0.1 ",
        "::ffff:127.0.0.1",
        "LOCALHOST",
    ],
)
def test_it_recognises_loopback_hosts_however_they_are_spelled(host):
    assert serve.parse_host(host).loopback


@pytest.mark.parametrize(
    "host, address",
    [
        ("0", "0.0.0.0"),
        ("0.0.0.0", "0.0.0.0"),
        ("::", "::"),
        ("[::]", "::"),
        ("0.0", "0.0.0.0"),
        ("00", "0.0.0.0"),
        ("0x0", "0.0.0.0"),
        ("::0", "::"),
        ("0:0:0:0:0:0:0:0", "::"),
        ("::ffff:0.0.0.0", "::ffff:0.0.0.0"),
    ],
)
def test_it_reads_every_spelling_of_every_interface_as_one(host, address):
    listen = serve.parse_host(host)
    assert listen.wildcard and not listen.loopback
    assert listen.host == str(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    "host, name",
    [
        ("192.168.1.20", "192.168.1.20"),
        ("fe80::1", "[fe80::1]"),
        ("[2001:db8::5]", "[2001:db8::5]"),
        ("10.1", "10.0.0.1"),
    ],
)
def test_it_reads_one_address_as_itself_and_the_name_a_browser_sends_for_it(host, name):
    listen = serve.parse_host(host)
    assert not listen.wildcard and not listen.loopback
    assert listen.name == name


@pytest.mark.parametrize(
    "host",
    [
        "",
        " ",
        ".",
        "[]",
        "[127.0.0.1]",
        "[::1",
        "no such host.invalid",
        "256.1.1.1",
        "a b",
        "-",
        "x" * 300,
        "\u2603.invalid",
        "localhost..",
        "::1::",
    ],
)
def test_it_refuses_what_is_not_an_address_it_can_listen_on(host):
    with pytest.raises(CommandError, match="--host"):
        serve.parse_host(host)


@pytest.mark.parametrize("host", ["0", "::", "[::]", "0.0.0.0", "0x0"])
def test_it_refuses_every_spelling_of_every_interface_without_allowed_hosts(monkeypatch, host):
    monkeypatch.delenv("DJANGO_ALLOWED_HOSTS", raising=False)
    with pytest.raises(CommandError, match="every interface"):
        serve.Command().check_host(host)


@pytest.mark.parametrize("host", ["localhost.", "[::1]", "127.1"])
def test_it_needs_nothing_for_loopback_however_it_is_spelled(settings, monkeypatch, host):
    monkeypatch.delenv("DJANGO_ALLOWED_HOSTS", raising=False)
    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]
    listen = serve.Command().check_host(host)
    assert listen.loopback and settings.ALLOWED_HOSTS == ["127.0.0.1", "localhost", "[::1]"]
    assert not settings.LOGIN_REQUIRED


def test_it_answers_a_bad_host_with_a_command_error_before_touching_the_database(tmp_path, monkeypatch):
    # `--host localhost.` was a traceback (a users query before migrate); an unusable host is a message.
    with pytest.raises(CommandError, match=re.escape("--host 'no such host.invalid'")):
        call_command(
            "serve", "--host", "no such host.invalid", "--no-ingest", stdout=StringIO(), stderr=StringIO()
        )


def test_it_refuses_every_interface_without_allowed_hosts(monkeypatch):
    monkeypatch.delenv("DJANGO_ALLOWED_HOSTS", raising=False)
    with pytest.raises(CommandError, match="DJANGO_ALLOWED_HOSTS"):
        serve.Command().check_host("0.0.0.0")


@pytest.mark.django_db
def test_it_asks_for_a_login_on_every_interface_spelled_0(settings, monkeypatch):
    monkeypatch.delenv("DJANGO_ALLOWED_HOSTS", raising=False)
    settings.ALLOWED_HOSTS = ["127.0.0.1"]
    serve.Command(stderr=StringIO()).check_host("0", ["team.lan"])
    assert settings.LOGIN_REQUIRED and serve.LOGIN_MIDDLEWARE in settings.MIDDLEWARE
    assert settings.ALLOWED_HOSTS == ["127.0.0.1", "team.lan"]  # not "0", which no browser sends


@pytest.mark.django_db
def test_it_allows_the_bracketed_name_of_an_ipv6_address_it_listens_on(settings, monkeypatch):
    monkeypatch.delenv("DJANGO_ALLOWED_HOSTS", raising=False)
    settings.ALLOWED_HOSTS = ["127.0.0.1"]
    serve.Command(stderr=StringIO()).check_host("fe80::1")
    assert "[fe80::1]" in settings.ALLOWED_HOSTS


@pytest.mark.django_db
def test_it_allows_a_named_host_it_is_told_to_listen_on(settings):
    settings.ALLOWED_HOSTS = ["127.0.0.1"]
    serve.Command().check_host("192.168.1.20")
    assert "192.168.1.20" in settings.ALLOWED_HOSTS


class Started(Exception):
    """serve got past choosing its data: it would listen, and import behind it, now."""


def serve_choice(monkeypatch) -> list[str]:
    """Run `serve` up to the point it listens, recording any restart into the sample (and why)."""
    restarts: list[str] = []
    monkeypatch.setattr(serve.Command, "prepare_database", lambda self: None)
    monkeypatch.setattr(serve.Command, "restart_as_demo", lambda self, why: restarts.append(why))

    def listen(*args, **kwargs):
        raise Started

    monkeypatch.setattr(serve.Command, "listen", listen)
    with pytest.raises(Started):
        call_command("serve", stdout=StringIO(), stderr=StringIO())
    return restarts


@pytest.mark.django_db
def test_it_shows_a_plain_claude_code_users_transcripts_not_the_sample(home, monkeypatch):
    home.transcript("/home/dev/app", "s1", {"type": "user", "message": {"role": "user", "content": "hi"}})
    assert serve_choice(monkeypatch) == []


@pytest.mark.django_db
def test_it_shows_the_sample_when_there_are_neither_events_nor_transcripts(home, monkeypatch):
    (home.root / ".claude" / "projects" / "-home-dev-app").mkdir(parents=True)  # a folder, no transcript
    [why] = serve_choice(monkeypatch)
    assert "no agent-ways events" in why and "no Claude Code transcripts" in why


@pytest.mark.parametrize(("given", "follower"), [((), ()), (("--poll",), ("--poll",))])
def test_its_importer_is_ingest_follow_watching_or_polling_as_asked(monkeypatch, given, follower):
    started = []

    def popen(args, **kwargs):
        started.append(args)
        return SimpleNamespace(pid=0, poll=lambda: None)

    monkeypatch.setattr(serve.subprocess, "Popen", popen)
    monkeypatch.setattr(activity, "launch", None)
    parser = serve.Command().create_parser("manage.py", "serve")
    serve.Command().start_follower(poll=parser.parse_args(list(given)).poll)
    [args] = started
    assert args[2:] == ["ingest", "--follow", "--verbosity", "1", *follower]


@pytest.mark.django_db
@pytest.mark.parametrize(("given", "opens"), [(("--open",), True), ((), False)])
def test_open_shows_the_dashboard_in_the_browser_once_it_listens(home, monkeypatch, given, opens):
    home.transcript("/home/dev/app", "s1", {"type": "user", "message": {"role": "user", "content": "hi"}})
    port = free_port()
    opened: list[tuple[str, bool]] = []
    done = threading.Event()

    def browser(url: str) -> bool:
        with socket.socket() as client:  # the server accepts connections when the browser is sent there
            answered = client.connect_ex(("127.0.0.1", port)) == 0
        opened.append((url, answered))
        done.set()
        return True

    monkeypatch.setattr(serve.webbrowser, "open", browser)
    monkeypatch.setattr(serve.Command, "prepare_database", lambda self: None)
    monkeypatch.setattr(
        serve.Command, "serve", lambda self, server: (done.wait(5 if opens else 0.2), server.close())
    )
    call_command("serve", "--no-ingest", "--port", str(port), *given, stdout=StringIO(), stderr=StringIO())
    assert opened == ([(f"http://127.0.0.1:{port}/", True)] if opens else [])
