"""What a transcript line is: the one classification the session page's cards and search share.

`card` names the card partials/entry.html draws; `search_kind` is the word a search hit is labelled
with and filtered by. Both read the same flags in the same order, so a line the session page draws
as a tool call is the line search calls "tool input". The SQL that filters search by kind
(queries/search.py KIND_SQL) mirrors `search_kind` and is tested against it.
"""

from __future__ import annotations

from typing import Protocol


class Line(Protocol):
    type: str
    subtype: str
    is_prompt: bool
    is_meta: bool
    is_compact_summary: bool
    tool_use_id: str | None
    tool_result_id: str | None
    hook_event: str | None


def card(entry: Line) -> str:
    """Which card draws `entry`: prompt, summary, result, meta, user, thinking, call, reply, …"""
    kind = entry.type
    if kind == "user":
        if entry.is_prompt:
            return "prompt"
        if entry.is_compact_summary:
            return "summary"
        if entry.tool_result_id:
            return "result"
        return "meta" if entry.is_meta else "user"
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
