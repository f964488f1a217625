"""Long texts and agent Markdown: whole up to a limit, longer behind "show all", never cut silently,
open in the entry a search hit opened (introspect/templatetags/introspect_text.py)."""

from __future__ import annotations

from types import SimpleNamespace

from django.template import Context, Template
from django.utils.html import escape

from introspect.templatetags.introspect_code import code_block, diff_block
from introspect.templatetags.introspect_text import PAGE_CHARS, long_text, markdown_block, opened


def test_it_clamps_a_long_agent_result_to_twelve_lines_of_markdown_and_keeps_the_whole():
    text = "\n".join(f"- finding {n}" for n in range(1, 31))
    html = markdown_block(text)
    preview, _, whole = html.partition("<details")
    assert "finding 12<" in preview and "finding 13<" not in preview
    assert "show all 30 lines" in whole and "finding 30<" in whole


def test_a_search_hits_entry_draws_its_clamped_boxes_open():
    long = "\n".join(f"line {n}" for n in range(1, 41))
    diff = [("+", f"x = {n}") for n in range(1, 41)]
    for folded, unfolded in (
        (code_block(long), code_block(long, is_open=True)),
        (diff_block(diff), diff_block(diff, is_open=True)),
        (markdown_block(long), markdown_block(long, is_open=True)),
    ):
        assert '<details class="show-all">' in folded and '<details class="show-all" open>' in unfolded


def test_the_opened_entry_is_the_one_drawn_or_the_result_drawn_in_its_card():
    hit, other = SimpleNamespace(uuid="r1"), SimpleNamespace(uuid="c1")
    assert opened(Context({"open_uuid": "r1", "entry": hit}))
    assert opened(Context({"open_uuid": "r1", "entry": other, "result_entry": hit}))  # the call's card
    assert not opened(Context({"open_uuid": "r1", "entry": other}))
    assert not opened(Context({"entry": hit}))  # no hit on the page


def test_it_draws_a_long_prompt_as_its_start_and_the_whole_behind_show_all():
    text = "\n".join(f"line {n} <b>" for n in range(1, 3001))  # 31,893 characters
    preview, _, whole = long_text(text).partition("<details")
    assert "line 1 &lt;b&gt;" in preview and "line 200 " not in preview and preview.endswith(" …</div>")
    assert f"show all ({len(text):,} characters)" in whole and escape(text) in whole
    marked = long_text(text, ["line 2999"])
    assert '<mark title="matched span recorded when the way fired">line 2999</mark>' in marked


def test_it_draws_a_text_up_to_the_limit_whole_in_place():
    text = "word " * 4_000  # 20,000 characters
    assert long_text(text) == escape(text)
    assert "show all" not in long_text(text, markdown=True)


def test_it_renders_long_markdown_whole_behind_show_all_and_never_cuts_it():
    text = "".join(f"Paragraph {n} **bold**.\n\n" for n in range(1, 1501))
    html = long_text(text, markdown=True)
    assert "<strong>bold</strong>" in html and "Paragraph 1500 <strong>" in html
    assert f"show all ({len(text):,} characters)" in html


def test_it_shows_markdown_too_long_to_render_as_plain_text_whole():
    text = "# Title\n" + "x" * 250_000
    html = long_text(text, markdown=True)
    assert '<pre class="long-plain"># Title\n' + "x" * 250_000 + "</pre>" in html
    assert "as plain text: too long to render as Markdown" in html


def test_a_page_draws_a_huge_text_to_its_cap_and_says_where_the_rest_is():
    text = "abc " * 10_000  # 40,000 characters
    capped = long_text(text, cap=25_000)
    assert text[:25_000] in capped and text[:25_001] not in capped
    assert (
        "… 15,000 more characters not drawn here: the exports (HTML, Markdown, JSON) hold the whole text"
        in capped
    )
    assert "show all (40,000 characters)" in capped
    assert text in long_text(text, cap=None) and "not drawn here" not in long_text(text, cap=None)


def test_the_html_export_draws_every_character_where_a_page_stops_at_its_cap():
    template = Template("{% load introspect_text %}{% long_text text markdown=True %}")
    text = "word " * (PAGE_CHARS // 5 + 1_000)
    page = template.render(Context({"text": text}))
    export = template.render(Context({"text": text, "whole_texts": True}))
    assert "5,000 more characters not drawn here" in page
    assert text.strip() in export and "not drawn here" not in export


def test_a_long_text_in_a_search_hits_entry_is_drawn_open():
    text = "z" * 30_000
    assert '<details class="show-all long-text" open>' in long_text(text, is_open=True)
    assert '<details class="show-all long-text">' in long_text(text)


def test_a_task_result_of_few_lines_but_many_characters_is_whole_behind_show_all():
    text = "result " * 5_000
    html = markdown_block(text)
    assert text.strip() in html and "show all (35,000 characters)" in html


def test_it_renders_a_short_agent_result_whole_and_sanitised():
    html = markdown_block("**done** <script>alert(1)</script>")
    assert "<strong>done</strong>" in html and "<script>" not in html and "show all" not in html
