"""lib/stamps.py reads a DateTimeField as Django's own converter would, faster."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from introspect.models import Session, Turn
from lib import stamps


def stamped(value: datetime) -> tuple[datetime, datetime]:
    turn = Turn.objects.create(session=Session.objects.create(sid="s"), epoch=1, ts_raw="", ts=value)
    django = Turn.objects.filter(pk=turn.pk).values_list("ts", flat=True).get()
    read = Turn.objects.filter(pk=turn.pk).values_list(stamps.column("ts"), flat=True).get()
    parse = stamps.reader()
    return django, parse(read) if parse is not None else read


@pytest.mark.django_db
@pytest.mark.parametrize(
    "value",
    [
        datetime(2026, 10, 22, 12, 0, tzinfo=UTC),
        datetime(2026, 10, 22, 12, 0, 0, 123456, tzinfo=UTC),
        datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
        datetime(2026, 10, 22, 14, 0, tzinfo=timezone(timedelta(hours=2))),
    ],
)
def test_it_reads_a_stamp_as_djangos_converter_does(value):
    django, fast = stamped(value)
    assert fast == django == value
    assert fast.tzinfo == django.tzinfo  # aware, in UTC


def test_it_reads_none_as_none():
    assert stamps.parse(None) is None


def test_parse_all_reads_each_text_as_parse_does():
    texts = [
        "2026-10-22 12:00:00",
        "2026-10-22 12:00:00.123456",
        None,
        "2026-10-22 12:00:00",
        "9999-12-31 23:59:59",
    ]
    parsed = stamps.parse_all(texts)
    assert parsed == [stamps.parse(text) for text in texts]
    assert [value.tzinfo for value in parsed if value is not None] == [UTC] * 4
    assert parsed[0] is parsed[3]  # one datetime a distinct text


def test_parse_all_reads_a_text_with_its_own_offset_as_parse_does():
    texts = ["2026-10-22 12:00:00", "2026-10-22 14:00:00+02:00"]
    parsed = stamps.parse_all(texts)
    assert parsed == [stamps.parse(text) for text in texts]
    assert parsed[1].utcoffset() == timedelta(hours=2)
