"""Which card a transcript entry is drawn as: one name per kind of entry, by its type and flags.

The session page (partials/entry.html, through the `card` filter) and the exports
(introspect/documents/export_*.py) ask the same question; the answer lives here once.
"""

from __future__ import annotations

from typing import Any


def card(entry: Any) -> str:
    """The card name of a TranscriptEntry (or anything with its fields): prompt, reply, call, …"""
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
