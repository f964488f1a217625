"""A pass restricted to the paths a watcher reported reads those files alone, and lands the same rows
as a pass over every file; a path it does not know makes it a whole pass."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from django.conf import settings
from django.db import models, transaction

from introspect.importer import discovery, run
from introspect.importer.run import Options, PassResult
from introspect.models import RawLine, Session, SourceFile, TranscriptEntry, Turn, WaysEvent
from lib import locations
from tests.conftest import append, line
from waysweb import passes

pytestmark = pytest.mark.django_db

S1 = "5e551011-0000-4000-8000-000000000001"
S2 = "5e551011-0000-4000-8000-000000000002"


def said(uuid: str, second: int, text: str) -> bytes:
    """A prompt line of a Claude Code transcript."""
    entry = {
        "type": "user",
        "uuid": uuid,
        "parentUuid": None,
        "sessionId": S1,
        "timestamp": f"2026-11-02T10:00:{second:02d}.000Z",
        "cwd": "/home/dev/app",
        "message": {"role": "user", "content": text},
    }
    return orjson.dumps(entry) + b"\n"


def fired(second: int, session: str = S1) -> bytes:
    return line(
        ts=f"2026-11-02T10:00:{second:02d}Z", event="way_fired", way="d/a", trigger="bash", session=session
    )


@pytest.fixture
def tree(home):
    """A live log, a legacy log and two sessions' transcripts, imported once by a follower (its
    listings kept)."""
    append(home.live, line(ts="2026-11-02T10:00:00Z", event="session_start", project="/p", session=S1))
    append(home.legacy, line(ts="2026-11-01T09:00:00Z", event="session_start", project="/q", session=S2))
    home.one = home.transcript("/home/dev/app", S1)
    home.two = home.transcript("/home/dev/web", S2)
    append(home.one, said("u1", 1, "first"))
    append(home.two, said("v1", 1, "other"))
    home.cache = discovery.ListingCache()
    passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False, listings=home.cache))
    return home


def follow(home, only: set[Path] | None) -> PassResult:
    changed = None if only is None else frozenset(Path(os.path.abspath(path)) for path in only)
    return passes.sessions_pass(
        settings.WAYSWEB_LOCATIONS, Options(ways=False, listings=home.cache, only=changed)
    )


def rows() -> dict[str, list[tuple]]:
    """Every row the import and the derive write, without ids and write times (which differ between
    two runs of the same import on PostgreSQL, whose sequences do not roll back)."""

    def kept(field: models.Field) -> bool:
        automatic = getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False)
        return field.attname != "id" and not field.attname.endswith("_id") and not automatic

    found = {}
    for model in (SourceFile, RawLine, WaysEvent, TranscriptEntry, Session, Turn):
        names = [field.attname for field in model._meta.concrete_fields if kept(field)]
        found[model.__name__] = sorted(model.objects.values_list(*names), key=repr)
    return found


class RolledBack(Exception):
    pass


def whole_pass_rows(home) -> dict[str, list[tuple]]:
    """The rows a whole pass would leave, the database put back as it was after."""
    try:
        with transaction.atomic():
            follow(home, None)
            found = rows()
            raise RolledBack
    except RolledBack:
        return found


def read(result: PassResult) -> set[Path]:
    return {file.source.path for file in result.files}


def test_it_reads_only_the_changed_files_and_lands_what_a_whole_pass_lands(tree):
    append(tree.live, fired(5))
    append(tree.one, said("u2", 6, "second"))
    expected = whole_pass_rows(tree)

    result = follow(tree, {tree.live, tree.one})

    assert not result.whole
    assert read(result) == {tree.live, tree.one}  # the legacy log and the other transcript not even stat'ed
    assert (result.totals.lines, result.totals.imported) == (2, 2)
    assert rows() == expected
    assert follow(tree, None).totals.lines == 0  # nothing left behind for a whole pass


def test_a_file_changed_but_not_reported_waits_for_a_whole_pass(tree):
    append(tree.live, fired(5))
    append(tree.two, said("v2", 6, "unreported"))
    assert follow(tree, {tree.live}).totals.lines == 1
    assert not TranscriptEntry.objects.filter(uuid="v2").exists()
    assert follow(tree, None).totals.lines == 1
    assert TranscriptEntry.objects.filter(uuid="v2").exists()


def test_a_path_it_does_not_know_makes_it_a_whole_pass(tree):
    three = tree.transcript("/home/dev/app", "5e551011-0000-4000-8000-000000000003")
    append(three, said("w1", 7, "a new session"))
    append(tree.two, said("v2", 8, "written meanwhile"))

    result = follow(tree, {three})

    assert result.whole
    assert {three, tree.two} <= read(result)
    assert set(TranscriptEntry.objects.values_list("uuid", flat=True)) == {"u1", "v1", "v2", "w1"}
    assert follow(tree, {three}).whole is False  # listed now: the next change to it is read alone


def test_a_deleted_file_it_was_told_of_is_marked_gone_and_keeps_its_rows(tree):
    tree.legacy.unlink()

    result = follow(tree, {tree.legacy})

    assert not result.whole and [file.status for file in result.files] == ["gone"]
    assert SourceFile.objects.get(kind="events_legacy").status == "gone"
    assert WaysEvent.objects.filter(session_key=S2).count() == 1


def test_a_pass_with_no_listing_yet_reads_everything(home):
    append(home.live, fired(5))
    result = passes.sessions_pass(
        settings.WAYSWEB_LOCATIONS, Options(ways=False, only=frozenset({home.live}))
    )
    assert result.whole and result.totals.imported == 1


@pytest.fixture
def two_claude_dirs(home, settings):
    """CLAUDE_CONFIG_DIR naming two Claude directories (work and personal), as ccusage reads it."""
    work, personal = home.root / "work-claude", home.root / "personal-claude"
    env = {"HOME": str(home.root), "CLAUDE_CONFIG_DIR": f"{work}, {personal}"}
    settings.WAYSWEB_LOCATIONS = locations.resolve(env)
    return work, personal


def transcript_in(claude: Path, session: str, *lines: bytes) -> Path:
    return append(claude / "projects" / "-home-dev-app" / f"{session}.jsonl", *lines)


def test_every_claude_directory_listed_is_read_transcripts_and_legacy_log(two_claude_dirs):
    work, personal = two_claude_dirs
    transcript_in(work, S1, said("u1", 1, "at work"))
    transcript_in(personal, S2, said("v1", 1, "at home").replace(S1.encode(), S2.encode()))
    append(personal / "stats" / "events.jsonl", fired(2, session=S2))
    passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False))
    assert set(Session.objects.values_list("sid", flat=True)) == {S1, S2}
    roots = set(SourceFile.objects.values_list("root", flat=True))
    assert {str(work / "projects"), str(personal / "projects"), str(personal / "stats")} <= roots
    assert WaysEvent.objects.filter(session__sid=S2, event="way_fired").count() == 1


def test_a_session_in_two_claude_directories_is_one_session(two_claude_dirs):
    work, personal = two_claude_dirs
    transcript_in(work, S1, said("u1", 1, "first"))
    transcript_in(personal, S1, said("u1", 1, "first"), said("u2", 2, "then"))  # a copied, longer history
    passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False))
    assert list(Session.objects.values_list("sid", flat=True)) == [S1]
    assert TranscriptEntry.objects.filter(session__sid=S1, is_copy=False).count() == 2


def test_a_link_out_of_any_claude_directory_is_not_read(two_claude_dirs, tmp_path):
    work, personal = two_claude_dirs
    outside = append(tmp_path / "elsewhere" / "secret.jsonl", said("x1", 1, "not yours to show"))
    transcript_in(work, S1, said("u1", 1, "first"))
    folder = personal / "projects" / "-home-dev-app"
    folder.mkdir(parents=True)
    (folder / f"{S2}.jsonl").symlink_to(outside)
    append(personal / "stats" / "x.jsonl", fired(1))
    (personal / "stats" / "events.jsonl").symlink_to(outside)
    result = passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False))
    refused = {problem.path for problem in result.problems}
    assert {str(folder / f"{S2}.jsonl"), str(personal / "stats" / "events.jsonl")} <= refused
    assert not TranscriptEntry.objects.filter(session__sid=S2).exists()
    assert not SourceFile.objects.filter(root=str(personal / "stats")).exists()


def test_a_session_is_settled_once_no_file_still_to_read_holds_it(tmp_path):
    def source(kind: str, rel: str, session: str = "") -> discovery.Source:
        return discovery.Source(kind, tmp_path, rel, 0, session, "")

    trunk = source("transcript", "p/a.jsonl", "a")
    agent = source("subagent_transcript", "p/a/subagents/agent-1.jsonl", "a")
    other = source("transcript", "p/b.jsonl", "b")
    unkeyed = source("subagent_transcript", "p/agent-2.jsonl")
    unchanged = source("transcript", "p/c.jsonl", "c")
    found = [trunk, agent, other, unkeyed, unchanged]
    still = run.StillToRead(found, {(str(tmp_path), s.rel_path): None for s in found[:-1]})
    for read in (trunk, agent, other):
        still.read(read)
    assert not still.settled("a")  # a file of no one session may still hold any
    still.read(unkeyed)
    assert still.settled("a") and still.settled("b") and still.settled("c")
    still = run.StillToRead([trunk, agent, other], {(str(tmp_path), s.rel_path): None for s in found})
    still.read(trunk)
    assert not still.settled("a") and not still.settled("b")
    still.read(agent)
    still.read(agent)  # read again (a file named twice): counted once
    assert still.settled("a") and not still.settled("b")
