"""Trigger channels as the terminal UI labels and groups them (agent-ways render.rs format_trigger)."""

from __future__ import annotations

TRIGGER_LABELS = {
    "semantic:embedding:en": "embed:en",
    "semantic:embedding:multi": "embed:multi",
    "semantic:embedding": "embed",
    "semantic": "embed",
    "semantic:bash:en": "embed:bash:en",
    "semantic:bash:multi": "embed:bash:multi",
}

FAMILIES = frozenset({"semantic", "keyword", "bash", "file", "state", "judge", "attend"})


def trigger_label(trigger: str) -> str:
    """The short label, e.g. `embed:en` for `semantic:embedding:en`; other channels as written."""
    return TRIGGER_LABELS.get(trigger, trigger)


def channel_kind(trigger: str | None) -> str:
    """The channel's family, for styling: semantic, keyword, bash, file, state, judge, attend, other."""
    if not trigger:
        return "none"
    head = trigger.split(":", 1)[0]
    return head if head in FAMILIES else "other"
