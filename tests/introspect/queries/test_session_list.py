"""The session list's search finds a session by its title or by anything its user typed
(introspect/queries/session_list.py)."""

from __future__ import annotations

import shutil
from io import StringIO

import orjson
import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from introspect.queries import session_list
from tests.fixtures import TRANSCRIPTS

pytestmark = pytest.mark.django_db

COMPACTED = "oneryalcin_fasthooks_sample_main_transcript.jsonl"
SID = "c45af7b1-cb7c-4e51-93db-8cbb250a877a"


def found(q: str) -> list[str]:
    return [
        session.sid for session in session_list.session_list_page(session_list.SessionFilters(q=q), page=1)
    ]


def test_it_finds_a_claude_code_session_by_a_word_of_any_prompt(home):
    target = home.root / ".claude" / "projects" / "-workspace" / f"{SID}.jsonl"
    target.parent.mkdir(parents=True)
    shutil.copy(TRANSCRIPTS / COMPACTED, target)
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
        list(session_list.session_list_page(session_list.SessionFilters(q="hello_world"), page=1))
    assert len(queries_run) <= 2  # the page and its count: one EXISTS, no query per session
