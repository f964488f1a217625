"""Reading a session for export: by id prefix, and its conversation chunk by chunk, queries bounded."""

from __future__ import annotations

import pytest

from introspect.models import Session
from introspect.queries import export as queries
from tests.introspect.views.test_sessions import long_session

pytestmark = pytest.mark.django_db


def spine(session, size=None) -> list:
    return [item for chunk in queries.export_chunks(session, size=size) for item in chunk]


def test_it_finds_a_session_by_its_id_or_a_unique_prefix():
    for sid in ("abc-1", "abc-2", "abd-1"):
        Session.objects.create(sid=sid)
    assert [s.sid for s in queries.sessions_by_prefix("abd")] == ["abd-1"]
    assert [s.sid for s in queries.sessions_by_prefix("abc")] == ["abc-1", "abc-2"]
    assert [s.sid for s in queries.sessions_by_prefix("abc-1")] == ["abc-1"]
    assert queries.sessions_by_prefix("zzz") == [] and queries.sessions_by_prefix("") == []


def test_an_exact_id_wins_over_the_longer_ids_it_prefixes():
    Session.objects.create(sid="abc")
    Session.objects.create(sid="abcdef")
    assert [s.sid for s in queries.sessions_by_prefix("abc")] == ["abc"]


def test_chunks_put_every_entry_and_fire_turn_on_the_spine_once_in_order(home):
    long_session(home, 40, sid="chunked")  # 120 entries, a keyed fire turn after each prompt
    session = Session.objects.get(sid="chunked")
    whole = spine(session)
    small = spine(session, size=7)  # chunks that cut turns in the middle
    as_keys = [("fire", i.fire.epoch) if i.fire else ("entry", i.entry.pk) for i in whole]
    assert as_keys == [("fire", i.fire.epoch) if i.fire else ("entry", i.entry.pk) for i in small]
    assert [key for key in as_keys if key[0] == "fire"] == [("fire", n) for n in range(1, 41)]
    assert len([key for key in as_keys if key[0] == "entry"]) == 120
    # Each fire turn right after the prompt it is keyed to, whichever chunk that prompt is in.
    for n, item in enumerate(small):
        if item.fire is not None:
            assert small[n - 1].entry.is_prompt and small[n - 1].entry.uuid == f"u{item.fire.epoch - 1}"
    assert [i.turn_start for i in small if i.turn_start is not None] == list(range(1, 41))


def test_the_queries_grow_with_chunks_not_with_turns(home, django_assert_max_num_queries):
    long_session(home, 150, sid="big")  # 450 entries: one chunk
    long_session(home, 5, sid="small")
    with django_assert_max_num_queries(12) as big:
        spine(Session.objects.get(sid="big"))
    with django_assert_max_num_queries(12) as small:
        spine(Session.objects.get(sid="small"))
    assert len(big.captured_queries) == len(small.captured_queries)
    # Ten chunks of 45: at most five queries a chunk on top of the fire turns'.
    with django_assert_max_num_queries(2 + 1 + 10 * 5):
        spine(Session.objects.get(sid="big"), size=45)
