"""What a transcript line is: the one classification the session page's cards and search share.

`card` names the card partials/entry.html draws; `search_kind` is the word a search hit is labelled
with and filtered by. Both read the same flags in the same order, so a line the session page draws
as a tool call is the line search calls "tool input". The SQL that filters search by kind
(queries/search_filters.py KIND_SQL) mirrors `search_kind` and is tested against it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Line(Protocol):
    type: str
    subtype: str
    text: str
    is_prompt: bool
    is_meta: bool
    is_compact_summary: bool
    tool_use_id: str | None
    tool_result_id: str | None
    hook_event: str | None


# Claude Code writes these as user lines when the person stops the agent (Esc, or a refused tool):
# a mark on the turn they interrupted, never a prompt (formats-claude-code.md §5, §12).
INTERRUPTIONS = ("[Request interrupted by user", "[Request cancelled by user")
# A queued_command attachment is a prompt the person typed while the agent worked, delivered into
# the running turn (2.1.101+: it has no user line of its own) when its mode is "prompt" and it came
# from a person; task notifications and other sessions' messages are machine input.
QUEUED_COMMAND = "queued_command"
HUMAN_QUEUE_MODES = frozenset({"", "prompt"})
HUMAN_ORIGINS = frozenset({"", "human"})
# queue-operation lines are the input queue's bookkeeping: what was typed is the `enqueue` line's
# content; dequeue/remove/popAll only move it (their content is empty before 2.1.205, a copy after).
ENQUEUE = "enqueue"


def is_interruption(text: str) -> bool:
    """A user line that records an interruption rather than words a person typed."""
    return text.lstrip().startswith(INTERRUPTIONS)


def queued_by_a_person(attachment: dict) -> bool:
    """A queued_command attachment typed by a person (mode "prompt" or none, origin human or none)."""
    mode = attachment.get("commandMode")
    origin = attachment.get("origin")
    kind = origin.get("kind") if isinstance(origin, dict) else None
    return (mode if isinstance(mode, str) else "") in HUMAN_QUEUE_MODES and (
        kind if isinstance(kind, str) else ""
    ) in HUMAN_ORIGINS


def card(entry: Line) -> str:
    """Which card draws `entry`: prompt, summary, result, meta, user, thinking, call, reply, …"""
    kind = entry.type
    if entry.is_prompt:
        return "prompt"  # a user line, or a prompt queued while the agent worked (an attachment)
    if kind == "user":
        if entry.is_compact_summary:
            return "summary"
        if entry.tool_result_id:
            return "result"
        if entry.is_meta:
            return "meta"
        return "interrupt" if is_interruption(entry.text) else "user"
    if kind == "assistant":
        if entry.subtype == "thinking":
            return "thinking"
        return "call" if entry.tool_use_id else "reply"
    if kind == "system":
        return "compaction" if entry.subtype == "compact_boundary" else "system"
    if kind == "attachment":
        if entry.subtype == "hook_additional_context":
            return "context"
        return "hook" if entry.hook_event else "attachment"
    return "queued" if kind == "queue-operation" else "unknown"


def bookkeeping(entry: Line) -> bool:
    """A queue-operation line that only moves input through the queue (no words of its own to show):
    every operation but `enqueue`, and an `enqueue` with no text."""
    return entry.type == "queue-operation" and (entry.subtype != ENQUEUE or not entry.text.strip())


# A card's name where a person would say it differently in a list of search hits.
SEARCH_NAMES = {"call": "tool", "meta": "injected"}
TITLE_TYPES = frozenset({"ai-title", "custom-title"})

# The kinds a search can be narrowed to, with the words the filter shows. "way" is a turn whose
# fired way ids matched, not a transcript line.
FILTER_KINDS = {
    "prompt": "prompt",
    "reply": "reply",
    "tool": "tool input",
    "result": "tool output",
    "thinking": "thinking",
    "way": "way fired",
}


def search_kind(entry: Line) -> str:
    """The kind a search hit on `entry` is labelled with (FILTER_KINDS keys among them)."""
    name = card(entry)
    if name == "unknown":
        return "title" if entry.type in TITLE_TYPES else (entry.type or "line")
    return SEARCH_NAMES.get(name, name)


def kind_label(kind: str) -> str:
    """The words shown for a search kind: "tool input" for `tool`; other kinds as they are named."""
    return FILTER_KINDS.get(kind, kind)


def hidden_queue_lines(entries: Sequence[Line], texts: Sequence[str] | None = None) -> set[int]:
    """Positions (in `entries`, a page in file order) of queue-operation lines the conversation does
    not draw: the bookkeeping ones, and every `enqueue` whose words a later prompt of the page
    carries (the prompt shows them; Claude Code may join several queued messages into one).
    `texts`: the entries' texts as shown, when they are not their stored ones."""
    shown = [entry.text for entry in entries] if texts is None else texts
    hidden = set()
    prompts = [(n, " ".join(shown[n].split())) for n, entry in enumerate(entries) if entry.is_prompt]
    for n, entry in enumerate(entries):
        if entry.type != "queue-operation":
            continue
        words = " ".join(shown[n].split())
        if bookkeeping(entry) or any(at > n and words in text for at, text in prompts):
            hidden.add(n)
    return hidden
