"""The Memory page query and the session-page provider: versions with diffs, and marks placed
under the fire turn each memory write followed."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from introspect.models import Session, Turn
from ledger.queries import memory as queries
from tests.ledger.memory_tree import SID, SLUG, written_memory

pytestmark = pytest.mark.django_db


def fire_turn(session: Session, epoch: int, second: int) -> Turn:
    ts = datetime(2026, 11, 2, 10, 0, second, tzinfo=UTC)
    return Turn.objects.create(session=session, epoch=epoch, ts=ts, ts_raw=ts.isoformat())


def test_the_project_page_diffs_each_version_against_the_one_before(home):
    written_memory(home)
    page = queries.memory_project_page(SLUG)
    [topic] = page["topics"]
    second = topic.versions[1]
    assert ("-", "Run make test.") in second.diff and ("+", "Run make test (needs Docker).") in second.diff
    assert page["index"].index_lines == [(1, "- [test command](testing.md) — how tests run", True)]


def test_each_write_is_marked_under_the_fire_turn_it_followed_and_all_in_the_header(home):
    written_memory(home)
    session = Session.objects.get(sid=SID)
    first, second = fire_turn(session, 1, 1), fire_turn(session, 2, 3)
    notes = queries.session_notes(session, [first, second], True)
    assert [note.item.number for note in notes.by_turn[first.pk]] == [1]
    assert [note.item.number for note in notes.by_turn[second.pk]] == [2]
    [header] = notes.header
    assert [(v.version.memory.name, v.version.turn) for v in header.item] == [
        ("testing.md", 1),
        ("testing.md", 2),
    ]
    assert all(v.turn_url.startswith(f"/sessions/{SID}/") for v in header.item)  # each links the call


def test_a_write_after_the_pages_last_turn_waits_for_the_page_of_its_own_turn(home):
    written_memory(home)
    session = Session.objects.get(sid=SID)
    first = fire_turn(session, 1, 1)
    fire_turn(session, 2, 3)
    notes = queries.session_notes(session, [first], False)
    assert [note.item.number for note in notes.by_turn[first.pk]] == [1]
    assert notes.header == []
