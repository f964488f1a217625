"""Turns and their `fired_ways` rows are written the same by a rebuild and by a tail extension:
a turn's values in TURN_FIELDS order, its rows numbered from 1 in the order the turn holds them,
many sessions in three statements (introspect/derive/turn_rows.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from io import StringIO
from types import SimpleNamespace

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from introspect.derive import turn_rows
from introspect.models import Session, Turn, TurnWay, WaysEvent
from introspect.rules import join
from introspect.rules import turns as turn_model
from tests.conftest import append
from tests.faults.conftest import event


def test_a_moment_is_in_the_window_of_the_session_starts_at_or_before_it():
    starts = ["2026-11-02T10:00:00Z", "2026-11-02T11:00:00Z", ""]  # "": a start without a time
    assert turn_rows.window_of("2026-11-02T09:00:00Z", starts) == 1  # before any start: the first
    assert turn_rows.window_of("2026-11-02T10:00:00Z", starts) == 1
    assert turn_rows.window_of("2026-11-02T10:59:59Z", starts) == 1
    assert turn_rows.window_of("2026-11-02T11:00:00Z", starts) == 2
    assert turn_rows.window_of("2026-11-02T12:00:00Z", []) == 1
    assert turn_rows.window_of("2026-11-02T09:00:00Z", ["2026-11-02T10:00:00Z"]) == 1  # one start


def test_a_stamp_is_written_as_the_text_sqlite_stores_for_it():
    for stamp in (
        datetime(2026, 11, 2, 10, 0, tzinfo=UTC),
        datetime(2026, 11, 2, 10, 0, 0, 1500, tzinfo=UTC),
    ):
        assert turn_rows.utc_text(stamp) == str(stamp.replace(tzinfo=None))
    east = datetime.fromisoformat("2026-11-02T12:00:00.25+02:00")
    assert turn_rows.utc_text(east) == "2026-11-02 10:00:00.250000"


def test_many_stamps_are_written_as_each_alone():
    in_utc = [
        datetime(2026, 11, 2, 10, 0, tzinfo=UTC),
        datetime(2026, 11, 2, 10, 0, 0, 1500, tzinfo=UTC),
        datetime.fromisoformat("2026-11-02T10:00:00+00:00"),
    ]
    assert turn_rows.utc_texts(in_utc) == [turn_rows.utc_text(stamp) for stamp in in_utc]
    written = ["2026-11-02 10:00:00", "2026-11-02 10:00:00.001500", "2026-11-02 10:00:00"]
    assert turn_rows.utc_texts(in_utc) == written
    mixed = [*in_utc, datetime.fromisoformat("2026-11-02T12:00:00.25+02:00")]
    assert turn_rows.utc_texts(mixed) == [turn_rows.utc_text(stamp) for stamp in mixed]
    assert turn_rows.utc_texts(mixed)[-1] == "2026-11-02 10:00:00.250000"


@pytest.mark.django_db
def test_turns_are_handed_over_with_the_stamp_the_database_stores_once_and_only_once():
    stamps = [datetime(2026, 11, 2, 10, 0, tzinfo=UTC), datetime(2026, 11, 2, 10, 0, 7, 1500, tzinfo=UTC)]
    turns = [
        (1, epoch, 1, "raw", stamp, 0, "heuristic", "", "", None, None, None)
        for epoch, stamp in enumerate(stamps)
    ]
    stored = turn_rows.with_stored_stamps(turns)
    if connection.vendor == "sqlite":
        assert [turn[turn_rows.TS_AT] for turn in stored] == [
            "2026-11-02 10:00:00",
            "2026-11-02 10:00:07.001500",
        ]
        assert [turn[: turn_rows.TS_AT] + turn[turn_rows.TS_AT + 1 :] for turn in stored] == [
            turn[: turn_rows.TS_AT] + turn[turn_rows.TS_AT + 1 :] for turn in turns
        ]
    else:
        assert stored is turns  # PostgreSQL takes the datetime
    assert turn_rows.with_stored_stamps(stored) is stored  # converted already: as it is
    assert turn_rows.with_stored_stamps([]) == []


def test_a_ways_id_and_channel_are_one_object_across_its_rows():
    stamp = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)

    def row(order: int) -> turn_model.Row:
        # Equal texts that are distinct objects, as each event's row read back gives them.
        way, channel = "".join(["d/", "way"]), "".join(["key", "word"])
        return turn_model.Row(SimpleNamespace(pk=order), way, channel, "raw", stamp, order)

    turn = turn_model.TurnData(epoch=1, ts_raw="raw", ts=stamp, token_position=0, rows=[row(1), row(2)])
    [[first, second]] = turn_rows.way_values([turn])
    way_at, channel_at = (
        turn_rows.TURN_WAY_FIELDS.index("way_id") - 1,
        turn_rows.TURN_WAY_FIELDS.index("trigger_channel") - 1,
    )
    assert (first[way_at], first[channel_at]) == ("d/way", "keyword")
    assert first[way_at] is second[way_at] and first[channel_at] is second[channel_at]


def test_a_turns_values_come_in_turn_fields_order_with_ids_for_rows():
    stamp = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)
    turn = turn_model.TurnData(epoch=3, ts_raw="2026-11-02T10:00:00Z", ts=stamp, token_position=1200)
    joined = join.Join("keyed", "prompt_attachment", "u-7", injection=SimpleNamespace(pk=41))
    values = turn_rows.turn_row(
        9, 3, 2, turn, joined, prompt_entry=SimpleNamespace(pk=40), nearest_prompt=None
    )
    assert dict(zip(turn_rows.TURN_FIELDS, values, strict=True)) == {
        "session_id": 9,
        "epoch": 3,
        "window": 2,
        "ts_raw": "2026-11-02T10:00:00Z",
        "ts": stamp,
        "token_position": 1200,
        "join_confidence": "keyed",
        "join_reason": "prompt_attachment",
        "transcript_uuid": "u-7",
        "prompt_entry_id": 40,
        "context_entry_id": 41,
        "nearest_prompt_id": None,  # no row: no id
    }


# --- writing ------------------------------------------------------------------------------------


@pytest.fixture
def fires(home, db) -> dict[str, list[WaysEvent]]:
    """Two sessions' imported fires by session id, their derived turns removed: the rows under test
    are the only ones written."""
    append(home.live, *(event(n, session=sid) for sid in ("s1", "s2") for n in range(1, 4)))
    call_command("ingest", "--no-ways", stdout=StringIO(), stderr=StringIO())
    Turn.objects.all().delete()
    return {
        sid: list(WaysEvent.objects.filter(session__sid=sid, event="way_fired").order_by("order_rank"))
        for sid in ("s1", "s2")
    }


def planned(session: Session, epochs_and_events: list[tuple[int, list[WaysEvent]]]):
    """(turn values, built turns) of a session whose turn `epoch` holds a fire of each event."""
    values, built = [], []
    for epoch, events in epochs_and_events:
        stamp = datetime(2026, 11, 2, 10, epoch, tzinfo=UTC)
        turn = turn_model.TurnData(epoch=epoch, ts_raw=stamp.isoformat(), ts=stamp, token_position=0)
        turn.rows = [
            turn_model.Row(
                event=fired,
                way_id=fired.way,
                trigger_channel="keyword",
                ts_raw=fired.ts_raw,
                ts=fired.ts,
                order=order,
                fire_score=0.5 if order == 0 else None,
                matched_span="commit" if order == 0 else None,
            )
            for order, fired in enumerate(events)
        ]
        joined = join.Join("heuristic", "time_window")
        values.append(
            turn_rows.turn_row(session.pk, epoch, 1, turn, joined, prompt_entry=None, nearest_prompt=None)
        )
        built.append(turn)
    return values, built


def fired_ways(session: Session) -> list[tuple]:
    return list(
        TurnWay.objects.filter(turn__session=session)
        .order_by("turn__epoch", "position")
        .values_list("turn__epoch", "position", "event_id", "way_id", "fire_score", "matched_span")
    )


def test_each_turn_is_written_with_its_rows_numbered_in_the_order_it_holds_them(fires):
    first, second, third = fires["s1"]
    session = first.session
    turn_rows.write_turns(session, *planned(session, [(1, [second, first]), (2, [third])]))
    assert list(Turn.objects.filter(session=session).values_list("epoch", "join_reason")) == [
        (1, "time_window"),
        (2, "time_window"),
    ]
    assert fired_ways(session) == [
        (1, 1, second.pk, second.way, 0.5, "commit"),
        (1, 2, first.pk, first.way, None, None),
        (2, 1, third.pk, third.way, 0.5, "commit"),
    ]


def test_a_tail_extension_adds_its_turns_after_those_kept(fires):
    first, second, third = fires["s1"]
    session = first.session
    turn_rows.write_turns(session, *planned(session, [(1, [first]), (2, [second])]))
    turn_rows.write_turns(session, *planned(session, [(3, [third])]))
    assert [row[:3] for row in fired_ways(session)] == [(1, 1, first.pk), (2, 1, second.pk), (3, 1, third.pk)]


def test_many_sessions_are_written_in_three_statements_and_a_session_without_turns_is_skipped(fires):
    one, two = fires["s1"][0].session, fires["s2"][0].session
    groups = [
        (one, *planned(one, [(1, fires["s1"][:2]), (2, fires["s1"][2:])])),
        (two, *planned(two, [(1, fires["s2"])])),
        (one, [], []),
    ]
    with CaptureQueriesContext(connection) as queries:
        turn_rows.write_turns_of(groups)
    assert len(queries) == 3  # every turn, their ids, every fired_ways row
    assert [row[:3] for row in fired_ways(one)] == [
        (1, 1, fires["s1"][0].pk),
        (1, 2, fires["s1"][1].pk),
        (2, 1, fires["s1"][2].pk),
    ]
    assert [row[:3] for row in fired_ways(two)] == [
        (1, n, fired.pk) for n, fired in enumerate(fires["s2"], 1)
    ]


def test_nothing_to_write_asks_nothing_of_the_database(db):
    with CaptureQueriesContext(connection) as queries:
        turn_rows.write_turns_of([])
        turn_rows.write_turns_of([(SimpleNamespace(pk=1), [], [])])
    assert len(queries) == 0


def test_deleting_turns_by_statement_reaches_every_row_that_names_a_turn():
    """delete_turns removes turns without the ORM's cascade: every relation to a turn must be one it
    deletes itself (a new one would be left pointing at a deleted turn)."""
    naming = {(rel.related_model, rel.field.name) for rel in Turn._meta.related_objects}
    assert naming == {(TurnWay, "turn")}
