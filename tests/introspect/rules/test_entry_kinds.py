"""One classification of transcript lines: the card the session page draws and the kind search shows."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from introspect.rules import entry_kinds


@dataclass
class Line:
    type: str
    subtype: str = ""
    text: str = ""
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
        (Line("user", text="[Request interrupted by user]"), "interrupt", "interrupt"),
        (Line("user", text="[Request interrupted by user for tool use]"), "interrupt", "interrupt"),
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
        (
            Line("attachment", subtype="queued_command", text="check again", is_prompt=True),
            "prompt",
            "prompt",
        ),
        (
            Line("attachment", subtype="queued_command", text="<task-notification>"),
            "attachment",
            "attachment",
        ),
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


def test_it_knows_an_interruption_from_words_a_person_typed():
    assert entry_kinds.is_interruption("[Request interrupted by user for tool use]")
    assert entry_kinds.is_interruption("[Request cancelled by user]")
    assert not entry_kinds.is_interruption("why was the [Request interrupted by user] line shown?")


@pytest.mark.parametrize(
    ("attachment", "human"),
    [
        (
            {
                "type": "queued_command",
                "prompt": "check again",
                "commandMode": "prompt",
                "origin": {"kind": "human"},
            },
            True,
        ),
        ({"type": "queued_command", "prompt": "check again", "commandMode": "prompt"}, True),
        ({"type": "queued_command", "prompt": "check again"}, True),
        (
            {"type": "queued_command", "prompt": "<task-notification>…", "commandMode": "task-notification"},
            False,
        ),
        (
            {"type": "queued_command", "prompt": "hi", "commandMode": "prompt", "origin": {"kind": "peer"}},
            False,
        ),
        ({"type": "queued_command", "prompt": "go on", "origin": {"kind": "auto-continuation"}}, False),
    ],
)
def test_it_takes_a_queued_command_for_a_persons_prompt_only_when_a_person_typed_it(attachment, human):
    assert entry_kinds.queued_by_a_person(attachment) is human


def test_it_hides_the_queues_bookkeeping_and_what_a_prompt_already_shows():
    page = [
        Line("user", text="fix the test", is_prompt=True),
        Line("queue-operation", subtype="enqueue", text="check again"),  # 1: delivered below
        Line("queue-operation", subtype="enqueue", text="/mcp"),  # 2: never a prompt: shown
        Line("queue-operation", subtype="remove"),  # 3: bookkeeping, no words
        Line(
            "queue-operation", subtype="dequeue", text="check again"
        ),  # 4: bookkeeping (2.1.205 copies words)
        Line("queue-operation", subtype="enqueue", text="  "),  # 5: nothing typed
        Line("user", text="[Request interrupted by user for tool use]"),
        Line("attachment", subtype="queued_command", text="check  again\nand the logs", is_prompt=True),
    ]

    assert entry_kinds.hidden_queue_lines(page) == {1, 3, 4, 5}


def test_it_shows_an_enqueue_whose_words_only_an_earlier_prompt_has():
    page = [
        Line("user", text="continue", is_prompt=True),
        Line("queue-operation", subtype="enqueue", text="continue"),
    ]

    assert entry_kinds.hidden_queue_lines(page) == set()
