"""The conversation entry cards (introspect/partials/entry.html) and the filters that draw them:
which card an entry gets, the call and its paired result, one highlighting budget over a render
(introspect/templatetags/introspect_cards.py)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from types import SimpleNamespace

import orjson
from django.template import Context, Template
from django.template.loader import render_to_string

from introspect.queries.entry_cards import EntryCard, entry_card
from introspect.rules import entry_kinds, highlight

TS = datetime(2026, 2, 10, 21, 11, 56, tzinfo=UTC)


def card_of(entry: SimpleNamespace, paired_result: EntryCard | None = None) -> EntryCard:
    """An entry's card as queries.entry_cards builds it: its call or result parsed from its line."""
    return entry_card(
        entry,
        masked=None,
        text=entry.text,
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


def test_it_names_the_card_each_kind_of_entry_gets():
    def entry(kind: str, subtype: str = "", **flags) -> SimpleNamespace:
        fields = {"is_prompt": False, "is_compact_summary": False, "is_meta": False, "text": ""}
        fields |= {"tool_result_id": None, "tool_use_id": None, "hook_event": None}
        return SimpleNamespace(type=kind, subtype=subtype, **(fields | flags))

    assert entry_kinds.card(entry("user", is_prompt=True)) == "prompt"
    assert entry_kinds.card(entry("user", is_compact_summary=True)) == "summary"
    assert entry_kinds.card(entry("user", tool_result_id="toolu_1")) == "result"
    assert entry_kinds.card(entry("user", is_meta=True)) == "meta"
    assert entry_kinds.card(entry("user")) == "user"
    assert entry_kinds.card(entry("user", text="[Request interrupted by user for tool use]")) == "interrupt"
    assert entry_kinds.card(entry("attachment", "queued_command", is_prompt=True)) == "prompt"
    assert entry_kinds.card(entry("assistant", "thinking", tool_use_id="toolu_1")) == "thinking"
    assert entry_kinds.card(entry("assistant", "tool_use", tool_use_id="toolu_1")) == "call"
    assert entry_kinds.card(entry("assistant", "text")) == "reply"
    assert entry_kinds.card(entry("system", "compact_boundary")) == "compaction"
    assert entry_kinds.card(entry("system", "turn_duration")) == "system"
    assert (
        entry_kinds.card(entry("attachment", "hook_additional_context", hook_event="SessionStart"))
        == "context"
    )
    assert entry_kinds.card(entry("attachment", "hook_success", hook_event="Stop")) == "hook"
    assert entry_kinds.card(entry("attachment", "todo_reminder")) == "attachment"
    assert entry_kinds.card(entry("queue-operation")) == "queued"
    assert entry_kinds.card(entry("pr-link")) == "unknown"


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
