"""A rebuild reads a session's trunk a chunk of lines at a time, and derives what reading every
line at once derives: the same rows whatever the chunk, the same prompt turns as the whole file's map."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.conf import settings

from introspect.derive import rebuild, session_inputs, trunk_facts, trunk_pass
from introspect.importer.run import Options
from introspect.models import Session, SourceFile, TranscriptEntry
from introspect.rules import join
from lib import stamps
from tests.introspect.derive.test_extend import snapshot
from waysweb import passes

pytestmark = pytest.mark.django_db

SAMPLE = Path(__file__).resolve().parents[3] / "sample" / "home"
SMALL = 3  # lines a chunk: every sample trunk with a prompt is longer


def import_sample(home) -> None:
    shutil.copytree(SAMPLE, home.root, dirs_exist_ok=True)
    passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False))


def rebuilt(monkeypatch, chunk: int) -> dict:
    monkeypatch.setattr(trunk_facts, "CHUNK", chunk)
    for session in Session.objects.all():
        rebuild.rebuild_session(session)
    return snapshot()


def lines_in_chunks(trunk: SourceFile, size: int) -> list[list[session_inputs.TrunkLine]]:
    parse = stamps.reader()
    return [[trunk_pass.trunk_line(row, parse) for row in chunk] for chunk in trunk_pass.chunks(trunk, size)]


def whole_file(trunk: SourceFile) -> list[session_inputs.TrunkLine]:
    (lines,) = lines_in_chunks(trunk, 10**9)
    return lines


def facts_of(trunk: SourceFile, chunk: int, monkeypatch) -> trunk_facts.TrunkFacts:
    """The facts a rebuild reads of the trunk, `chunk` lines at a time."""
    monkeypatch.setattr(trunk_facts, "CHUNK", chunk)
    facts, _ = trunk_pass.read(Session(sid=trunk.session_key), trunk)
    return facts


def turns_of(found: list[join.PromptTurn]) -> list[tuple]:
    return [(turn.second, turn.user_uuid, turn.injection.pk) for turn in found]


def test_the_sample_rebuilt_a_few_lines_at_a_time_has_the_rows_of_a_one_chunk_rebuild(home, monkeypatch):
    import_sample(home)
    trunks = SourceFile.objects.filter(pk__in=Session.objects.values("transcript_id"))
    assert max(TranscriptEntry.objects.filter(source=trunk).count() for trunk in trunks) > 20 * SMALL
    one_chunk = rebuilt(monkeypatch, 10**9)
    assert any(turn[6] == "keyed" for turn in one_chunk["turns"])  # the join really ran
    assert any(s["compaction_marks"] for s in one_chunk["sessions"].values())

    assert rebuilt(monkeypatch, SMALL) == one_chunk


def test_the_lines_of_a_trunk_come_in_file_order_however_they_are_chunked(home):
    import_sample(home)
    for trunk in SourceFile.objects.filter(kind=SourceFile.Kind.TRANSCRIPT):
        chunks = lines_in_chunks(trunk, SMALL)
        assert all(0 < len(chunk) <= SMALL for chunk in chunks)
        assert [line for chunk in chunks for line in chunk] == whole_file(trunk)


def test_each_sample_trunks_prompt_turns_are_those_of_the_whole_files_map(home, monkeypatch):
    import_sample(home)
    keyed = 0
    for trunk in SourceFile.objects.filter(kind=SourceFile.Kind.TRANSCRIPT):
        facts = facts_of(trunk, SMALL, monkeypatch)
        found = turns_of(trunk_facts.prompt_turns(trunk, facts.injections))
        assert found == turns_of(join.prompt_turns(whole_file(trunk)))
        assert facts.no_match_reason() == join.no_match_reason(whole_file(trunk), found)
        keyed += len(found)
    assert keyed > 10


def at(second: int) -> str:
    return f"2026-11-29T10:00:{second:02d}.000Z"


def line(kind: str, uuid: str, parent: str | None, second: int, **extra) -> dict:
    return {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": "walks",
        "timestamp": at(second),
        "version": "2.1.180",
        "cwd": "/home/dev/app",
        **extra,
    }


def injection(uuid: str, parent: str, second: int) -> dict:
    return line(
        "attachment",
        uuid,
        parent,
        second,
        attachment={"type": "hook_additional_context", "hookEvent": "UserPromptSubmit", "content": ["x"]},
    )


def prompt(uuid: str, parent: str | None, second: int) -> dict:
    return line("user", uuid, parent, second, message={"role": "user", "content": f"prompt {uuid}"})


def test_a_walk_reads_the_first_line_of_each_uuid_over_hops_forward_and_back(home, monkeypatch):
    home.transcript(
        "/home/dev/app",
        "walks",
        prompt("u1", None, 1),
        injection("i1", "u1", 1),  # one hop
        line("progress", "p1", "u1", 2),
        line("progress", "p2", "p1", 3),
        injection("i2", "p2", 3),  # three hops, back through two progress lines
        injection("i3", "later", 4),  # its parent comes after it in the file
        line("system", "later", "u2", 5),
        prompt("u2", None, 5),
        prompt("u2", "u1", 6),  # a repeated uuid: the walk stops at its first line
        injection("i4", "nowhere", 7),  # a parent that is no line of the file
        line("assistant", "loop", "loop", 8),
        injection("i5", "loop", 8),  # a parent chain longer than the walk goes
    )
    passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False))
    trunk = SourceFile.objects.get(kind=SourceFile.Kind.TRANSCRIPT)
    facts = facts_of(trunk, 2, monkeypatch)

    found = trunk_facts.prompt_turns(trunk, facts.injections)

    assert [(turn.injection.uuid, turn.user_uuid) for turn in found] == [
        ("i1", "u1"),
        ("i2", "u1"),
        ("i3", "u2"),
    ]
    assert turns_of(found) == turns_of(join.prompt_turns(whole_file(trunk)))
    last_u2 = TranscriptEntry.objects.filter(uuid="u2").order_by("offset").last()
    assert trunk_facts.last_lines(trunk, {"u2", "gone"}) == {"u2": trunk_facts.LineRef(last_u2.pk)}
