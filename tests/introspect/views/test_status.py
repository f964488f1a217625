"""The import status page: every source file with its line accounting, and the quarantine."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from tests.conftest import append, line

pytestmark = pytest.mark.django_db


def test_it_shows_import_status_and_quarantine(client, home):
    append(home.live, line(ts="2026-11-01T10:00:00Z", event="session_start", session="s"), b"{broken\n")
    call_command("ingest", stdout=StringIO())
    body = client.get("/status/").content.decode()
    assert "events.jsonl" in body and "invalid_json" in body and "{broken" in body
