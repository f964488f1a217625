"""The session facts a whole rebuild and a tail extension both compute, computed once here.

A rebuild computes them over all of a session's rows, an extension over the rows appended since its
last build and folds them into the stored values; each fact is one function so the two stay equal
(tests/introspect/derive/test_extend.py holds them to a whole rebuild, row for row).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db.models import QuerySet

from introspect.models import Session, SourceFile, TranscriptEntry, WaysEvent
from introspect.rules import join, usage

# Bump when the derived rows change meaning or shape: the next import pass rebuilds every session.
DERIVED_VERSION = 4  # 4: usage is the final row of each message, cost per message's model
USAGE_FIELDS = usage.FIELDS
TITLE_TYPES = ("ai-title", "custom-title")


def transcript_status(trunk: SourceFile | None) -> str:
    """Whether the session's transcript is imported, and still on disk."""
    if trunk is None:
        return Session.TranscriptStatus.NONE
    return (
        Session.TranscriptStatus.GONE
        if trunk.status == SourceFile.Status.GONE
        else Session.TranscriptStatus.PRESENT
    )


def title(entries: Sequence[TranscriptEntry], default: str = "") -> str:
    """Claude Code's own title for the session: the last ai-title or custom-title line."""
    return next((e.text for e in reversed(entries) if e.type in TITLE_TYPES and e.text), default)


def message_count(entries: Iterable[TranscriptEntry]) -> int:
    """User prompts and assistant lines."""
    return sum(1 for e in entries if e.is_prompt or e.type == "assistant")


def apply_model(session: Session, model: str) -> None:
    """The last assistant model, and the context window it has (200K when the model is not known)."""
    session.model = model
    window, session.window_from_model = join.window_for(model or None)
    session.window_k = window // 1000


def models_seen(events: Iterable[WaysEvent], previous: str = "") -> str:
    """The `model` values fires recorded, comma-separated, with those seen before."""
    names = {name for name in previous.split(", ") if name}
    names |= {event.model for event in events if event.model and event.model != "unknown"}
    return ", ".join(sorted(names))


@dataclass(frozen=True)
class EventCounts:
    events: int
    way_fires: int
    near_misses: int


def event_counts(events: Sequence[WaysEvent]) -> EventCounts:
    """Event, way_fired and near-miss counts, each line counted as often as it occurs (×N)."""
    occurrences = [max(event.occurrences, 1) for event in events]
    return EventCounts(
        events=sum(occurrences),
        way_fires=sum(n for event, n in zip(events, occurrences, strict=True) if event.event == "way_fired"),
        near_misses=sum(
            n for event, n in zip(events, occurrences, strict=True) if event.event == "way_nearmiss"
        ),
    )


def usage_rows(entries: QuerySet[TranscriptEntry]) -> QuerySet:
    """The usage rows (rules.usage.Row) of some transcript lines, in file order: one values_list query."""
    return (
        entries.exclude(
            input_tokens=None,
            output_tokens=None,
            cache_creation_input_tokens=None,
            cache_read_input_tokens=None,
        )
        # File order, as the (session, source, offset) index reads it: no sort.
        .order_by("source_id", "offset")
        .values_list("message_id", "request_id", "model", *USAGE_FIELDS)
    )


def session_usage(session: Session) -> usage.UsageTotals:
    """Token totals and list-price cost over all the session's files, one usage per message
    (message.id + requestId, the largest count of each field: rules/usage.py)."""
    return usage.totals(usage.messages(usage_rows(TranscriptEntry.objects.filter(session=session))))


def apply_usage(session: Session, found: usage.UsageTotals) -> None:
    for name in (*USAGE_FIELDS, "cost_usd", "unpriced_messages"):
        setattr(session, name, getattr(found, name))
