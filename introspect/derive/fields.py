"""The session facts a whole rebuild and a tail extension both compute, computed once here.

A rebuild computes them over all of a session's rows, an extension over the rows appended since its
last build and folds them into the stored values; each fact is one function so the two stay equal
(tests/introspect/derive/test_extend.py holds them to a whole rebuild, row for row).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import orjson
from django.db.models import Q, QuerySet

from introspect.models import Session, SourceFile, TranscriptEntry, WaysEvent
from introspect.rules import entry_kinds, join, usage

# Bump when the derived rows change meaning or shape: the next import pass rebuilds every session.
# 8: the outcome signals of each conversation turn (derive/turn_outcomes.py)
# 7: an interruption is no prompt, a prompt queued while the agent worked is one (turns, joins, titles)
# 6: 1-hour cache writes, long-context tiers and fast mode priced apart (rules/pricing.py);
# 5: an interruption marker is not the first prompt; 4: usage per message, final row
DERIVED_VERSION = 8
USAGE_FIELDS = usage.FIELDS
# The columns of a usage row (rules.usage.Row) after message id, request id and model.
USAGE_COLUMNS = (*usage.FIELDS, *usage.SPLIT, "speed")
USAGE_ROW = ("message_id", "request_id", "model", *USAGE_COLUMNS)  # a rules.usage.Row
TITLE_TYPES = ("ai-title", "custom-title")
# Claude Code's own titles, strongest first: one the user set, then its generated one, then a
# legacy summary (trusted only when its leafUuid is a line of the same file: formats-claude-code.md §10).
TITLE_ORDER = ("custom-title", "ai-title", "summary")
FIRST_PROMPT_CAP = 2000
PROMPT_TITLE_CHARS = 100
CONTEXT_FIELDS = usage.CONTEXT
NO_USAGE = usage.totals(())  # a session without transcript lines


def transcript_status(trunk: SourceFile | None) -> str:
    """Whether the session's transcript is imported, and still on disk."""
    if trunk is None:
        return Session.TranscriptStatus.NONE
    return (
        Session.TranscriptStatus.GONE
        if trunk.status == SourceFile.Status.GONE
        else Session.TranscriptStatus.PRESENT
    )


def title(trunk: SourceFile | None, first: str) -> str:
    """Claude Code's own title for the session (the last custom-title, else the last ai-title, else
    the last trusted summary), else the first prompt cut to a title."""
    if trunk is None:
        return prompt_title(first)
    lines = list(
        TranscriptEntry.objects.filter(source=trunk, type__in=TITLE_ORDER)
        .exclude(text="")
        .order_by("offset", "index")
        .only("type", "text", "raw", "raw_compressed")
    )
    leaves = {entry.pk: summary_leaf(entry) for entry in lines if entry.type == "summary"}
    # Claude Code has written other sessions' summaries into files: a summary counts only when
    # its leafUuid is a line of this file (formats-claude-code.md §10).
    own = (
        set(
            TranscriptEntry.objects.filter(
                source=trunk,
                session_key=trunk.session_key,
                uuid__in={leaf for leaf in leaves.values() if leaf},
            ).values_list("uuid", flat=True)
        )
        if any(leaves.values())
        else set()
    )
    best = {entry.type: entry.text for entry in lines if entry.type != "summary" or leaves[entry.pk] in own}
    return next((best[kind] for kind in TITLE_ORDER if kind in best), "") or prompt_title(first)


def summary_leaf(entry: TranscriptEntry) -> str:
    """The leafUuid a summary line names ('' when it names none)."""
    try:
        leaf = orjson.loads(entry.line).get("leafUuid")
    except (orjson.JSONDecodeError, AttributeError):
        return ""
    return leaf if isinstance(leaf, str) else ""


def prompt_title(prompt: str, limit: int = PROMPT_TITLE_CHARS) -> str:
    """A prompt as a one-line title: whitespace folded, cut at a word boundary near `limit`, with an ellipsis."""
    text = " ".join(prompt.split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,.;:") + "…"


def first_prompt(entries: Iterable[TranscriptEntry]) -> str:
    """The first real prompt in the order given (an interruption marker is not one), capped."""
    return next(
        (
            e.text
            for e in entries
            if e.is_prompt and e.text.strip() and not entry_kinds.is_interruption(e.text)
        ),
        "",
    )[:FIRST_PROMPT_CAP]


def peak_context(entries: Iterable[TranscriptEntry], previous: int = 0) -> int:
    """The largest context one assistant line reports: input + cache read + cache write tokens."""
    return max(
        [
            previous,
            *(
                sum(getattr(e, name) or 0 for name in CONTEXT_FIELDS)
                for e in entries
                if e.type == "assistant"
            ),
        ]
    )


def compaction_marks(entries: Iterable[TranscriptEntry]) -> list[dict]:
    """Each compact_boundary line (formats-claude-code.md §10): when, what triggered it, tokens before."""
    marks = []
    for entry in entries:
        if entry.type != "system" or entry.subtype != "compact_boundary":
            continue
        try:
            meta = orjson.loads(entry.line).get("compactMetadata")
        except (orjson.JSONDecodeError, AttributeError):
            meta = None
        meta = meta if isinstance(meta, dict) else {}
        pre = meta.get("preTokens")
        marks.append(
            {
                "ts": entry.timestamp_raw or "",
                "trigger": meta.get("trigger") if isinstance(meta.get("trigger"), str) else "",
                "pre_tokens": pre if isinstance(pre, int) and not isinstance(pre, bool) else None,
            }
        )
    return marks


def message_count(entries: Iterable[TranscriptEntry]) -> int:
    """User prompts and assistant lines."""
    return sum(1 for e in entries if e.is_prompt or e.type == "assistant")


def apply_model(session: Session, model: str) -> None:
    """The last assistant model, and the context window it has (200K when the model is not known),
    widened when the session's peak context (set before) did not fit in it (join.observed_window)."""
    session.model = model
    window, session.window_from_model = join.window_for(model or None)
    observed = join.observed_window(window, session.peak_context_tokens)
    session.window_observed = observed != window
    session.window_k = observed // 1000


def models_seen(events: Iterable[WaysEvent], previous: str = "") -> str:
    """The `model` values fires recorded, comma-separated, with those seen before."""
    names = {name for name in previous.split(", ") if name}
    names |= {event.model for event in events if event.model and event.model != "unknown"}
    return ", ".join(sorted(names))


def all_models(session: Session, trunk: SourceFile | None) -> str:
    """Every model the session used: of its fires, and of the assistant lines of its trunk and its
    subagent files (Haiku side calls and subagents' models included), comma-separated."""
    events = WaysEvent.objects.filter(session=session).exclude(model=None).values_list("model", flat=True)
    where = Q(source__kind=SourceFile.Kind.SUBAGENT_TRANSCRIPT)
    if trunk is not None:
        where |= Q(source=trunk)
    lines = (
        TranscriptEntry.objects.filter(where, session=session, type="assistant")
        .exclude(model=None)
        .values_list("model", flat=True)
    )
    names = {name for name in lines.distinct() if not join.is_placeholder_model(name)}
    return ", ".join(sorted({*events.distinct(), *names} - {"unknown", ""}))


@dataclass(frozen=True)
class EventCounts:
    events: int
    way_fires: int
    near_misses: int


def event_counts(events: Sequence[WaysEvent]) -> EventCounts:
    """Event, way_fired and near-miss counts, each line counted as often as it occurs (×N)."""
    total = way_fires = near_misses = 0
    for event in events:  # one pass: a cold import counts a million events
        occurred = event.occurrences if event.occurrences > 1 else 1
        total += occurred
        if event.event == "way_fired":
            way_fires += occurred
        elif event.event == "way_nearmiss":
            near_misses += occurred
    return EventCounts(events=total, way_fires=way_fires, near_misses=near_misses)


def usage_rows(entries: QuerySet[TranscriptEntry]) -> QuerySet:
    """The usage rows (rules.usage.Row) of some transcript lines, in file order: one values_list query."""
    return (
        entries.exclude(**dict.fromkeys((*USAGE_FIELDS, *usage.SPLIT)))
        # File order, as the (session, source, offset) index reads it: no sort.
        .order_by("source_id", "offset")
        .values_list(*USAGE_ROW)
    )


def has_usage(entry: TranscriptEntry) -> bool:
    """Whether the line is a usage row (`usage_rows` keeps it)."""
    return any(getattr(entry, name) is not None for name in (*USAGE_FIELDS, *usage.SPLIT))


def usage_row(entry: TranscriptEntry) -> usage.Row:
    return tuple(getattr(entry, name) for name in USAGE_ROW)


def grown_usage(session: Session, added: Sequence[TranscriptEntry]) -> usage.UsageTotals:
    """The session's stored usage with these lines counted too (every line of its files above its
    built mark): as `session_usage` would count them all again, reading only the older lines of
    the messages they continue (the (session, message_id) index), never the whole session's."""
    added_rows = sorted(((e.source_id, e.offset), usage_row(e)) for e in added if has_usage(e))
    keys = {(row[0], row[1]) for _, row in added_rows if row[0] and row[1]}
    older = []
    if keys:
        lines = TranscriptEntry.objects.filter(
            session=session, pk__lte=session.built_entry_id, message_id__in={key[0] for key in keys}
        )
        older = [
            ((source, offset), tuple(row))
            for source, offset, *row in usage_rows(lines).values_list("source_id", "offset", *USAGE_ROW)
            if (row[0], row[1]) in keys
        ]
    # In file order, as `usage_rows` reads them: a message's model is the first real one its lines name.
    gone = usage.totals(usage.messages(row for _, row in older))
    put = usage.totals(usage.messages(row for _, row in sorted(older + added_rows, key=lambda item: item[0])))
    return usage.moved(stored_usage(session), gone, put)


def stored_usage(session: Session) -> usage.UsageTotals:
    return usage.UsageTotals(
        **{name: getattr(session, name) for name in (*USAGE_FIELDS, "cost_usd", "unpriced_messages")}
    )


def session_usage(session: Session) -> usage.UsageTotals:
    """Token totals and list-price cost over all the session's files, one usage per message
    (message.id + requestId, the largest count of each field: rules/usage.py)."""
    return usage.totals(usage.messages(usage_rows(TranscriptEntry.objects.filter(session=session))))


def apply_usage(session: Session, found: usage.UsageTotals) -> None:
    for name in (*USAGE_FIELDS, "cost_usd", "unpriced_messages"):
        setattr(session, name, getattr(found, name))
