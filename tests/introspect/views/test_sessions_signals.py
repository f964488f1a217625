"""The session page marks each conversation turn with its outcome signals (issue 28): a mark per
signal the turn has, its definition as its title, linked to the entries that caused it."""

from __future__ import annotations

import html
import re
import shutil
from io import StringIO

import pytest
from django.core.management import call_command

from introspect.models import TranscriptEntry, TurnOutcome
from introspect.rules import outcome_signals as signals
from tests.fixtures import TRANSCRIPTS

pytestmark = pytest.mark.django_db

SID = "c45af7b1-cb7c-4e51-93db-8cbb250a877a"  # fasthooks: a missing file, a missing python, a /compact


@pytest.fixture
def body(client, home) -> str:
    target = home.root / ".claude" / "projects" / "-workspace" / f"{SID}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(TRANSCRIPTS / "oneryalcin_fasthooks_sample_main_transcript.jsonl", target)
    call_command("ingest", stdout=StringIO())
    return client.get(f"/sessions/{SID}/").content.decode()


def marks_under(body: str, turn: int) -> str:
    """The signals line right under a turn's heading."""
    after = body[body.index(f'id="t-{turn}"') :]
    after = after[after.index("</h3>") + len("</h3>") :].lstrip()
    return after[: after.index("</p>")] if after.startswith('<p class="turn-signals">') else ""


def test_a_turn_with_a_failed_command_says_so_with_the_definition_and_a_link_to_the_result(client, body):
    marks = marks_under(body, 4)
    mark = re.search(
        r'<span class="signal signal--tool_errors" title="([^"]*)"><a href="\?u=([^"]+)">1 tool error</a>',
        marks,
    )
    assert mark, marks
    assert html.unescape(mark.group(1)) == signals.DEFINITIONS[signals.TOOL_ERRORS]
    result = TranscriptEntry.objects.get(uuid=mark.group(2))
    assert result.is_error and "nonexistent.txt" in result.text
    jumped = client.get(f"/sessions/{SID}/?u={mark.group(2)}")
    assert jumped.status_code == 302 and jumped["Location"].endswith(f"#u-{mark.group(2)}")
    assert (
        f'id="u-{mark.group(2)}"' in client.get(jumped["Location"]).content.decode()
    )  # the card it lands on


def test_every_turn_shows_its_measures_each_with_its_definition(body):
    outcomes = TurnOutcome.objects.filter(session__sid=SID, number__gt=0, tokens__gt=0)
    assert outcomes.exists()
    for outcome in outcomes:
        titles = {
            html.unescape(title)
            for title in re.findall(r'title="([^"]*)"', marks_under(body, outcome.number))
        }
        assert {signals.DEFINITIONS[signals.TOKENS], signals.DEFINITIONS[signals.DURATION]} <= titles


def test_a_quiet_turn_has_no_trouble_marks(body):
    quiet = TurnOutcome.objects.filter(session__sid=SID, number__gt=0, tool_errors=0, compactions=0).first()
    assert quiet is not None
    assert "signal--tool_errors" not in marks_under(body, quiet.number)


def line(sid: str, uuid: str, kind: str, second: int, content, message_id: str = "") -> dict:
    message = {"role": kind, "content": content}
    if message_id:
        message["id"] = message_id
    stamp = f"2026-11-01T10:00:{second:02d}.000Z"
    return {"type": kind, "uuid": uuid, "sessionId": sid, "timestamp": stamp, "message": message}


def test_a_turn_the_live_tail_opens_has_its_marks_and_the_next_prompt_marks_the_turn_it_corrects(
    client, home
):
    sid = "live-0000-aaaa-bbbb-cccc"
    home.transcript("/p", sid, line(sid, "p1", "user", 0, "run the bucket tests"))
    call_command("ingest", stdout=StringIO())
    body = client.get(f"/sessions/{sid}/").content.decode()
    after = re.search(r"/live/conversation/\?after=([\d.]+)&amp;fire=(\d+)", body)
    call = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "pytest"}}
    failed = {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "Exit code 1\n1 failed",
        "is_error": True,
    }
    home.transcript(
        "/p",
        sid,
        line(sid, "c1", "assistant", 2, [call], message_id="m1"),
        line(sid, "r1", "user", 3, [failed]),
        line(sid, "p2", "user", 9, "still failing, same assertion"),
    )
    call_command("ingest", stdout=StringIO())
    assert TurnOutcome.objects.get(session__sid=sid, number=1).correction_cue == "fault"
    tail = client.get(
        f"/sessions/{sid}/live/conversation/",
        {"after": after.group(1), "fire": after.group(2)},
        headers={"HX-Request": "true"},
    ).content.decode()
    assert 'id="t-2"' in tail and 'class="turn-signals"' in marks_under(tail, 2)
    # Turn 1 is drawn already: its new marks show when the page is drawn again.
    again = client.get(f"/sessions/{sid}/").content.decode()
    turn_one = marks_under(again, 1)
    assert 'href="?u=r1">1 tool error</a>' in turn_one and 'href="?u=p2">corrected</a>' in turn_one
