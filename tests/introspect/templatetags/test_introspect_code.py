"""Code boxes and diffs: numbered, clamped behind "show all", coloured within one budget per render,
a box past it named by the URL that serves it coloured (introspect/templatetags/introspect_code.py)."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from django.template import Context, Template
from django.urls import reverse
from django.utils.html import escape

from introspect.rules import highlight
from introspect.templatetags.introspect_code import code_block, diff_block


def preview_and_rest(html: str) -> tuple[list[str], list[str]]:
    first, _, rest = html.partition("<details")
    return re.findall(r'data-n="(\d+)"', first), re.findall(r'data-n="(\d+)"', rest)


def test_it_shows_twelve_lines_of_a_forty_line_output_and_offers_the_rest():
    html = code_block("\n".join(f"out {n}" for n in range(1, 41)))

    shown, hidden = preview_and_rest(html)
    assert shown == [str(n) for n in range(1, 13)]
    assert hidden == [str(n) for n in range(13, 41)]
    assert "show all 40 lines" in html
    assert '<details class="show-all">' in html  # works without JavaScript


def test_it_draws_a_short_output_without_a_show_all():
    html = code_block("one\ntwo")

    assert "show all" not in html
    assert preview_and_rest(html) == (["1", "2"], [])


def test_it_numbers_a_read_from_its_start_line():
    html = code_block("a = 1\nb = 2\n", "python", 120)

    assert preview_and_rest(html)[0] == ["120", "121"]
    assert 'data-language="python"' in html
    assert '<span class="n">a</span>' in html


def test_it_says_where_the_colours_stop():
    html = code_block("\n".join(["x = 1"] * (highlight.HIGHLIGHT_MAX_LINES + 5)), "python")

    assert f"colours stop after line {highlight.HIGHLIGHT_MAX_LINES}" in html


def test_it_keeps_hostile_text_inert_in_a_code_box():
    html = code_block('<script>alert(1)</script>\n<a href="javascript:x" hx-get="/">', "html")

    assert "<script" not in html and "<a " not in html and 'hx-get="/"' not in html
    assert "&lt;" in html


def test_it_says_empty_for_an_empty_text():
    assert "(empty)" in code_block("")
    assert "(no output)" in code_block(None)


def test_it_draws_a_numbered_diff_clamped_to_twelve_rows():
    diff = (("@", "@@ -1,20 +1,20 @@"), *((" ", f"line{n} = {n}") for n in range(1, 20)), ("+", "z = '<b>'"))

    html = diff_block(diff, "python")

    first, _, rest = html.partition("<details")
    assert first.count("<tr") == 12 and rest.count("<tr") == 9  # the hunk header is a row, not a line
    assert "show all 20 lines" in html
    assert '<td class="diff-no">19</td>' in rest
    assert "&#x27;&lt;b&gt;&#x27;" in rest or "&lt;b&gt;" in rest
    assert "<b>" not in html


@pytest.mark.parametrize("sid", ["s1", "a b", "team/alice/run-1", "..", "~YWJj", "séance-日本", "x#top?q=1"])
def test_it_names_a_deferred_box_by_the_url_its_route_reverses_to(monkeypatch, sid):
    monkeypatch.setattr(highlight, "HIGHLIGHT_PAGE_BUDGET", 0)
    template = Template('{% load introspect_code %}{% code_block text "python" entry=entry slot="content" %}')
    context = {"text": "import os", "session": SimpleNamespace(sid=sid), "entry": SimpleNamespace(pk=42)}

    html = template.render(Context(context))

    assert f'data-colour-url="{escape(reverse("introspect:entry-code", args=[sid, 42, "content"]))}"' in html


def test_it_colours_a_box_that_names_no_entry_whatever_the_budget(monkeypatch):
    monkeypatch.setattr(highlight, "HIGHLIGHT_PAGE_BUDGET", 0)
    template = Template('{% load introspect_code %}{% code_block text "python" %}')

    html = template.render(Context({"text": "import os", "session": SimpleNamespace(sid="s")}))

    assert 'class="kn"' in html and "data-colour-url" not in html
