"""Display helpers of the introspection templates: clip, once_per and usd."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.template import Context, Template, TemplateSyntaxError
from django.template.defaultfilters import truncatechars

from introspect.templatetags.introspect_tags import clip, usd


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


def test_it_renders_a_once_per_block_once_for_each_key_in_one_render():
    calls = []

    def tick() -> int:
        calls.append(1)
        return len(calls)

    template = Template(
        "{% load introspect_tags %}{% for key in keys %}"
        "{% once_per key %}[{{ key }}{{ tick }}]{% endonce_per %}{% endfor %}"
    )
    context = {"keys": ["a", "b", "a", "a", "b"], "tick": tick}

    assert template.render(Context(context)) == "[a1][b2][a1][a1][b2]"
    assert template.render(Context(context)) == "[a3][b4][a3][a3][b4]"  # a new render starts afresh


def test_it_wants_exactly_one_key():
    with pytest.raises(TemplateSyntaxError):
        Template("{% load introspect_tags %}{% once_per %}x{% endonce_per %}")


def test_it_shows_dollars_to_the_cent_from_one_up_and_to_four_places_below():
    assert usd(Decimal("1234.5")) == "$1,234.50"
    assert usd(Decimal("0.017362")) == "$0.0174"
    assert usd(Decimal("0")) == "$0.00"
    assert usd(None) == "—"  # nothing priced: never $0
