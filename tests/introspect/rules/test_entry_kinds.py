"""One classification of transcript lines: the card the session page draws and the kind search shows."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from introspect.rules import entry_kinds


@dataclass
class Line:
    type: str
    subtype: str = ""
    is_prompt: bool = False
    is_meta: bool = False
    is_compact_summary: bool = False
    tool_use_id: str | None = None
    tool_result_id: str | None = None
    hook_event: str | None = None


@pytest.mark.parametrize(
    ("line", "card", "kind"),
    [
        (Line("user", is_prompt=True), "prompt", "prompt"),
        (Line("user", is_compact_summary=True), "summary", "summary"),
        (Line("user", tool_result_id="toolu_1"), "result", "result"),
        (Line("user", is_meta=True), "meta", "injected"),
        (Line("user"), "user", "user"),
        (Line("assistant", subtype="thinking"), "thinking", "thinking"),
        (Line("assistant", subtype="tool_use", tool_use_id="toolu_1"), "call", "tool"),
        (Line("assistant", subtype="text"), "reply", "reply"),
        (Line("assistant", subtype="text", tool_use_id=""), "reply", "reply"),
        (Line("system", subtype="compact_boundary"), "compaction", "compaction"),
        (Line("system"), "system", "system"),
        (
            Line("attachment", subtype="hook_additional_context", hook_event="UserPromptSubmit"),
            "context",
            "context",
        ),
        (Line("attachment", hook_event="PreToolUse"), "hook", "hook"),
        (Line("attachment"), "attachment", "attachment"),
        (Line("queue-operation"), "queued", "queued"),
        (Line("ai-title"), "unknown", "title"),
        (Line("mystery"), "unknown", "mystery"),
        (Line(""), "unknown", "line"),
    ],
)
def test_it_names_each_line_for_the_session_page_and_for_search(line, card, kind):
    assert entry_kinds.card(line) == card
    assert entry_kinds.search_kind(line) == kind


def test_it_reads_a_prompt_flag_before_a_tool_result_as_the_session_page_does():
    assert entry_kinds.search_kind(Line("user", is_prompt=True, tool_result_id="toolu_1")) == "prompt"


def test_it_calls_a_thinking_line_thinking_even_with_a_tool_id():
    assert entry_kinds.search_kind(Line("assistant", subtype="thinking", tool_use_id="toolu_1")) == "thinking"


def test_it_labels_the_filterable_kinds_in_plain_words():
    assert [entry_kinds.kind_label(kind) for kind in entry_kinds.FILTER_KINDS] == [
        "prompt",
        "reply",
        "tool input",
        "tool output",
        "thinking",
        "way fired",
    ]
    assert entry_kinds.kind_label("summary") == "summary"
