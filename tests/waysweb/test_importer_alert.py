"""Every page says when the importer stopped: why, and when `serve` starts it again."""

from __future__ import annotations

from datetime import timedelta

import pytest

from introspect.importer import heartbeat

pytestmark = pytest.mark.django_db


def crashed(*, follow: bool = True, error: str = "OverflowError: date value out of range") -> None:
    beat = heartbeat.Heartbeat(follow=follow)
    beat.started()
    beat.stopped(error)


def test_every_page_says_the_importer_stopped_and_when_serve_restarts_it(client):
    crashed()
    heartbeat.restarting("its process exited with status 1", heartbeat.now() + timedelta(seconds=30))
    for url in ("/", "/ways/", "/status/", "/ledger/"):
        page = " ".join(client.get(url).content.decode().split())
        assert 'id="importer-alert"' in page and 'hx-get="/importer-alert/"' in page, url
        assert (
            "The importer stopped:</strong> <span>OverflowError: date value out of range; restarting in "
            in page
        )
    assert "restarting in 30 s" in page or "restarting in 29 s" in page


def test_its_poll_returns_the_banner_alone_then_nothing_once_the_importer_runs_again(client):
    crashed()
    heartbeat.restarting("its process exited with status 1", heartbeat.now() - timedelta(seconds=1))
    fragment = client.get("/importer-alert/", headers={"HX-Request": "true"}).content.decode()
    assert 'id="importer-alert"' in fragment and "restarting now" in fragment and "<html" not in fragment
    heartbeat.Heartbeat(follow=True).started()  # the importer serve started again
    assert client.get("/importer-alert/").content.decode().strip() == ""
    assert 'id="importer-alert"' not in client.get("/").content.decode()


def test_a_follower_that_died_of_an_error_with_nobody_to_restart_it_is_shown_without_a_poll(client):
    crashed()
    page = " ".join(client.get("/").content.decode().split())
    assert "OverflowError: date value out of range; it is not restarted" in page
    assert 'hx-get="/importer-alert/"' not in page


def test_a_single_pass_or_a_clean_stop_shows_no_banner(client):
    crashed(follow=False)  # `ingest` run by hand: its terminal said why, the status page says so too
    assert 'id="importer-alert"' not in client.get("/").content.decode()
    crashed(error="")  # a follower asked to stop
    assert 'id="importer-alert"' not in client.get("/").content.decode()


def test_a_running_importer_of_this_host_shows_no_banner(client, settings):
    beat = heartbeat.Heartbeat(follow=True)
    beat.started()
    assert heartbeat.current().state == "running" and heartbeat.current().host == settings.WAYSWEB_HOST
    assert 'id="importer-alert"' not in client.get("/").content.decode()


def test_a_server_that_asks_for_a_login_shows_no_banner_before_one(client, settings):
    crashed()
    settings.LOGIN_REQUIRED = True
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "django.contrib.auth.middleware.LoginRequiredMiddleware"]
    page = client.get("/accounts/login/").content.decode()
    assert "<form" in page and 'id="importer-alert"' not in page
