"""Login throttling (waysweb/throttle.py, django-axes): a handful of failures per user name and address
lock both out for a cool-off, the right password included; each failure is logged without the password."""

from __future__ import annotations

import logging
from datetime import timedelta
from io import StringIO

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"
WRONG = "Tr0ub4dor&3-wrong"


@pytest.fixture(autouse=True)
def fast_hashing(settings):
    # Dozens of password checks per test: PBKDF2's deliberate slowness is not under test here.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def rita(db):
    return get_user_model().objects.create_user("rita", password=PASSWORD)


def attempt(client: Client, password: str, username: str = "rita", **extra):
    return client.post(
        "/accounts/login/", {"username": username, "password": password, "next": "/ledger/"}, **extra
    )


def logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def fail_until_locked(client: Client, **extra):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        response = attempt(client, WRONG, **extra)
        assert response.status_code == 200 and "Please enter a correct" in response.content.decode()
    return attempt(client, WRONG, **extra)


def test_it_locks_a_user_name_out_at_the_failure_limit_even_with_the_right_password(rita):
    client = Client()
    locked = fail_until_locked(client)
    assert locked.status_code == 429
    response = attempt(client, PASSWORD)
    assert response.status_code == 429 and not logged_in(client)


def test_it_says_so_on_the_login_page_in_the_sites_frame(rita):
    client = Client()
    fail_until_locked(client)
    page = attempt(client, PASSWORD).content.decode()
    assert "Too many failed logins for “rita” from this address" in page
    assert "for 15 minutes, even with the right password" in page
    assert 'class="top"' in page and "Log in</h1>" in page  # base.html's header, the login page's form
    assert 'value="rita"' in page and PASSWORD not in page


def test_it_logs_each_failure_with_the_user_name_and_address_never_the_password(rita, caplog):
    client = Client()
    with caplog.at_level(logging.WARNING, logger="axes"):
        attempt(client, WRONG, REMOTE_ADDR="192.0.2.7")
    [record] = [r for r in caplog.records if r.name.startswith("axes") and "login failure" in r.getMessage()]
    message = record.getMessage()
    assert record.levelno == logging.WARNING
    assert "rita" in message and "192.0.2.7" in message
    assert WRONG not in message and all(WRONG not in r.getMessage() for r in caplog.records)
    assert WRONG not in AccessAttempt.objects.get().post_data  # axes keeps the form, the password masked


def test_it_locks_one_user_name_from_one_address_only(rita):
    fail_until_locked(Client())
    elsewhere = Client(REMOTE_ADDR="198.51.100.9")
    assert attempt(elsewhere, PASSWORD, REMOTE_ADDR="198.51.100.9").status_code == 302
    other = get_user_model().objects.create_user("vic", password=PASSWORD)
    same_address = Client()
    assert attempt(same_address, PASSWORD, username=other.username).status_code == 302


def test_it_lets_the_right_password_in_after_the_cool_off(rita):
    client = Client()
    fail_until_locked(client)
    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.get().attempt_time
        - settings.AXES_COOLOFF_TIME
        - timedelta(seconds=1)
    )
    response = attempt(client, PASSWORD)
    assert response.status_code == 302 and logged_in(client)


def test_it_lets_the_right_password_in_after_a_reset(rita):
    client = Client()
    fail_until_locked(client)
    call_command("axes_reset", stdout=StringIO())
    assert attempt(client, PASSWORD).status_code == 302 and logged_in(client)


def test_it_forgets_failures_after_a_successful_login(rita):
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        attempt(client, WRONG)
    assert attempt(client, PASSWORD).status_code == 302
    client.logout()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        attempt(client, WRONG)
    assert attempt(client, PASSWORD).status_code == 302


def test_it_leaves_logins_made_by_code_uncounted(rita):
    # The test client's login() calls authenticate() without a request: not a visitor at the door.
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT * 2):
        assert not client.login(username="rita", password=WRONG)
    assert client.login(username="rita", password=PASSWORD)
    assert not AccessAttempt.objects.exists()
