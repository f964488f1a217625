"""Rows and the checkpoint move together: a crash between them loses and duplicates nothing."""

from __future__ import annotations

import pytest

from introspect.importer import loader, tailer
from introspect.importer.sources import LIVE_RANK, Source
from introspect.models import RawLine, SourceFile, WaysEvent
from tests.conftest import append, line

pytestmark = pytest.mark.django_db

LINES = [line(ts=f"2026-11-02T10:00:0{i}Z", event="way_fired", way=f"d/{i}", trigger="bash", session="s")
         for i in range(5)]


class Crash(Exception):
    pass


def live(home) -> Source:
    return Source("events", home.state, "events.jsonl", LIVE_RANK)


def test_it_rolls_back_rows_when_the_process_dies_before_the_checkpoint(home, monkeypatch):
    append(home.live, *LINES)
    original = loader.bulk.insert_ignore

    def rows_then_crash(objs, **kwargs):
        original(objs, **kwargs)
        if objs and isinstance(objs[0], WaysEvent):
            raise Crash("killed between the rows and the checkpoint")

    monkeypatch.setattr(loader.bulk, "insert_ignore", rows_then_crash)
    with pytest.raises(Crash):
        loader.import_file(live(home))
    assert (WaysEvent.objects.count(), RawLine.objects.count()) == (0, 0)
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
    with pytest.raises(loader.CheckpointMoved):
        loader.load_batch(row, chunk, expected_offset=row.offset - 1)
    assert WaysEvent.objects.count() == 5
    assert SourceFile.objects.get().offset == row.offset


def test_it_commits_in_batches_of_at_most_a_thousand_lines(home, monkeypatch):
    append(home.live, *(line(ts="2026-11-02T10:00:00Z", event="x", n=i) for i in range(2500)))
    batches = []
    original = loader.load_batch

    def counting(row, chunk, **kwargs):
        batches.append(len(chunk.lines))
        return original(row, chunk, **kwargs)

    monkeypatch.setattr(loader, "load_batch", counting)
    loader.import_file(live(home))
    assert batches == [1000, 1000, 500]
    assert WaysEvent.objects.count() == 2500


def test_it_quarantines_a_corrupt_archive_member_and_keeps_the_rest(home):
    from tests.conftest import gzip_member

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
