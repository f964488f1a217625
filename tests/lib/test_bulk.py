"""Bulk reads and writes that stay within SQLite's limit on bound parameters."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import connection

from introspect.models import Session, Turn
from lib import bulk, stamps

pytestmark = pytest.mark.django_db

TURN_NAMES = (
    "session_id",
    "epoch",
    "ts_raw",
    "ts",
    "window",
    "token_position",
    "join_confidence",
    "join_reason",
    "transcript_uuid",
)


def test_it_queries_more_values_than_one_statement_may_bind():
    Session.objects.bulk_create([Session(sid=f"s{n}") for n in range(3)])
    wanted = {f"s{n}" for n in range(40_000)}  # a gzip member can hold this many lines
    found = bulk.chunked_in(Session.objects.values_list("sid", flat=True), "sid", wanted)
    assert sorted(found) == ["s0", "s1", "s2"]


def test_it_inserts_and_skips_rows_that_already_exist():
    bulk.insert_ignore([Session(sid="a"), Session(sid="b")])
    bulk.insert_ignore([Session(sid="b", event_count=9), Session(sid="c")])
    assert sorted(Session.objects.values_list("sid", "event_count")) == [("a", 0), ("b", 0), ("c", 0)]


def test_it_inserts_plain_values_converting_dates_as_the_field_does():

    session = Session.objects.create(sid="s")
    second = datetime(2026, 11, 29, 10, 0, 1, tzinfo=UTC)
    bulk.insert_values(
        Turn,
        TURN_NAMES,
        ((session.pk, n, "2026-11-29T10:00:01Z", second, 1, 0, "heuristic", "", "") for n in (1, 2)),
        batch_size=1,
    )
    assert list(Turn.objects.order_by("epoch").values_list("epoch", "ts")) == [(1, second), (2, second)]


def test_it_writes_a_column_given_ready_as_it_is():
    # A date given as the database's own value (SQLite's text): the field's conversion, which
    # takes a datetime, is not applied to it again.
    session = Session.objects.create(sid="s")
    second = datetime(2026, 11, 29, 10, 0, 1, tzinfo=UTC)
    stored = connection.ops.adapt_datetimefield_value(second)
    values = [(session.pk, 1, "2026-11-29T10:00:01Z", stored, 1, 0, "heuristic", "", "")]
    bulk.insert_rows(bulk.Rows(Turn, TURN_NAMES, values, ready=frozenset({"ts"})))
    assert list(Turn.objects.values_list("ts", flat=True)) == [second]


def test_it_fetches_a_values_list_as_the_driver_gives_its_rows():
    Session.objects.bulk_create([Session(sid=f"s{n}", event_count=n) for n in range(3)])
    rows = Session.objects.filter(event_count__gte=1).order_by("sid").values_list("sid", "event_count")
    assert bulk.fetch_rows(rows) == [("s1", 1), ("s2", 2)]


def test_it_updates_every_field_and_stamps_auto_now_without_save():
    session = Session.objects.create(sid="s")
    before = session.updated_at
    session.event_count, session.title = 7, "t"
    bulk.update_all([session])
    stored = Session.objects.get(pk=session.pk)
    assert (stored.event_count, stored.title) == (7, "t")
    assert stored.updated_at > before


def test_it_selects_a_stamp_as_stamps_reads_it_when_asked_for_its_stored_form():
    # The ledger's read of every turn: the stamp as the database keeps it, parsed by lib/stamps.py
    # (SQLite's text, not the driver's converter); PostgreSQL answers a datetime either way.
    session = Session.objects.create(sid="s")
    second = datetime(2026, 11, 29, 10, 0, 1, tzinfo=UTC)
    values = [(session.pk, 1, "2026-11-29T10:00:01Z", second, 1, 0, "heuristic", "", "")]
    bulk.insert_values(Turn, TURN_NAMES, values)
    [(epoch, ts)] = bulk.select_in(Turn, ("epoch", "ts"), "session_id", [session.pk], stored=("ts",))
    parse = stamps.reader() or (lambda value: value)
    assert (epoch, parse(ts)) == (1, second)
    if connection.vendor == "sqlite":
        assert isinstance(ts, str)
