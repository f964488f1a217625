"""`{% once_per key %}`: one render of a block per key in one render of a page
(introspect/templatetags/once_per.py)."""

from __future__ import annotations

import pytest
from django.template import Context, Template, TemplateSyntaxError


def test_it_renders_a_once_per_block_once_for_each_key_in_one_render():
    calls = []

    def tick() -> int:
        calls.append(1)
        return len(calls)

    template = Template(
        "{% load once_per %}{% for key in keys %}"
        "{% once_per key %}[{{ key }}{{ tick }}]{% endonce_per %}{% endfor %}"
    )
    context = {"keys": ["a", "b", "a", "a", "b"], "tick": tick}

    assert template.render(Context(context)) == "[a1][b2][a1][a1][b2]"
    assert template.render(Context(context)) == "[a3][b4][a3][a3][b4]"  # a new render starts afresh


def test_it_reuses_a_once_per_block_across_the_partials_of_one_render():
    # Each {% partial %} render pushes a render-context scope of its own: the block must outlive it.
    calls = []

    def tick() -> int:
        calls.append(1)
        return len(calls)

    template = Template(
        "{% load once_per %}{% partialdef row %}{% once_per key %}[{{ key }}{{ tick }}]{% endonce_per %}"
        "{% endpartialdef %}{% for key in keys %}{% partial row %}{% endfor %}"
    )
    context = {"keys": ["a", "b", "a", "a", "b"], "tick": tick}

    assert template.render(Context(context)) == "[a1][b2][a1][a1][b2]"
    assert template.render(Context(context)) == "[a3][b4][a3][a3][b4]"


def test_it_wants_exactly_one_key():
    with pytest.raises(TemplateSyntaxError):
        Template("{% load once_per %}{% once_per %}x{% endonce_per %}")
