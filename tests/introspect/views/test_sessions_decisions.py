"""The session page's decision log: each scan with its candidates, outcomes and judge, each pull with
its class, in a bounded number of queries; a session without a decision log shows no section."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.conftest import append, line
from tests.introspect.rules.decision_log import READER_ARCHIVE, READER_LIVE, write_log

pytestmark = pytest.mark.django_db


def imported(home) -> None:
    append(home.live, line(ts="2026-09-01T09:59:00Z", event="session_start", project="/p", session="s1"))
    append(home.live, line(ts="2026-09-01T09:59:00Z", event="session_start", project="/q", session="s3"))
    write_log(home.state, READER_ARCHIVE, READER_LIVE)
    call_command("ingest", "--no-ways", stdout=StringIO())


def test_a_session_page_shows_what_each_scan_saw_and_each_pull_with_its_class(client, home):
    imported(home)
    page = client.get("/sessions/s1/").content.decode()
    assert 'id="decisions"' in page
    assert "3 scans (2 turn starts) · 2 pulls" in page
    assert "judge fallback" in page and "deadline" in page and "capped: d/z" in page
    assert "near_miss" in page and "short by 0.04" in page
    assert "judge p_yes 0.9" in page
    # d/a was fired by a1 before the pull: delivered; d/x named a2, which stashed d/t only: a recall miss.
    assert 'read <span class="mono">d/a</span> · <span class="badge">delivered</span>' in page
    assert 'read <span class="mono">d/x</span> · <span class="badge">recall_miss</span> · out of band' in page


def test_a_session_without_a_decision_log_has_no_section(client, home):
    imported(home)
    assert 'id="decisions"' not in client.get("/sessions/s3/").content.decode()


def test_the_section_costs_three_queries(client, home):
    imported(home)
    client.get("/sessions/s3/")
    with CaptureQueriesContext(connection) as without:
        client.get("/sessions/s3/")
    with CaptureQueriesContext(connection) as with_log:
        client.get("/sessions/s1/")
    assert len(with_log) - len(without) <= 3


def test_import_status_lists_the_decision_log_and_its_archive_with_their_counts(client, home):
    imported(home)
    page = client.get("/status/").content.decode()
    assert "decisions archive" in page and "decisions.jsonl" in page


def test_a_session_without_a_transcript_lists_its_decision_turns_tied_to_no_prompt(client, home):
    imported(home)
    page = client.get("/sessions/s1/").content.decode()
    assert "Decision turns tied to no prompt" in page
    assert page.count('class="decision-turn"') == 2  # its two turn_start scans
    assert page.count("heuristic: no transcript") == 2
    assert "decision-disagreements" not in page  # no fire turns: nothing to confirm against
