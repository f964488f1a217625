"""Rows and the checkpoint move together: a crash between them loses and duplicates nothing."""

from __future__ import annotations

import pytest

from introspect.importer import batch, gzip_tail, loader, tailer
from introspect.importer.discovery import LIVE_RANK, Source
from introspect.models import PhysicalLine, SourceFile, WaysEvent
from lib import bulk
from lib.hashing import sha256
from tests.conftest import append, gzip_member, line

pytestmark = pytest.mark.django_db

LINES = [
    line(ts=f"2026-11-02T10:00:0{i}Z", event="way_fired", way=f"d/{i}", trigger="bash", session="s")
    for i in range(5)
]


class Crash(Exception):
    pass


def live(home) -> Source:
    return Source("events", home.state, "events.jsonl", LIVE_RANK)


def test_it_rolls_back_rows_when_the_process_dies_before_the_checkpoint(home, monkeypatch):
    append(home.live, *LINES)
    original = bulk.insert_rows

    def rows_then_crash(rows, **kwargs):
        original(rows, **kwargs)
        if rows.values and rows.model is WaysEvent:
            raise Crash("killed between the rows and the checkpoint")

    monkeypatch.setattr(loader.bulk, "insert_rows", rows_then_crash)
    with pytest.raises(Crash):
        loader.import_file(live(home))
    assert (WaysEvent.objects.count(), PhysicalLine.objects.count()) == (0, 0)
    assert SourceFile.objects.get().offset == 0

    monkeypatch.undo()
    result = loader.import_file(live(home))
    loader.import_file(live(home))
    assert result.counts.imported == 5
    assert sorted(WaysEvent.objects.values_list("way", flat=True)) == [f"d/{i}" for i in range(5)]
    assert SourceFile.objects.get().offset == home.live.stat().st_size


def test_it_refuses_a_batch_whose_checkpoint_another_importer_moved(home):
    append(home.live, *LINES)
    loader.import_file(live(home))
    row = SourceFile.objects.get()
    append(home.live, line(ts="2026-11-02T10:01:00Z", event="session_start", session="s"))
    chunk = tailer.read_chunk(home.live, loader.checkpoint_of(row))
    with pytest.raises(batch.CheckpointMoved):
        batch.load_batch(row, chunk, expected_offset=row.offset - 1)
    assert WaysEvent.objects.count() == 5
    assert SourceFile.objects.get().offset == row.offset


def test_it_commits_in_batches_of_at_most_batch_lines(home, monkeypatch):
    append(home.live, *(line(ts="2026-11-02T10:00:00Z", event="x", n=i) for i in range(2500)))
    batches = []
    original = batch.load_batch

    def counting(row, chunk, **kwargs):
        batches.append(len(chunk.lines))
        return original(row, chunk, **kwargs)

    monkeypatch.setattr(batch, "load_batch", counting)
    loader.import_file(live(home))
    assert batches == [1000, 1000, 500]
    assert WaysEvent.objects.count() == 2500


def test_it_quarantines_a_corrupt_archive_member_and_keeps_the_rest(home):
    good = gzip_member(LINES[0])
    broken = gzip_member(*(LINES[1:3] * 300))
    tail = gzip_member(LINES[4])
    append(home.archive("2026-11-01"), good, broken[:-30], tail)
    source = Source("events_archive", home.state, "events-2026-11-01.jsonl.gz", 20261101)
    result = loader.import_file(source)
    assert set(WaysEvent.objects.values_list("way", flat=True)) >= {"d/0", "d/4"}
    row = SourceFile.objects.get()
    assert row.quarantine.get().reason == "gzip_corrupt"
    assert result.counts.quarantined == 1


MANY = [line(ts="2026-11-02T10:00:00Z", event="x", n=i) for i in range(2500)]


def archive(home, *members: bytes) -> Source:
    append(home.archive("2026-11-01"), *members)
    return Source("events_archive", home.state, "events-2026-11-01.jsonl.gz", 20261101)


def member_position(row: SourceFile) -> tuple[int, int, int]:
    row.refresh_from_db()
    return row.offset, row.member_bytes, row.member_lines


def test_it_commits_an_archive_member_in_batches_of_at_most_batch_lines(home, monkeypatch):
    source = archive(home, gzip_member(*MANY))
    positions = []
    original = batch.load_batch

    def recording(row, chunk, **kwargs):
        out = original(row, chunk, **kwargs)
        positions.append((len(chunk.lines), member_position(row)))
        return out

    monkeypatch.setattr(batch, "load_batch", recording)
    loader.import_file(source)
    size = home.archive("2026-11-01").stat().st_size
    # Inside the member the checkpoint is its start plus the lines (and bytes) committed of it.
    assert positions == [
        (1000, (0, sum(map(len, MANY[:1000])), 1000)),
        (1000, (0, sum(map(len, MANY[:2000])), 2000)),
        (500, (size, 0, 0)),
    ]


def test_it_resumes_an_archive_member_after_a_kill_between_batches_with_the_same_rows(home, monkeypatch):
    source = archive(home, gzip_member(*MANY))
    original = bulk.insert_rows
    batches = []

    def second_batch_dies(rows, **kwargs):
        inserted = original(rows, **kwargs)
        if rows.values and rows.model is WaysEvent:
            batches.append(len(rows))
            if len(batches) == 2:
                raise Crash("killed inside the member, between the rows and the checkpoint")
        return inserted  # as insert_rows answers: the events store reads it

    monkeypatch.setattr(loader.bulk, "insert_rows", second_batch_dies)
    with pytest.raises(Crash):
        loader.import_file(source)
    row = SourceFile.objects.get()
    assert member_position(row) == (0, sum(map(len, MANY[:1000])), 1000)
    assert PhysicalLine.objects.count() == WaysEvent.objects.count() == 1000

    monkeypatch.undo()
    result = loader.import_file(source)  # a new run: the member is inflated again and skipped into
    assert (result.counts.imported, result.counts.duplicate) == (1500, 0)
    assert sorted(PhysicalLine.objects.values_list("offset", "index", "sha256")) == [
        (0, i, sha256(text.rstrip(b"\n"))) for i, text in enumerate(MANY)
    ]
    assert sorted(WaysEvent.objects.values_list("order_offset", "order_index")) == [
        (0, i) for i in range(2500)
    ]
    assert member_position(row) == (home.archive("2026-11-01").stat().st_size, 0, 0)
    assert (row.lines_seen, row.imported) == (2500, 2500)


def test_it_replays_an_archive_without_new_rows_or_moving_its_checkpoint_back(home):
    source = archive(home, gzip_member(*MANY[:1500]), gzip_member(*MANY[1500:]))
    loader.import_file(source)
    row = SourceFile.objects.get()
    end = member_position(row)
    again = loader.import_file(source, ignore_checkpoint=True)
    assert (again.counts.imported, again.counts.duplicate) == (0, 2500)
    assert member_position(row) == end
    assert PhysicalLine.objects.count() == WaysEvent.objects.count() == 2500


def test_it_refuses_a_batch_whose_member_position_another_importer_moved(home):
    source = archive(home, gzip_member(*MANY[:1500]))
    loader.import_file(source)
    row = SourceFile.objects.get()
    with gzip_tail.GzipTail(source.path) as tail:
        chunk = tail.chunk(None, max_lines=10)
    SourceFile.objects.filter(pk=row.pk).update(offset=0, member_bytes=5, member_lines=1)
    row.refresh_from_db()
    with pytest.raises(batch.CheckpointMoved):
        batch.load_batch(row, chunk, expected_offset=0, expected_member_bytes=0)
    assert member_position(row) == (0, 5, 1)


def test_it_picks_up_a_member_appended_to_an_archive(home):
    first = gzip_member(*MANY[:3])
    source = archive(home, first)
    loader.import_file(source)
    append(source.path, gzip_member(*MANY[3:5]))
    result = loader.import_file(source)
    assert (result.status, result.counts.imported) == ("read", 2)
    assert sorted(PhysicalLine.objects.values_list("offset", "index"))[-2:] == [
        (len(first), 0),
        (len(first), 1),
    ]
    assert member_position(SourceFile.objects.get()) == (source.path.stat().st_size, 0, 0)
