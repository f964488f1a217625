"""The session list's search finds a session by its title or by anything its user typed."""

from __future__ import annotations

import shutil
from io import StringIO
from pathlib import Path

import orjson
import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from introspect.queries import sessions as queries

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[4] / "shared" / "fixtures" / "transcripts"
COMPACTED = "oneryalcin_fasthooks_sample_main_transcript.jsonl"
SID = "c45af7b1-cb7c-4e51-93db-8cbb250a877a"


def found(q: str) -> list[str]:
    return [session.sid for session in queries.session_list_page(queries.SessionFilters(q=q), page=1)]


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="shared/fixtures is not beside this checkout")
def test_it_finds_a_claude_code_session_by_a_word_of_any_prompt(home):
    target = home.root / ".claude" / "projects" / "-workspace" / f"{SID}.jsonl"
    target.parent.mkdir(parents=True)
    shutil.copy(FIXTURES / COMPACTED, target)
    call_command("ingest", stdout=StringIO())
    prompts = [
        o["message"]["content"]
        for o in map(orjson.loads, target.read_bytes().splitlines())
        if o.get("type") == "user" and isinstance(o["message"]["content"], str) and not o.get("isMeta")
    ]
    assert "hello_world" in prompts[1] and "hello_world" not in prompts[0]  # not the first prompt
    assert found("hello_world") == [SID]
    assert found("HELLO_WORLD") == [SID]  # case does not matter
    assert found("ls -la") == [SID]  # the first prompt, which is the title too
    assert found("Conversation compacted") == []  # a system line is not something the user typed
    assert found("no such words anywhere") == []
    with CaptureQueriesContext(connection) as queries_run:
        list(queries.session_list_page(queries.SessionFilters(q="hello_world"), page=1))
    assert len(queries_run) <= 2  # the page and its count: one EXISTS, no query per session


def test_a_cursor_that_does_not_fit_a_64_bit_column_reads_as_absent():
    # A viewer's seen mark stores the cursor the page followed: a forged one must never reach it.
    assert queries.parse_position("120.3") == (120, 3)
    assert queries.parse_position("120") == (120, 0)
    assert queries.parse_position(f"{2**63}.0") is None
    assert queries.parse_position(f"0.{2**63 - 1}") is None  # no room for the index's +1
    assert queries.parse_position("0.-1") is None
    assert queries.parse_position("a.b") is None
