"""Conversation cards: which card an entry gets, its anchor, how its call ended and what was answered."""

from __future__ import annotations

from django import template
from django.utils.html import format_html

from introspect.rules import tool_cards
from introspect.templatetags.introspect_format import dom_id

register = template.Library()


@register.filter
def call_status(result_card: object) -> str:
    """How the call whose paired result's card (queries.entry_cards.EntryCard) this is ended
    (rules/tool_cards.call_status)."""
    return tool_cards.call_status(getattr(result_card, "result", None))


@register.filter
def entry_anchor(entry) -> str:
    """` id="u-…"`, the attribute a permalink (`#u-…`) and the live tail's swaps find an entry's card
    by; nothing for a line without a uuid."""
    return format_html(' id="u-{}"', dom_id(entry.uuid)) if entry.uuid else ""


@register.filter
def answered(call: tool_cards.ToolCall, entry_card):
    """AskUserQuestion: the call's questions, with the answers of its card's `paired_result` (a
    queries.entry_cards.EntryCard) once it has one.

    Takes the call's card, not the result: a missing `paired_result` must not fail the lookup of a
    filter argument (Django raises there, where it forgives the filtered value).
    """
    paired = getattr(entry_card, "paired_result", None)
    return tool_cards.answered(call, getattr(paired, "result", None))
