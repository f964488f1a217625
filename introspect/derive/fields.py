"""The session facts a whole rebuild and a tail extension both compute, computed once here.

A rebuild computes them over all of a session's rows, an extension over the rows appended since its
last build and folds them into the stored values; each fact is one function so the two stay equal
(tests/introspect/derive/test_extend.py holds them to a whole rebuild, row for row).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from introspect.models import Session, SourceFile, TranscriptEntry, WaysEvent
from introspect.rules import join

# Bump when the derived rows change meaning or shape: the next import pass rebuilds every session.
DERIVED_VERSION = 3
USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
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


def session_usage(session: Session) -> dict[str, int]:
    """Token totals over the session's files, de-duplicated by message.id + requestId as ccusage does.

    ccusage 17.2.1 keeps the FIRST usage seen for a key (files read oldest first) and never merges
    lines lacking either id; we match it so totals agree with the tool people already trust.
    """
    totals = dict.fromkeys(USAGE_FIELDS, 0)
    rows = (
        TranscriptEntry.objects.filter(session=session)
        .exclude(
            input_tokens=None,
            output_tokens=None,
            cache_creation_input_tokens=None,
            cache_read_input_tokens=None,
        )
        .values_list("source_id", "offset", "index", "ts", "message_id", "request_id", *USAGE_FIELDS)
    )
    first_seen: dict[int, object] = {}
    for source_id, _, _, ts, *_ in rows:
        if ts is not None and (source_id not in first_seen or ts < first_seen[source_id]):
            first_seen[source_id] = ts
    ordered = sorted(
        rows, key=lambda r: (first_seen.get(r[0]) is None, first_seen.get(r[0]) or 0, r[0], r[1], r[2])
    )
    seen: set[tuple[str, str]] = set()
    for row in ordered:
        message_id, request_id = row[4], row[5]
        if message_id and request_id:
            if (message_id, request_id) in seen:
                continue
            seen.add((message_id, request_id))
        for name, value in zip(USAGE_FIELDS, row[6:], strict=True):
            totals[name] += value or 0
    return totals
