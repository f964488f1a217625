"""Each conversation turn's outcome signals are stored with the session's other derived rows: one
row per turn the page numbers, the lines behind each signal named, the same after a rebuild."""

from __future__ import annotations

import shutil
from io import StringIO
from operator import attrgetter

import pytest
from django.core.management import call_command

from introspect.derive import rebuild, trunk_facts, trunk_pass, turn_outcomes
from introspect.models import Session, TranscriptEntry, TurnOutcome
from introspect.rules import outcome_signals as signals
from lib import linepack, stamps
from tests.fixtures import TRANSCRIPTS

pytestmark = pytest.mark.django_db

SID = "c45af7b1-cb7c-4e51-93db-8cbb250a877a"  # fasthooks: a missing file, a missing python, a /compact


@pytest.fixture
def session(home) -> Session:
    target = home.root / ".claude" / "projects" / "-workspace" / f"{SID}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(TRANSCRIPTS / "oneryalcin_fasthooks_sample_main_transcript.jsonl", target)
    call_command("ingest", stdout=StringIO())
    return Session.objects.get(sid=SID)


def stored(session: Session) -> list[tuple]:
    return list(
        TurnOutcome.objects.filter(session=session)
        .order_by("number")
        .values_list("number", "prompt_entry_id", "tool_errors", "compactions", "tokens", "causes")
    )


def test_every_conversation_turn_has_one_row_keyed_to_its_prompt(session):
    prompts = list(
        TranscriptEntry.objects.filter(source=session.transcript, is_prompt=True, is_copy=False, inert=False)
        .order_by("offset", "index")
        .values_list("pk", flat=True)
    )
    rows = stored(session)
    numbered = [(number, prompt) for number, prompt, *_ in rows if number > 0]
    assert numbered == list(enumerate(prompts, start=1))


def test_the_failed_commands_name_their_results_and_the_compaction_its_boundary(session):
    rows = {
        number: (errors, compactions, causes) for number, _, errors, compactions, _, causes in stored(session)
    }
    assert {n: errors for n, (errors, _, _) in rows.items() if errors} == {4: 1, 5: 1}
    failed = TranscriptEntry.objects.get(uuid=rows[4][2][signals.TOOL_ERRORS][0], source=session.transcript)
    assert failed.is_error and "nonexistent.txt" in failed.text
    boundaries = TranscriptEntry.objects.filter(source=session.transcript, subtype="compact_boundary").count()
    assert sum(compactions for _, compactions, _ in rows.values()) == boundaries > 0


def test_the_turns_tokens_add_up_to_the_trunks(session):
    assert sum(row[4] for row in stored(session)) == session.input_tokens + session.output_tokens + (
        session.cache_read_input_tokens + session.cache_creation_input_tokens
    )


def test_a_rebuild_writes_the_same_rows_again(session):
    before = stored(session)
    rebuild.rebuild_session(session)
    assert stored(session) == before


def test_the_rows_are_the_same_however_the_lines_are_chunked(session, monkeypatch):
    whole = [
        (r.number, r.prompt_entry_id, r.tool_errors, r.tokens, r.causes)
        for r in turn_outcomes.plan(session, session.transcript)
    ]
    for size in (1, 3, 7):
        monkeypatch.setattr(turn_outcomes, "CHUNK", size)
        chunked = turn_outcomes.plan(session, session.transcript)
        assert [(r.number, r.prompt_entry_id, r.tool_errors, r.tokens, r.causes) for r in chunked] == whole


def test_a_rebuild_reading_the_trunk_once_for_its_facts_and_its_outcomes_plans_the_same_rows(
    session, monkeypatch
):
    read = attrgetter(
        *(f.attname for f in TurnOutcome._meta.concrete_fields if f.name not in ("id", "session"))
    )

    def fields_of(rows):
        return [read(row) for row in rows]

    alone = fields_of(turn_outcomes.plan(session, session.transcript))
    assert len(alone) == 5 and any(row[2] for row in alone)  # the turns, with their failed commands
    for size in (1, 3, 7, 5000):
        monkeypatch.setattr(trunk_facts, "CHUNK", size)
        _, outcomes = trunk_pass.read(session, session.transcript)
        assert fields_of(outcomes) == alone


def test_each_conversation_line_reads_the_same_from_the_one_pass_as_alone(session):
    alone = dict(turn_outcomes.lines_of(session.transcript))
    parse = stamps.reader()
    once = {
        row[0]: trunk_pass.signal_line(row, trunk_pass.trunk_line(row, parse))
        for chunk in trunk_pass.chunks(session.transcript, 4)
        for row in chunk
        if not (row[trunk_pass.AT["inert"]] or row[trunk_pass.AT["is_copy"]])
    }
    assert once == alone
    assert any(line.tool_input for line in alone.values())  # a tool call's raw line was read
    assert any(line.is_prompt and line.text for line in alone.values())


def test_each_line_is_read_with_its_text_cut_as_the_signals_read_it(session):
    # Long texts are stored packed on SQLite (lib/packed_text.py): cut in SQL all the same.
    read = dict(turn_outcomes.lines_of(session.transcript))
    entries = TranscriptEntry.objects.filter(turn_outcomes.conversation_lines(session.transcript))
    assert any(
        len(entry.text.encode()) > linepack.TEXT_PACK_ABOVE and entry.type == "user" for entry in entries
    )
    for entry in entries:
        if entry.is_prompt:
            expected = entry.text[: turn_outcomes.PROMPT_CHARS]
        else:
            expected = entry.text[: turn_outcomes.HEAD] if entry.type == "user" else ""
        assert read[entry.pk].text == expected


def test_a_long_prompt_and_a_long_user_line_are_cut_alike_in_the_one_pass(home):
    def line(kind: str, uuid: str, parent: str | None, content: str) -> dict:
        return {
            "type": kind,
            "uuid": uuid,
            "parentUuid": parent,
            "sessionId": "long",
            "timestamp": "2026-11-29T10:00:01.000Z",
            "message": {"role": kind, "content": content},
        }

    home.transcript(
        "/home/dev/app",
        "long",
        line("user", "u1", None, "why " * 2000),  # a prompt of 8,000 characters
        line("assistant", "a1", "u1", "because"),
        line("user", "u2", "a1", "no, " * 600),  # a second prompt, cut to its correction cue's words
    )
    call_command("ingest", stdout=StringIO())
    trunk = Session.objects.get(sid="long").transcript
    parse = stamps.reader()
    once = [
        trunk_pass.signal_line(row, trunk_pass.trunk_line(row, parse))
        for chunk in trunk_pass.chunks(trunk, 2)
        for row in chunk
    ]

    assert once == [line for _, line in turn_outcomes.lines_of(trunk)]
    assert [len(line.text) for line in once] == [turn_outcomes.PROMPT_CHARS, 0, 2400]  # no reply text
