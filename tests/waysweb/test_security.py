"""The security floor (importer-reliability.md §13.2): no write without a reviewer's login and a
CSRF token, headers on every page, loopback by default, a login for reading when shared."""

from __future__ import annotations

import hashlib
import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from introspect.models import LabelAction, RelevanceLabel
from ledger.importer import knowledge as knowledge_files
from ledger.models import AdrAction, KnowledgeRecord, ReviewAction
from tests.ledger.conftest import record_file
from waysweb.management.commands import serve

pytestmark = pytest.mark.django_db

# Setting and clearing one's own relevance label: the writes open to any account.
LABEL_WRITES = ("/ways/labels/label/", "/ways/labels/clear/")
PARAMS = {"int": "{pk}", "str": "x", "path": "a/b", "slug": "x", "id": "x", "wayid": "a/b", "ledgerslug": "x"}


def every_route(patterns=None, prefix: str = "") -> list[str]:
    """Each URL pattern of the project as a path, its parameters filled in."""
    routes = []
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        text = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            routes += every_route(pattern.url_patterns, text)
        elif isinstance(pattern, URLPattern):
            routes.append("/" + re.sub(r"<(\w+):\w+>", lambda m: PARAMS[m.group(1)], text))
    return routes


@pytest.fixture
def records(tmp_path):
    directory = tmp_path / "repo" / ".ai" / "repo" / "knowledge"
    record_file(directory, "s-20260911000001-aaaa-3f9c2a1b7d0e")
    knowledge_files.import_directory(directory)
    return directory


def state(directory) -> tuple:
    files = sorted((p.name, hashlib.sha256(p.read_bytes()).hexdigest()) for p in directory.rglob("*.md"))
    rows = sorted(KnowledgeRecord.objects.values_list("pk", "status", "title"))
    return files, rows, ReviewAction.objects.count(), AdrAction.objects.count()


def token(client: Client) -> str:
    client.get("/accounts/login/")
    return client.cookies["csrftoken"].value


@pytest.mark.parametrize("who", ["anonymous", "anonymous with a token", "viewer with a token"])
def test_no_route_accepts_a_write_without_a_reviewer(records, who):
    pk = KnowledgeRecord.objects.get().pk
    client = Client(enforce_csrf_checks=True)
    headers = {}
    if who == "viewer with a token":
        get_user_model().objects.create_user("vic", password="correct horse battery")
        client.login(username="vic", password="correct horse battery")
    if "token" in who:
        headers = {"X-CSRFToken": token(client)}
    before = state(records)
    # Logging in and out are the only POSTs open to everyone; they change no records.
    routes = [route.format(pk=pk) for route in every_route() if not route.startswith("/accounts/")]
    assert f"/ledger/knowledge/{pk}/promote/" in routes
    for route in routes:
        response = client.post(
            route,
            {
                "evidence": "x",
                "reason": "x",
                "title": "x",
                "status": "accepted",
                "action": "promote",
                "ids": [pk],
            },
            headers=headers,
        )
        if route in LABEL_WRITES and who == "viewer with a token":
            # The writes open to any account (decisions-and-effectiveness.md §8.6): one's own relevance
            # label, set or cleared, carrying who; this form names no fire, so it is refused and writes nothing.
            assert response.status_code == 400
            continue
        assert response.status_code in (302, 403, 404, 405), (route, response.status_code)
        if response.status_code == 302:
            assert response.url.startswith("/accounts/login/"), (route, response.url)
    assert state(records) == before
    assert not RelevanceLabel.objects.exists() and not LabelAction.objects.exists()


def test_a_reviewer_without_a_csrf_token_is_refused(records):
    get_user_model().objects.create_user("rita", password="correct horse battery")
    reviewer = get_user_model().objects.get(username="rita")

    reviewer.user_permissions.add(Permission.objects.get(codename="review_knowledge"))
    client = Client(enforce_csrf_checks=True)
    client.login(username="rita", password="correct horse battery")
    pk = KnowledgeRecord.objects.get().pk
    before = state(records)
    response = client.post(f"/ledger/knowledge/{pk}/reject/", {"reason": "not a decision"})
    assert response.status_code == 403 and b"CSRF" in response.content
    assert state(records) == before


def test_every_page_carries_the_security_headers(client):
    for path in ("/", "/search/?q=x", "/ledger/knowledge/", "/accounts/login/", "/no-such-page/"):
        response = client.get(path)
        assert "script-src 'self'" in response.headers["Content-Security-Policy"], path
        assert "'unsafe-inline'" not in response.headers["Content-Security-Policy"], path
        assert response.headers["X-Frame-Options"] == "DENY", path
        assert response.headers["X-Content-Type-Options"] == "nosniff", path
        assert response.headers["Referrer-Policy"] == "same-origin", path
        assert response.headers["Cross-Origin-Opener-Policy"] == "same-origin", path


def test_no_debug_page_unless_asked(client, settings):
    assert settings.DEBUG is False
    response = client.get("/no-such-page/")
    assert (
        response.status_code == 404
        and b"Traceback" not in response.content
        and b"URLconf" not in response.content
    )


def test_every_inline_script_carries_the_nonce(client):
    response = client.get("/")
    nonce = response.headers["Content-Security-Policy"].split("'nonce-")[1].split("'")[0]
    scripts = re.findall(rb"<script\b[^>]*>", response.content)
    assert scripts and all(f'nonce="{nonce}"'.encode() in tag for tag in scripts)
    assert not re.search(rb"\son[a-z]+=", response.content)  # no inline event handlers


def test_a_host_from_data_cannot_reach_it(client):
    assert client.get("/", HTTP_HOST="attacker.example").status_code == 400  # DNS rebinding stops here


@pytest.fixture
def lan(settings):
    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
    settings.MIDDLEWARE = list(settings.MIDDLEWARE)
    return settings


def test_a_lan_address_takes_the_names_given_and_asks_for_a_login_to_read(lan, client):
    serve.Command().check_host("0.0.0.0", ["team.lan"])
    assert "team.lan" in lan.ALLOWED_HOSTS and "0.0.0.0" not in lan.ALLOWED_HOSTS
    assert serve.LOGIN_MIDDLEWARE in lan.MIDDLEWARE
    response = client.get("/", HTTP_HOST="team.lan")
    assert response.status_code == 302 and response.url.startswith("/accounts/login/?next=/")
    assert client.get("/accounts/login/", HTTP_HOST="team.lan").status_code == 200
    get_user_model().objects.create_user("vic", password="correct horse battery")
    client.login(username="vic", password="correct horse battery")
    assert client.get("/", HTTP_HOST="team.lan").status_code == 200  # a viewer reads


def test_open_reads_on_a_lan_address_are_explicit(lan, client):
    serve.Command().check_host("192.168.1.20", open_reads=True)
    assert "192.168.1.20" in lan.ALLOWED_HOSTS and serve.LOGIN_MIDDLEWARE not in lan.MIDDLEWARE
    assert client.get("/", HTTP_HOST="192.168.1.20").status_code == 200


def test_loopback_changes_nothing(lan):
    serve.Command().check_host("127.0.0.1")
    assert lan.ALLOWED_HOSTS == ["127.0.0.1", "localhost"] and serve.LOGIN_MIDDLEWARE not in lan.MIDDLEWARE
