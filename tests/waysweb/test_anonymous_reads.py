"""Reading writes nothing: page views from clients that keep no cookies add no row to any table
(issue 24: each cookie-less session-page GET added a seen mark, 130 requests → 129 rows, and every
one of them waited for SQLite's write lock beside the importer)."""

from __future__ import annotations

import shutil
from io import StringIO
from itertools import cycle, islice

import pytest
from django.apps import apps
from django.core.management import call_command
from django.test import Client

from introspect.models import SeenMark, Session
from ledger.models import AdrRecord, KnowledgeRecord
from lib import locations
from tests.introspect.views.test_sessions_seen import chat

pytestmark = pytest.mark.django_db


def rows() -> dict[str, int]:
    """Every table's row count, the tables Django makes for many-to-many fields included."""
    return {
        model._meta.db_table: model._default_manager.count()
        for model in apps.get_models(include_auto_created=True)
    }


def read_without_cookies(paths: list[str], views: int) -> None:
    """`views` GETs over `paths`, each from a client that sends no cookie back (as a script or a
    crawler does): the cookies every answer sets are dropped before the next request."""
    client = Client()
    for path in islice(cycle(paths), views):
        client.cookies.clear()
        response = client.get(path)
        assert response.status_code == 200, path


def test_a_thousand_cookie_less_views_of_session_pages_add_no_rows(home):
    sids = [chat(home, sid=f"chat-{n:04d}-aaaa-bbbb") for n in range(4)]
    before = rows()
    read_without_cookies([*(f"/sessions/{sid}/" for sid in sids), "/"], 1000)
    assert rows() == before and not SeenMark.objects.exists()


@pytest.fixture
def sample(tmp_path, settings):
    """The bundled sample imported, its two repositories' knowledge and decision records with it."""
    home = tmp_path / "home"
    shutil.copytree(locations.SAMPLE_HOME, home, symlinks=True)
    locs = locations.resolve({"HOME": str(home)})
    repos = (home / "repos" / "api-server", home / "repos" / "web-ui")
    settings.WAYSWEB_LOCATIONS = locs.__class__(**{**locs.__dict__, "repos": repos})
    call_command("ingest", stdout=StringIO())


def test_every_screen_a_reader_opens_adds_no_rows_for_a_cookie_less_reader(sample):
    knowledge = KnowledgeRecord.objects.order_by("pk").first()
    record = AdrRecord.objects.order_by("pk").first()
    sessions = [f"/sessions/{sid}/" for sid in Session.objects.order_by("sid").values_list("sid", flat=True)]
    screens = [
        "/",
        "/ways/",
        "/search/?q=token",
        "/status/",
        "/ledger/",
        "/ledger/memory/",
        "/ledger/knowledge/",
        f"/ledger/knowledge/{knowledge.pk}/",
        "/ledger/decisions/",
        "/ledger/decisions/backlog/",
        f"/ledger/decisions/{record.pk}/",
    ]
    assert len(sessions) >= 10
    before = rows()
    read_without_cookies(sessions + screens, 2 * len(sessions + screens))
    assert rows() == before
