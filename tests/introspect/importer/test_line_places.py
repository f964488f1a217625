"""Every physical line is accounted for (models.PhysicalLine), though an event's own line has no
RawLine row: the event stands for it, a place an event leaves gets one, and so does a line whose
event another importer stored between this batch's look-up and its insert. A transcript line read
as one whole entry has none either: the entry stands for it, with the outcome the store gave it."""

from __future__ import annotations

import os

import orjson
import pytest
from django.db import connection

from introspect.importer import event_rows, loader
from introspect.importer.discovery import LIVE_RANK, Source
from introspect.models import PhysicalLine, RawLine, SourceFile, TranscriptEntry, WaysEvent
from lib import bulk
from lib.hashing import sha256
from tests.conftest import append, line

pytestmark = pytest.mark.django_db

LINES = [
    line(ts=f"2026-11-02T10:00:0{i}Z", event="way_fired", way=f"d/{i}", trigger="bash", session="s")
    for i in range(5)
]
SHAS = sorted(sha256(data.rstrip(b"\n")) for data in LINES)


def source(home, rel_path: str, rank: int) -> Source:
    return Source("events", home.state, rel_path, rank)


def lines_of(rel_path: str) -> list[tuple[int, str, str]]:
    rows = PhysicalLine.objects.filter(source__rel_path=rel_path)
    return sorted(rows.values_list("offset", "sha256", "outcome"))


def counts_add_up() -> None:
    for row in SourceFile.objects.all():
        assert row.lines_seen == row.imported + row.quarantined + row.inert + row.duplicate
        assert row.lines_seen == PhysicalLine.objects.filter(source=row).count(), row


def test_an_event_stands_for_the_line_it_was_read_from(home):
    append(home.live, *LINES)
    loader.import_file(source(home, "events.jsonl", LIVE_RANK))
    assert RawLine.objects.count() == 0
    assert sorted(sha for _, sha, _ in lines_of("events.jsonl")) == SHAS
    assert {outcome for _, _, outcome in lines_of("events.jsonl")} == {"imported"}
    counts_add_up()
    again = loader.import_file(source(home, "events.jsonl", LIVE_RANK), ignore_checkpoint=True)
    assert (again.counts.imported, again.counts.duplicate) == (0, 5)  # a replay: the events' lines known
    assert PhysicalLine.objects.count() == 5


def test_the_place_an_event_leaves_for_a_lower_ranked_copy_keeps_its_line(home):
    append(home.live, *LINES)
    loader.import_file(source(home, "events.jsonl", LIVE_RANK))
    before = lines_of("events.jsonl")
    append(home.state / "events-old.jsonl", *LINES)
    loader.import_file(source(home, "events-old.jsonl", 1))
    assert lines_of("events.jsonl") == before  # now RawLine rows: the events moved
    assert RawLine.objects.filter(source__rel_path="events.jsonl").count() == 5
    assert {outcome for _, _, outcome in lines_of("events-old.jsonl")} == {"duplicate"}
    assert set(WaysEvent.objects.values_list("source__rel_path", flat=True)) == {"events-old.jsonl"}
    counts_add_up()


def test_a_line_whose_event_another_importer_stored_first_gets_its_raw_row(home, monkeypatch):
    append(home.live, *LINES)
    loader.import_file(source(home, "events.jsonl", LIVE_RANK))
    original, calls = bulk.select_in, []

    def missed_once(model, names, field, values, **kwargs):
        # The other importer committed its events after this batch looked them up.
        calls.append(model)
        if model is WaysEvent and calls.count(WaysEvent) == 1:
            return []
        return original(model, names, field, values, **kwargs)

    monkeypatch.setattr(bulk, "select_in", missed_once)
    append(home.state / "events-other.jsonl", *LINES)
    result = loader.import_file(source(home, "events-other.jsonl", LIVE_RANK + 1))
    assert (result.counts.imported, result.counts.duplicate) == (0, 5)
    assert WaysEvent.objects.count() == 5
    assert sorted(sha for _, sha, _ in lines_of("events-other.jsonl")) == SHAS
    assert {outcome for _, _, outcome in lines_of("events-other.jsonl")} == {"duplicate"}
    counts_add_up()


def test_a_copy_another_importer_stored_first_is_settled_as_one_stored_before(home, monkeypatch):
    """A race lost is settled by the rules of a line stored before: here the lower ranked copy
    takes the event's place, and the place it leaves keeps its line."""
    append(home.live, *LINES)
    loader.import_file(source(home, "events.jsonl", LIVE_RANK))
    before = lines_of("events.jsonl")
    original, calls = bulk.select_in, []

    def missed_once(model, names, field, values, **kwargs):
        calls.append(model)
        if model is WaysEvent and calls.count(WaysEvent) == 1:
            return []  # the other importer's events, committed after this look-up
        return original(model, names, field, values, **kwargs)

    monkeypatch.setattr(bulk, "select_in", missed_once)
    append(home.state / "events-old.jsonl", *LINES)
    result = loader.import_file(source(home, "events-old.jsonl", 1))
    assert calls.count(WaysEvent) >= 2  # looked up again after the insert found them stored
    assert (result.counts.imported, result.counts.duplicate) == (0, 5)
    assert lines_of("events.jsonl") == before
    assert RawLine.objects.filter(source__rel_path="events.jsonl").count() == 5
    assert set(WaysEvent.objects.values_list("source__rel_path", flat=True)) == {"events-old.jsonl"}
    assert set(WaysEvent.objects.values_list("occurrences", flat=True)) == {1}
    counts_add_up()


def test_a_batch_of_new_and_stored_lines_stores_the_new_with_the_ids_a_look_up_first_gives(home):
    """The insert that finds lines stored is undone, ids and all (SQLite counts a row ON CONFLICT
    dropped), and the batch stored as a look-up first stores it: its new events' ids follow on."""
    append(home.live, LINES[1], LINES[3])
    loader.import_file(source(home, "events.jsonl", LIVE_RANK))
    first = sorted(WaysEvent.objects.values_list("id", flat=True))
    append(home.state / "events-old.jsonl", *LINES, LINES[3])  # 2 stored (one twice), 3 new
    result = loader.import_file(source(home, "events-old.jsonl", 1))
    assert (result.counts.imported, result.counts.duplicate) == (3, 3)
    ids = dict(WaysEvent.objects.values_list("way", "id"))
    if connection.vendor == "sqlite":  # a PostgreSQL sequence does not roll back with the insert
        assert [ids[f"d/{i}"] for i in (0, 2, 4)] == [first[-1] + 1, first[-1] + 2, first[-1] + 3]
    assert [ids["d/1"], ids["d/3"]] == first
    assert set(WaysEvent.objects.values_list("source__rel_path", flat=True)) == {"events-old.jsonl"}
    assert WaysEvent.objects.get(way="d/3").occurrences == 2  # a genuine repeat in its new source
    assert RawLine.objects.filter(source__rel_path="events.jsonl").count() == 2  # the places they left
    counts_add_up()


def test_a_source_of_copies_is_looked_up_first_until_a_batch_holds_none(home, monkeypatch):
    append(home.live, *LINES[:3])
    loader.import_file(source(home, "events.jsonl", LIVE_RANK))
    inserts = []
    original = bulk.insert_rows

    def counted(rows, **kwargs):
        if rows.model is WaysEvent:
            inserts.append(len(rows))
        return original(rows, **kwargs)

    monkeypatch.setattr(bulk, "insert_rows", counted)
    monkeypatch.setattr(event_rows, "COPIES", set())  # none of an earlier test's sources (their pks reused)
    other = source(home, "events-other.jsonl", LIVE_RANK + 1)
    append(home.state / "events-other.jsonl", *LINES[:3])
    assert loader.import_file(other).counts.duplicate == 3
    assert inserts == [3]  # inserted first: the insert found them stored (and was undone)
    row = SourceFile.objects.get(rel_path="events-other.jsonl")
    assert row.pk in event_rows.COPIES
    inserts.clear()
    append(home.state / "events-other.jsonl", LINES[0], LINES[3])
    assert loader.import_file(other).counts.imported == 1
    assert inserts == [1]  # looked up first: only the new line inserted
    assert row.pk in event_rows.COPIES  # the batch held a copy again (a repeat of d/0)
    inserts.clear()
    append(home.state / "events-other.jsonl", LINES[4])
    assert loader.import_file(other).counts.imported == 1
    assert inserts == [1] and row.pk not in event_rows.COPIES  # none: the next is inserted first
    assert sorted(WaysEvent.objects.values_list("way", flat=True)) == [f"d/{i}" for i in range(5)]
    assert WaysEvent.objects.get(way="d/0").occurrences == 1  # its copies are in two sources
    counts_add_up()


def said(session: str, n: int, **fields) -> bytes:
    """A transcript line: a user prompt with a uuid of its own, unless `fields` say otherwise."""
    body = {
        "type": "user",
        "uuid": f"{session}-u{n}",
        "sessionId": session,
        "timestamp": f"2026-11-02T10:00:{n:02d}.000Z",
        "message": {"role": "user", "content": f"prompt {n}"},
    }
    return orjson.dumps(body | fields)


def transcript(home, session: str, *lines: bytes, project: str = "-p") -> Source:
    projects = home.root / ".claude" / "projects"
    append(projects / project / f"{session}.jsonl", *(data + b"\n" for data in lines))
    return Source("transcript", projects, f"{project}/{session}.jsonl", 0, session)


def test_a_transcript_line_read_as_one_entry_is_that_entry(home):
    snapshot = orjson.dumps({"type": "file-history-snapshot", "uuid": "s-snap", "sessionId": "s"})
    last_prompt = orjson.dumps({"type": "last-prompt", "sessionId": "s"})  # inert, no node to keep
    spliced = said("s", 3) + said("s", 4)  # two records on one line
    lines = [said("s", 1), said("s", 2), snapshot, last_prompt, spliced]
    done = loader.import_file(transcript(home, "s", *lines))
    assert (done.counts.lines, done.counts.imported, done.counts.inert) == (5, 3, 2)
    offsets = [sum(len(data) + 1 for data in lines[:n]) for n in range(len(lines))]
    # RawLine rows only where no one entry stands for the line: the inert line without a node,
    # and the line of two records (whose entries sit at index 0 and 1 of its offset).
    assert sorted(RawLine.objects.values_list("offset", "outcome")) == [
        (offsets[3], "inert"),
        (offsets[4], "imported"),
    ]
    assert sorted(TranscriptEntry.objects.values_list("offset", "index")) == [
        (offsets[0], 0),
        (offsets[1], 0),
        (offsets[2], 0),
        (offsets[4], 0),
        (offsets[4], 1),
    ]
    assert lines_of("-p/s.jsonl") == [
        (offsets[0], sha256(lines[0]), "imported"),
        (offsets[1], sha256(lines[1]), "imported"),
        (offsets[2], sha256(snapshot), "inert"),
        (offsets[3], sha256(last_prompt), "inert"),
        (offsets[4], sha256(spliced), "imported"),
    ]
    counts_add_up()
    again = loader.import_file(transcript(home, "s"), ignore_checkpoint=True)
    assert (again.counts.imported, again.counts.duplicate) == (0, 5)  # a replay: every line known
    assert PhysicalLine.objects.count() == 5


def test_a_transcript_line_whose_uuid_another_file_holds_is_a_duplicate_its_entry_stands_for(home):
    loader.import_file(transcript(home, "s", said("s", 1)))
    # The session's file in a second project folder, repeating the first file's line.
    done = loader.import_file(transcript(home, "s", said("s", 1), said("s", 2), project="-q"))
    assert (done.counts.imported, done.counts.duplicate) == (1, 1)
    assert RawLine.objects.count() == 0
    assert [outcome for *_, outcome in lines_of("-q/s.jsonl")] == ["duplicate", "imported"]
    assert TranscriptEntry.objects.filter(source__rel_path="-q/s.jsonl", is_copy=True).count() == 1
    counts_add_up()


def test_a_transcript_line_of_an_older_database_is_its_raw_row_not_its_entry_again(home):
    lines = [said("s", 1), said("s", 2)]
    loader.import_file(transcript(home, "s", *lines))
    want = lines_of("-p/s.jsonl")
    row = SourceFile.objects.get(rel_path="-p/s.jsonl")
    # Before 0044 every line had its RawLine row beside its entry.
    RawLine.objects.bulk_create(
        RawLine(source=row, offset=offset, index=0, sha256=sha, length=1, outcome=outcome)
        for offset, sha, outcome in want
    )
    assert lines_of("-p/s.jsonl") == want
    assert PhysicalLine.objects.filter(source=row).count() == 2
    counts_add_up()


def test_a_transcript_line_rewritten_in_place_is_caught_by_verify_through_its_entry(home):
    lines = [said("s", n) for n in range(1, 40)]
    source = transcript(home, "s", *lines)
    loader.import_file(source)
    assert RawLine.objects.count() == 0  # every line stands as its entry
    assert loader.verify_file(source)  # nothing changed
    stat = source.path.stat()
    changed = lines[5].replace(b"prompt 6", b"prompt X")
    assert len(changed) == len(lines[5])
    with open(source.path, "r+b") as fh:
        fh.seek(sum(len(data) + 1 for data in lines[:5]))
        fh.write(changed)
    os.utime(source.path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert not loader.verify_file(source)  # read again from 0, as a new generation
    assert list(SourceFile.objects.order_by("generation").values_list("generation", "status")) == [
        (1, SourceFile.Status.SUPERSEDED),
        (2, SourceFile.Status.ACTIVE),
    ]
