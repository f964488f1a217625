"""Spilled outputs are never lost: a placeholder commits with its stub line, and every pass looks
for the spills still not found, within a bound (introspect/importer/spills.py)."""

from __future__ import annotations

import importlib
import os
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext

from introspect.importer import spills
from introspect.models import SourceFile, Spill, TranscriptEntry
from lib.hashing import sha256
from tests.faults.conftest import entry, jsonl, spill_stub

pytestmark = pytest.mark.django_db

healing = importlib.import_module("introspect.migrations.0022_spill_placeholders_retried")


class Crash(BaseException):
    """A kill, as far as the importer can tell: not an error a file's content could cause, which the
    pass would report for that file and go on past."""


def ingest(*args: str) -> None:
    call_command("ingest", "--no-ways", *args, stdout=StringIO(), stderr=StringIO())


def later(seconds: float) -> None:
    """As if `seconds` had passed since every look so far."""
    Spill.objects.exclude(due_at=None).update(due_at=F("due_at") - timedelta(seconds=seconds))


def session_with_stubs(home, *names: str, session: str = "s1"):
    """A trunk transcript whose lines name these spilled outputs; returns its tool-results folder."""
    path = home.transcript("/p", session, *(spill_stub(session, n, name) for n, name in enumerate(names)))
    return path.with_suffix("") / "tool-results"


def spill_file(folder, name: str, text: str = "the whole output") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)


def test_a_stub_line_and_its_placeholder_commit_together_or_not_at_all(home, monkeypatch):
    folder = session_with_stubs(home, "a.txt")
    spill_file(folder, "a.txt")
    place = spills.place

    def killed(source, rows):
        place(source, rows)
        raise Crash("killed after the placeholders, before the batch committed")

    monkeypatch.setattr(spills, "place", killed)
    with pytest.raises(Crash):
        ingest()
    assert not TranscriptEntry.objects.exists() and not Spill.objects.exists()
    assert SourceFile.objects.get().offset == 0  # the line will be read again, with its placeholder
    monkeypatch.undo()
    ingest()
    assert list(Spill.objects.values_list("name", "found", "text")) == [("a.txt", True, "the whole output")]


def test_a_pass_killed_before_it_read_the_spills_leaves_placeholders_the_next_pass_reads(home, monkeypatch):
    folder = session_with_stubs(home, "a.txt", "b.txt")
    spill_file(folder, "a.txt")
    spill_file(folder, "b.txt", "second")

    def killed(**kwargs):
        raise Crash("killed after every batch committed")

    monkeypatch.setattr(spills, "read_due", killed)
    with pytest.raises(Crash):
        ingest()
    waiting = Spill.objects.order_by("name")
    assert [(s.name, s.found, s.looks, s.due_at is not None) for s in waiting] == [
        ("a.txt", False, 0, True),
        ("b.txt", False, 0, True),
    ]
    monkeypatch.undo()
    ingest()  # the transcript is unchanged: nothing of it is read again
    assert SourceFile.objects.get().lines_seen == 2
    assert list(waiting.values_list("name", "found", "text", "due_at")) == [
        ("a.txt", True, "the whole output", None),
        ("b.txt", True, "second", None),
    ]


def test_a_spill_written_after_its_stub_is_found_by_a_later_pass_without_the_transcript_changing(home):
    folder = session_with_stubs(home, "late.txt")
    ingest()
    spill = Spill.objects.get()
    assert (spill.found, spill.looks, spill.problem) == (False, 1, "")
    assert spill.due_at - spill.looked_at == timedelta(seconds=30)
    spill_file(folder, "late.txt", "written late")
    ingest()  # not due yet: not looked at (no open, no stat)
    assert Spill.objects.get().looks == 1
    later(30)
    ingest()
    spill = Spill.objects.get()
    assert (spill.found, spill.text, spill.looks, spill.due_at) == (True, "written late", 2, None)
    assert SourceFile.objects.get().lines_seen == 1  # the transcript gained nothing


def test_a_missing_spill_is_looked_for_after_30_s_then_twice_as_long_each_time_up_to_a_day(home):
    assert [spills.wait_after(n) for n in (1, 2, 3, 4)] == [timedelta(seconds=s) for s in (30, 60, 120, 240)]
    assert spills.wait_after(13) == spills.wait_after(1000) == timedelta(days=1)
    session_with_stubs(home, "never.txt")
    ingest()
    for looks in (2, 3, 4):
        spill = Spill.objects.get()
        later((spill.due_at - spill.looked_at).total_seconds())
        ingest()
        spill = Spill.objects.get()
        assert spill.looks == looks and spill.due_at - spill.looked_at == spills.wait_after(looks)


def test_a_pass_looks_for_every_new_placeholder_but_retries_at_most_its_share(home, monkeypatch):
    monkeypatch.setattr(spills, "RETRIES_PER_PASS", 3)
    path = home.transcript("/p", "s1", *(spill_stub("s1", n, f"old-{n}.txt") for n in range(5)))
    ingest()
    later(30)
    with open(path, "ab") as fh:
        for n in range(5, 9):
            fh.write(jsonl(spill_stub("s1", n, f"new-{n}.txt")))
    ingest()
    looks = dict(Spill.objects.values_list("name", "looks"))
    assert sorted(looks[f"new-{n}.txt"] for n in range(5, 9)) == [1, 1, 1, 1]
    assert sorted(looks[f"old-{n}.txt"] for n in range(5)) == [1, 1, 2, 2, 2]


def test_a_spill_is_no_longer_looked_for_once_its_transcript_is_deleted(home):
    folder = session_with_stubs(home, "gone.txt")
    ingest()
    os.unlink(folder.parent.with_suffix(".jsonl"))
    ingest()
    assert SourceFile.objects.get().status == SourceFile.Status.GONE
    later(3600)
    ingest()
    assert Spill.objects.get().looks == 1


def test_ignore_checkpoints_looks_for_every_spill_not_found_at_once(home):
    folder = session_with_stubs(home, "late.txt")
    ingest()
    spill_file(folder, "late.txt", "here now")
    ingest("--ignore-checkpoints")
    assert Spill.objects.get().text == "here now"


def test_a_subagents_spill_is_read_from_its_sessions_folder(home):
    trunk = home.transcript("/p", "s1", entry("s1", 0))
    session = trunk.with_suffix("")
    agent = spill_stub("s1", 1, "agent.txt", isSidechain=True, agentId="a1")
    (session / "subagents").mkdir(parents=True)
    (session / "subagents" / "agent-a1.jsonl").write_bytes(jsonl(agent))
    spill_file(session / "tool-results", "agent.txt", "the agent's output")
    ingest()
    assert list(Spill.objects.values_list("name", "found", "text")) == [
        ("agent.txt", True, "the agent's output")
    ]


def test_an_assistant_quoting_a_stub_names_no_spill(home):
    quoted = spill_stub("s1", 1, "quoted.txt")["message"]["content"][0]["content"]
    home.transcript("/p", "s1", entry("s1", 0, kind="assistant", text=f"The stub reads:\n{quoted}"))
    ingest()
    assert TranscriptEntry.objects.count() == 1 and not Spill.objects.exists()


def test_a_spill_refused_by_the_root_keeps_its_reason_and_is_never_read(home, tmp_path):
    folder = session_with_stubs(home, "leak.txt")
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    folder.mkdir(parents=True)
    (folder / "leak.txt").symlink_to(secret)
    ingest()
    spill = Spill.objects.get()
    assert (spill.found, spill.text, spill.problem) == (False, "", "leaves_root")
    assert spill.problem_label == "skipped: leaves its root"


def test_a_stub_names_only_a_plain_file_name_each_once():
    def stub(path: str) -> str:
        return f"<persisted-output>\nOutput too large. Full output saved to: {path}\n</persisted-output>"

    text = "".join(
        stub(path)
        for path in (
            "~/.claude/projects/-p/s1/tool-results/out-1.txt",
            "/anywhere/else/../../etc/passwd",  # a path is data: only its last part is looked up
            "~/.claude/projects/-p/s1/tool-results/out-1.txt",
            "~/.claude/projects/-p/s1/tool-results/$(rm -rf ~)",
        )
    )
    assert spills.named_spills(text) == ["out-1.txt", "passwd"]
    assert spills.named_spills("Full output saved to: out.txt") == []  # no stub around it
    assert spills.named_spills(None) == []


def test_a_spill_is_looked_for_in_its_sessions_tool_results_folder_only():
    kind = SourceFile.Kind
    assert spills.spill_folder(kind.TRANSCRIPT, "/projects", "-p/s1.jsonl") == Path(
        "/projects/-p/s1/tool-results"
    )
    assert spills.spill_folder(
        kind.SUBAGENT_TRANSCRIPT, "/projects", "-p/s1/subagents/agent-a.jsonl"
    ) == Path("/projects/-p/s1/tool-results")
    # A legacy subagent file beside the sessions has no session folder; an events log has none.
    assert spills.spill_folder(kind.SUBAGENT_TRANSCRIPT, "/projects", "-p/agent-a.jsonl") is None
    assert spills.spill_folder(kind.EVENTS, "/state", "events.jsonl") is None


def test_a_spill_larger_than_the_cap_is_kept_up_to_it_as_text_without_nuls(home, monkeypatch):
    monkeypatch.setattr(spills, "MAX_SPILL_BYTES", 8)
    folder = session_with_stubs(home, "big.bin")
    folder.mkdir(parents=True)
    data = b"ab\x00\xffcdef and the rest"
    (folder / "big.bin").write_bytes(data)
    ingest()
    spill = Spill.objects.get()
    assert (spill.found, spill.size, spill.truncated) == (True, len(data), True)  # the size on disk
    assert spill.text == "ab\ufffd\ufffdcdef"
    assert spill.sha256 == sha256(b"ab\x00\xffcdef")  # of the bytes kept, as read


def test_migration_0022_gives_each_stub_line_its_placeholders_and_makes_every_spill_not_found_due(home):
    # Before it, a spill's row was written only after the whole pass: a pass cut short lost them.
    path = home.transcript(
        "/p",
        "s1",
        spill_stub("s1", 0, "lost.txt"),
        spill_stub("s1", 1, "kept.txt", hook=True),
        entry("s1", 2, kind="assistant", text="<persisted-output>Full output saved to: x/quoted.txt"),
    )
    ingest()
    Spill.objects.filter(name="lost.txt").delete()  # as the old import lost it
    Spill.objects.update(due_at=None, looks=0)  # as the old import left a spill not found
    folder = path.with_suffix("") / "tool-results"
    folder.mkdir(parents=True)
    (folder / "lost.txt").write_text("found after all")
    (folder / "kept.txt").write_text("kept")

    healing.heal(apps, None)
    healing.heal(apps, None)  # twice: nothing more
    assert sorted((s.name, s.found, s.due_at is not None) for s in Spill.objects.all()) == [
        ("kept.txt", False, True),
        ("lost.txt", False, True),
    ]
    ingest()
    assert sorted(Spill.objects.values_list("name", "text")) == [
        ("kept.txt", "kept"),
        ("lost.txt", "found after all"),
    ]


def test_a_pass_with_no_spill_due_asks_one_query_and_a_spill_falling_due_is_looked_for(home):
    folder = session_with_stubs(home, "later.txt")
    ingest()
    with CaptureQueriesContext(connection) as context:
        assert spills.read_due() == spills.Looked()  # its first look was just now: not due
    assert len(context) == 1
    spill_file(folder, "later.txt", "written later")
    assert spills.read_due(now=Spill.objects.get().due_at) == spills.Looked(found=1)
    assert spills.read_due(everything=True) == spills.Looked()  # found: due no more
    assert Spill.objects.get().text == "written later"


def test_the_due_spills_are_found_from_the_spills_due_index_not_from_every_transcript_line(home):
    """A follower looks for due spills on every pass: read from the lines of every file, that was a
    fifth of an appended line's pass on a large history (issue 29)."""
    session_with_stubs(home, "a.txt")
    ingest()
    sql = spills.DUE.format(
        spill=Spill._meta.db_table,
        entry=TranscriptEntry._meta.db_table,
        source=SourceFile._meta.db_table,
        due="s.due_at IS NOT NULL",
        limit="",
    )
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN QUERY PLAN " + sql, ["active", "host"])
            plan = [row[-1] for row in cursor.fetchall()]
        assert "introspect_spill_due_at" in plan[0], plan
    with CaptureQueriesContext(connection) as queries:
        assert spills.read_due() == spills.Looked()  # looked for once already, due again in 30 s
    assert len(queries) == 1  # the due_at index asked once
