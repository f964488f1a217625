"""Display helpers of the introspection templates: clip, once_per, code boxes, diffs, timestamps,
and the conversation entry cards they build (introspect/partials/entry.html)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal
from types import SimpleNamespace

import orjson
import pytest
from django.template import Context, Template, TemplateSyntaxError
from django.template.defaultfilters import truncatechars
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import escape

from introspect.queries.entry_cards import EntryCard, entry_card
from introspect.rules import highlight
from introspect.templatetags.introspect_tags import (
    PAGE_CHARS,
    card,
    clip,
    code_block,
    diff_block,
    long_text,
    markdown_block,
    opened,
    timestamp,
    usd,
)


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


def test_it_reuses_a_once_per_block_across_the_partials_of_one_render():
    # Each {% partial %} render pushes a render-context scope of its own: the block must outlive it.
    calls = []

    def tick() -> int:
        calls.append(1)
        return len(calls)

    template = Template(
        "{% load introspect_tags %}{% partialdef row %}{% once_per key %}[{{ key }}{{ tick }}]{% endonce_per %}"
        "{% endpartialdef %}{% for key in keys %}{% partial row %}{% endfor %}"
    )
    context = {"keys": ["a", "b", "a", "a", "b"], "tick": tick}

    assert template.render(Context(context)) == "[a1][b2][a1][a1][b2]"
    assert template.render(Context(context)) == "[a3][b4][a3][a3][b4]"


def test_it_wants_exactly_one_key():
    with pytest.raises(TemplateSyntaxError):
        Template("{% load introspect_tags %}{% once_per %}x{% endonce_per %}")


def test_it_shows_dollars_to_the_cent_from_one_up_and_to_four_places_below():
    assert usd(Decimal("1234.5")) == "$1,234.50"
    assert usd(Decimal("0.017362")) == "$0.0174"
    assert usd(Decimal("0")) == "$0.00"
    assert usd(None) == "—"  # nothing priced: never $0


# --- code boxes -----------------------------------------------------------------------------------


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


def test_it_stamps_a_message_with_its_utc_time():
    html = timestamp(datetime(2026, 2, 10, 21, 11, 56, 846000, tzinfo=UTC))

    assert html == (
        '<time class="ts" datetime="2026-02-10T21:11:56.846Z" data-local title="2026-02-10 21:11:56 UTC">'
        "2026-02-10 21:11:56 UTC</time>"
    )
    assert timestamp(None) == ""


# --- entry cards ----------------------------------------------------------------------------------

TS = datetime(2026, 2, 10, 21, 11, 56, tzinfo=UTC)


def card_of(entry: SimpleNamespace, paired_result: EntryCard | None = None) -> EntryCard:
    """An entry's card as queries.entry_cards builds it: its call or result parsed from its line."""
    return entry_card(
        entry,
        usage=None,
        spills=[],
        paired_result=paired_result,
        with_call=False,
        prompt_spans=[],
        bookkeeping=False,
    )


def call_entry(name: str, tool_input: dict, paired_result: EntryCard | None = None) -> EntryCard:
    block = {"type": "tool_use", "id": "toolu_1", "name": name, "input": tool_input}
    line = orjson.dumps({"type": "assistant", "message": {"content": [block]}})
    entry = SimpleNamespace(
        type="assistant",
        subtype="tool_use",
        uuid="u-call",
        tool_use_id="toolu_1",
        tool_name=name,
        line=line,
        ts=TS,
        text="",
        is_prompt=False,
        flags=[],
    )
    return card_of(entry, paired_result)


def result_entry(content: str, extra: dict | None = None) -> EntryCard:
    obj = {
        "type": "user",
        "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": content}]},
    }
    if extra is not None:
        obj["toolUseResult"] = extra
    entry = SimpleNamespace(
        type="user",
        uuid="u-result",
        tool_result_id="toolu_1",
        is_error=False,
        line=orjson.dumps(obj),
        ts=TS,
        text=content,
        is_prompt=False,
        is_compact_summary=False,
        is_meta=False,
        flags=[],
    )
    return card_of(entry)


def render_entry(card: EntryCard) -> str:
    return render_to_string(
        "introspect/partials/entry.html", {"entry_card": card, "session": None, "subagents": {}}
    )


def read_entry(pk: int, content: str) -> EntryCard:
    card = result_entry("1→…", {"type": "text", "file": {"filePath": "/r/m.py", "content": content}})
    card.entry.pk = pk
    return card


def render_entries(*cards: EntryCard) -> str:
    """Entries as one render of a page does: one highlighting budget for all of them."""
    template = Template(
        '{% for entry_card in cards %}{% include "introspect/partials/entry.html" %}{% endfor %}'
    )
    context = {"cards": cards, "session": SimpleNamespace(sid="s1"), "subagents": {}}
    return template.render(Context(context))


def test_it_draws_a_box_past_the_page_budget_plain_and_says_why(monkeypatch):
    monkeypatch.setattr(highlight, "HIGHLIGHT_PAGE_BUDGET", 0)

    html = render_entries(read_entry(7, "import os  # <b>bold</b>\n"))

    box = html[html.index('<div class="code') : html.index("</div>", html.index('<div class="code'))]
    assert 'data-language="python" data-colour-url="/sessions/s1/entries/7/code/content/"' in box
    assert "import os  # &lt;b&gt;bold&lt;/b&gt;" in box and 'class="kn"' not in box  # plain, escaped
    assert "plain text for now: a page colours 0 KiB of code at most" in box
    assert "coloured when it scrolls into view (needs JavaScript)" in box


def test_it_spends_one_budget_over_all_the_entries_of_a_render(monkeypatch):
    monkeypatch.setattr(highlight, "HIGHLIGHT_PAGE_BUDGET", 20)  # room for the first text only

    html = render_entries(read_entry(1, "import os\n"), read_entry(2, "import sys\n"))

    first, second = html.split('<div class="code')[1:3]
    assert 'class="kn"' in first and "data-colour-url" not in first
    assert 'class="kn"' not in second and 'data-colour-url="/sessions/s1/entries/2/code/content/"' in second


@pytest.mark.parametrize("sid", ["s1", "a b", "team/alice/run-1", "..", "~YWJj", "séance-日本", "x#top?q=1"])
def test_it_names_a_deferred_box_by_the_url_its_route_reverses_to(monkeypatch, sid):
    monkeypatch.setattr(highlight, "HIGHLIGHT_PAGE_BUDGET", 0)
    template = Template('{% load introspect_tags %}{% code_block text "python" entry=entry slot="content" %}')
    context = {"text": "import os", "session": SimpleNamespace(sid=sid), "entry": SimpleNamespace(pk=42)}

    html = template.render(Context(context))

    assert f'data-colour-url="{escape(reverse("introspect:entry-code", args=[sid, 42, "content"]))}"' in html


def test_it_colours_a_box_that_names_no_entry_whatever_the_budget(monkeypatch):
    monkeypatch.setattr(highlight, "HIGHLIGHT_PAGE_BUDGET", 0)
    template = Template('{% load introspect_tags %}{% code_block text "python" %}')

    html = template.render(Context({"text": "import os", "session": SimpleNamespace(sid="s")}))

    assert 'class="kn"' in html and "data-colour-url" not in html


def test_it_writes_an_instant_as_the_date_filter_c_does():
    template = Template("{% load introspect_tags %}{{ when|iso }}|{{ when|date:'c' }}")
    for when in (TS, datetime(2026, 2, 10, 21, 11, 56, 846123, tzinfo=UTC), None):
        mine, django = template.render(Context({"when": when})).split("|")
        assert mine == django


def test_it_names_the_card_each_kind_of_entry_gets():
    def entry(kind: str, subtype: str = "", **flags) -> SimpleNamespace:
        fields = {"is_prompt": False, "is_compact_summary": False, "is_meta": False, "text": ""}
        fields |= {"tool_result_id": None, "tool_use_id": None, "hook_event": None}
        return SimpleNamespace(type=kind, subtype=subtype, **(fields | flags))

    assert card(entry("user", is_prompt=True)) == "prompt"
    assert card(entry("user", is_compact_summary=True)) == "summary"
    assert card(entry("user", tool_result_id="toolu_1")) == "result"
    assert card(entry("user", is_meta=True)) == "meta"
    assert card(entry("user")) == "user"
    assert card(entry("user", text="[Request interrupted by user for tool use]")) == "interrupt"
    assert card(entry("attachment", "queued_command", is_prompt=True)) == "prompt"
    assert card(entry("assistant", "thinking", tool_use_id="toolu_1")) == "thinking"
    assert card(entry("assistant", "tool_use", tool_use_id="toolu_1")) == "call"
    assert card(entry("assistant", "text")) == "reply"
    assert card(entry("system", "compact_boundary")) == "compaction"
    assert card(entry("system", "turn_duration")) == "system"
    assert card(entry("attachment", "hook_additional_context", hook_event="SessionStart")) == "context"
    assert card(entry("attachment", "hook_success", hook_event="Stop")) == "hook"
    assert card(entry("attachment", "todo_reminder")) == "attachment"
    assert card(entry("queue-operation")) == "queued"
    assert card(entry("pr-link")) == "unknown"


ASK = {
    "questions": [
        {
            "question": "Which database?",
            "header": "Storage",
            "multiSelect": False,
            "options": [{"label": "SQLite", "description": "one file"}, {"label": "PostgreSQL"}],
        }
    ]
}


def test_it_shows_a_question_its_options_and_the_chosen_answer():
    answer = result_entry(
        'User has answered your questions: "Which database?"="PostgreSQL". You can now continue.',
        {**ASK, "answers": {"Which database?": "PostgreSQL"}},
    )
    html = render_entry(call_entry("AskUserQuestion", ASK, paired_result=answer))

    assert "Which database?" in html and "Storage" in html
    assert "SQLite" in html and "one file" in html
    chosen = re.findall(r'<li class="ask-option ask-option--chosen">(.*?)</li>', html, re.S)
    assert len(chosen) == 1 and "PostgreSQL" in chosen[0]
    assert "answer: <strong>PostgreSQL</strong>" in html
    assert 'id="u-u-call"' in html


def test_it_shows_the_answers_of_a_standalone_ask_result():
    html = render_entry(
        result_entry(
            'User has answered your questions: "Which database?"="SQLite".',
            {**ASK, "answers": {"Which database?": "SQLite"}},
        )
    )

    assert "<dt>Which database?</dt><dd>SQLite</dd>" in html


def test_it_renders_the_paired_result_inside_the_call_card():
    output = "\n".join(f"row {n}" for n in range(40))
    result = result_entry(output, {"stdout": output, "stderr": "", "interrupted": False, "isImage": False})
    html = render_entry(
        call_entry("Bash", {"command": "seq 40", "description": "Count"}, paired_result=result)
    )

    card = html[html.index('class="entry tool-card') :]
    assert "Count" in card and "seq" in card
    assert "show all 40 lines" in card
    assert 'id="u-u-result"' in card  # the result keeps its own anchor inside the card


def test_it_renders_an_agent_result_as_markdown():
    html = render_entry(
        result_entry(
            "## Found\n\n- **two** files <script>x</script>", {"agentId": "a1", "status": "completed"}
        )
    )

    assert "<h2>Found</h2>" in html and "<strong>two</strong>" in html
    assert "<script>" not in html


def test_it_highlights_a_read_result_with_the_file_lexer():
    html = render_entry(
        result_entry(
            "1→import os",
            {
                "type": "text",
                "file": {
                    "filePath": "/r/m.py",
                    "content": "import os\n",
                    "numLines": 1,
                    "startLine": 7,
                    "totalLines": 9,
                },
            },
        )
    )

    assert 'data-language="python"' in html
    assert '<span class="kn">import</span>' in html
    assert 'data-n="7"' in html


def test_it_shows_the_result_patch_instead_of_the_call_snippet_once_paired():
    edit = {"file_path": "/r/a.py", "old_string": "b = 2", "new_string": "b = 3"}
    patch = [{"oldStart": 7, "oldLines": 1, "newStart": 7, "newLines": 1, "lines": ["-b = 2", "+b = 3"]}]
    paired = result_entry("ok", {"filePath": "/r/a.py", **edit, "structuredPatch": patch})

    alone = render_entry(call_entry("Edit", edit))
    together = render_entry(call_entry("Edit", edit, paired_result=paired))

    assert alone.count('<table class="diff') == 1 and "diff--numbered" not in alone
    assert together.count('<table class="diff') == 1 and "diff--numbered" in together


def test_it_shows_written_content_as_highlighted_code():
    html = render_entry(call_entry("Write", {"file_path": "/r/app.js", "content": "const a = '<b>';\n"}))

    assert 'data-language="javascript"' in html
    assert '<span class="kd">const</span>' in html
    assert "<b>" not in html


# --- Markdown cards -------------------------------------------------------------------------------


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
    template = Template("{% load introspect_tags %}{% long_text text markdown=True %}")
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
