"""A search hit opened at its match: the permalink carries the search words on to the page that holds
the entry, and that page draws the entry's clamped boxes whole (no JavaScript needed to see the match)."""

from __future__ import annotations

import re
from io import StringIO

import orjson
import pytest
from django.core.management import call_command

from tests.conftest import append
from tests.introspect.views.test_sessions import long_session

pytestmark = pytest.mark.django_db

SID = "hits0000-0000-4000-8000-000000000001"
OUTPUT = "\n".join(
    f"line {n}: {'the quokka sleeps here' if n == 40 else 'nothing to see'}" for n in range(1, 51)
)
SHOW_ALL = re.compile(r'<details class="show-all"( open)?>')


def at(second: int) -> str:
    return f"2026-11-01T00:00:{second:02d}.000Z"


def bash(n: int, output: str) -> list[dict]:
    """A Bash call and its result, 50 lines that the page clamps to 12."""
    call = {"type": "tool_use", "id": f"toolu_{n}", "name": "Bash", "input": {"command": f"run {n}"}}
    result = {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": output}
    return [
        {"type": "assistant", "uuid": f"c{n}", "message": {"id": f"m{n}", "content": [call]}},
        {
            "type": "user",
            "uuid": f"r{n}",
            "message": {"content": [result]},
            "toolUseResult": {"stdout": output, "stderr": ""},
        },
    ]


@pytest.fixture
def session(home):
    entries = [
        {"type": "user", "uuid": "p1", "message": {"role": "user", "content": "run both"}},
        *bash(1, OUTPUT),
        *bash(2, OUTPUT.replace("quokka", "wombat")),
    ]
    for n, entry in enumerate(entries):
        entry.update(sessionId=SID, timestamp=at(n))
    home.transcript("/p", SID, *entries)
    call_command("ingest", stdout=StringIO())
    return home


def opened_boxes(body: str) -> list[bool]:
    return [bool(found.group(1)) for found in SHOW_ALL.finditer(body)]


def test_a_permalink_from_a_search_carries_the_words_and_the_entry_to_open(client, session):
    response = client.get(f"/sessions/{SID}/", {"u": "r1", "q": "quokka"})
    assert response.status_code == 302
    assert response["Location"] == f"/sessions/{SID}/?turn=1&hit=r1&q=quokka#u-r1"


def test_a_plain_permalink_opens_nothing(client, session):
    response = client.get(f"/sessions/{SID}/", {"u": "r1"})
    assert response["Location"] == f"/sessions/{SID}/?turn=1#u-r1"
    assert opened_boxes(client.get(response["Location"]).content.decode()) == [False, False]


def test_the_hits_clamped_output_is_drawn_whole_and_the_others_stay_clamped(client, session):
    body = client.get(f"/sessions/{SID}/", {"hit": "r1", "q": "quokka"}).content.decode()
    # The two outputs, each 50 lines: the hit's open (its line 40 on the page as it loads), the other folded.
    assert opened_boxes(body) == [True, False]
    assert "the quokka sleeps here" in body
    # Without `q` the parameter is no search hit: nothing is opened.
    assert opened_boxes(client.get(f"/sessions/{SID}/", {"hit": "r1"}).content.decode()) == [False, False]


def test_a_call_hit_opens_its_own_boxes_and_its_results(client, session):
    body = client.get(f"/sessions/{SID}/", {"hit": "c2", "q": "run"}).content.decode()
    assert opened_boxes(body) == [False, True]


def test_a_hit_in_a_subagent_is_opened_on_the_subagent_page(client, home):
    home.transcript(
        "/p",
        SID,
        {
            "type": "user",
            "uuid": "p1",
            "sessionId": SID,
            "timestamp": at(1),
            "message": {"content": "explore"},
        },
    )
    agent = home.root / ".claude" / "projects" / "-p" / SID / "subagents" / "agent-abc.jsonl"
    lines = [{"type": "user", "uuid": "s0", "message": {"role": "user", "content": "go"}}, *bash(9, OUTPUT)]
    for n, entry in enumerate(lines):
        entry.update(sessionId=SID, timestamp=at(n + 2), isSidechain=True, agentId="abc")
    append(agent, *(orjson.dumps(entry) + b"\n" for entry in lines))
    call_command("ingest", stdout=StringIO())

    hit = client.get(f"/sessions/{SID}/agents/abc/", {"hit": "r9", "q": "quokka"}).content.decode()
    plain = client.get(f"/sessions/{SID}/agents/abc/").content.decode()
    assert opened_boxes(hit) == [True] and opened_boxes(plain) == [False]


def test_a_fire_turn_hit_keeps_the_words_on_the_way_to_its_page(client, home):
    long_session(home, 120, sid="big")
    response = client.get("/sessions/big/", {"from": 101, "q": "d/w3"})
    assert response["Location"] == "/sessions/big/?turn=101&q=d%2Fw3#turn-101"
