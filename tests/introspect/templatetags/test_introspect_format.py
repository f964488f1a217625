"""Values as the pages print them: clipped text, dollars, instants
(introspect/templatetags/introspect_format.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from django.template import Context, Template
from django.template.defaultfilters import truncatechars

from introspect.templatetags.introspect_format import clip, timestamp, usd


def test_it_clips_like_truncatechars():
    for text, limit in [
        ("short", 10),
        ("exactly ten", 11),
        ("a longer line of text", 8),
        ("", 3),
        ("cafe\u0301 au lait", 12),
        ("x" * 50_000, 20_000),
    ]:
        assert clip(text, limit) == truncatechars(text, limit)


def test_it_returns_text_that_fits_as_it_is():
    text = "y" * 199_999
    assert clip(text, 200_000) is text
    assert clip(None, 5) == "None"  # a string filter, as truncatechars is


def test_it_shows_dollars_to_the_cent_from_one_up_and_to_four_places_below():
    assert usd(Decimal("1234.5")) == "$1,234.50"
    assert usd(Decimal("0.017362")) == "$0.0174"
    assert usd(Decimal("0")) == "$0.00"
    assert usd(None) == "—"  # nothing priced: never $0


def test_it_stamps_a_message_with_its_utc_time():
    html = timestamp(datetime(2026, 2, 10, 21, 11, 56, 846000, tzinfo=UTC))

    assert html == (
        '<time class="ts" datetime="2026-02-10T21:11:56.846Z" data-local title="2026-02-10 21:11:56 UTC">'
        "2026-02-10 21:11:56 UTC</time>"
    )
    assert timestamp(None) == ""


def test_it_writes_an_instant_as_the_date_filter_c_does():
    template = Template("{% load introspect_format %}{{ when|iso }}|{{ when|date:'c' }}")
    for when in (
        datetime(2026, 2, 10, 21, 11, 56, tzinfo=UTC),
        datetime(2026, 2, 10, 21, 11, 56, 846123, tzinfo=UTC),
        None,
    ):
        mine, django = template.render(Context({"when": when})).split("|")
        assert mine == django
