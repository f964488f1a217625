"""Every page shows the running import's progress in a strip that polls itself, and drops it when done."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest

from introspect.importer import progress

pytestmark = pytest.mark.django_db


def running(settings) -> None:
    now = datetime.now(UTC)
    progress.write(
        progress.Snapshot(
            3, 40, 300 << 20, 3 << 30, now, now, 60.0, host=settings.WAYSWEB_HOST, pid=os.getpid()
        )
    )


def test_every_page_shows_the_strip_while_an_import_runs(client, settings):
    running(settings)
    for url in ("/", "/ways/", "/status/"):
        page = client.get(url).content.decode()
        assert 'id="progress-strip"' in page and 'hx-get="/import-progress/"' in page, url
    page = client.get("/").content.decode().replace("\xa0", " ")  # filesizeformat's no-break space
    assert "3 of 40 files" in page and "300.0 MB of 3.0 GB" in page and "(9 %)" in page
    assert "5.0 MB/s" in page and "about 9 min of reading left" in page


def test_its_poll_returns_the_strip_alone_then_nothing_once_the_import_is_done(client, settings):
    running(settings)
    fragment = client.get("/import-progress/", headers={"HX-Request": "true"}).content.decode()
    assert 'id="progress-strip"' in fragment and "<html" not in fragment
    progress.clear()
    assert client.get("/import-progress/").content.decode().strip() == ""
    assert 'id="progress-strip"' not in client.get("/").content.decode()


def test_a_server_that_asks_for_a_login_shows_no_strip_before_one(client, settings):
    running(settings)
    settings.LOGIN_REQUIRED = True
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "django.contrib.auth.middleware.LoginRequiredMiddleware"]
    page = client.get("/accounts/login/").content.decode()
    assert "<form" in page and 'id="progress-strip"' not in page
