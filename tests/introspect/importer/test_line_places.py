"""Every physical line is accounted for (models.PhysicalLine), though an event's own line has no
RawLine row: the event stands for it, a place an event leaves gets one, and so does a line whose
event another importer stored between this batch's look-up and its insert."""

from __future__ import annotations

import pytest

from introspect.importer import loader
from introspect.importer.discovery import LIVE_RANK, Source
from introspect.models import PhysicalLine, RawLine, SourceFile, WaysEvent
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
