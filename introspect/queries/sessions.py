"""Reads for the introspection pages: each returns exactly what a template may show."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.core.paginator import Page, Paginator
from django.db.models import Count, F, Max, Min, Prefetch, Q, QuerySet
from django.utils import timezone

from introspect.derive import fields
from introspect.derive.sources import EVENT_ORDER
from introspect.models import (
    Project,
    Session,
    Spill,
    Subagent,
    TranscriptEntry,
    Turn,
    TurnWay,
    Way,
    WaysEvent,
)
from introspect.queries import providers
from introspect.rules import evidence, tool_cards, usage
from lib import bulk

SESSIONS_PER_PAGE = 50
EVENTS_PER_PAGE = 500


@dataclass(frozen=True)
class SessionFilters:
    project: int | None = None
    q: str = ""
    sort: str = "newest"
    since: date | None = None
    until: date | None = None
    model: str = ""
    transcript: str = ""  # "", "yes" (present), "gone", "none"
    live: bool = False

    @property
    def active(self) -> bool:
        return bool(
            self.project or self.q or self.since or self.until or self.model or self.transcript or self.live
        )


SORTS = {
    "newest": (F("started_at").desc(nulls_last=True), "-pk"),
    "oldest": (F("started_at").asc(nulls_last=True), "pk"),
    "fires": ("-total_fires", "-pk"),
    "turns": ("-turn_count", "-pk"),
    "duration": ("-duration_secs", "-pk"),
}


def session_list_page(filters: SessionFilters, *, page: int) -> Page:
    """Sessions newest first (by origin), filtered by project and a text match on id or project."""
    sessions = Session.objects.select_related("project")
    if filters.project:
        sessions = sessions.filter(project_id=filters.project)
    if filters.q:
        sessions = sessions.filter(
            Q(sid__icontains=filters.q)
            | Q(project__path__icontains=filters.q)
            | Q(title__icontains=filters.q)
        )
    if filters.since:
        sessions = sessions.filter(started_at__date__gte=filters.since)
    if filters.until:
        sessions = sessions.filter(started_at__date__lte=filters.until)
    if filters.model:
        sessions = sessions.filter(
            Q(model__icontains=filters.model) | Q(models_seen__icontains=filters.model)
        )
    if filters.transcript:
        status = {
            "yes": Session.TranscriptStatus.PRESENT,
            "gone": Session.TranscriptStatus.GONE,
            "none": Session.TranscriptStatus.NONE,
        }.get(filters.transcript)
        if status:
            sessions = sessions.filter(transcript_status=status)
    if filters.live:
        sessions = sessions.filter(
            last_event_at__gte=timezone.now() - timedelta(minutes=Session.LIVE_MINUTES)
        )
    sessions = sessions.order_by(*SORTS.get(filters.sort, SORTS["newest"]))
    return Paginator(sessions, SESSIONS_PER_PAGE).get_page(page)


def models_for_filter() -> list[str]:
    """Model names seen in any session, for the filter menu."""
    names: set[str] = set()
    for seen, last in Session.objects.values_list("models_seen", "model").distinct():
        names.update(name.strip() for name in f"{seen},{last}".split(",") if name.strip())
    return sorted(names)


def projects_for_filter() -> QuerySet[Project]:
    return (
        Project.objects.annotate(session_count=Count("sessions")).filter(session_count__gt=0).order_by("name")
    )


TURNS_PER_PAGE = 20
CONVERSATION_LIMIT = 2000


def turns_page(
    session: Session, *, start: int = 1, after: int | None = None, size: int = TURNS_PER_PAGE
) -> list[Turn]:
    """A page of turns from epoch `start` (or after `after`, for live follow), with their rows.

    Of a turn's prompt only the file offset is read (`prompt_offset`, `nearest_offset`): the page
    shows the prompt from the conversation window (conversation_by_turn), not from a joined row.
    """
    rows = TurnWay.objects.select_related("event", "judge_event").order_by("position")
    turns = (
        session.turns.filter(epoch__gt=after) if after is not None else session.turns.filter(epoch__gte=start)
    )
    return list(
        turns.order_by("epoch")
        .annotate(prompt_offset=F("prompt_entry__offset"), nearest_offset=F("nearest_prompt__offset"))
        .prefetch_related(Prefetch("ways", queryset=rows))[:size]
    )


@dataclass
class Exchange:
    """The conversation from one prompt up to the next: what a turn links to."""

    prompt: TranscriptEntry | None
    entries: list[TranscriptEntry]
    first_turn: int | None = None


def conversation_entries(session: Session) -> QuerySet[TranscriptEntry]:
    return (
        TranscriptEntry.objects.filter(source_id=session.transcript_id, inert=False, is_copy=False)
        .exclude(type__in=("ai-title", "custom-title", "queue-operation", "progress"))
        .order_by("offset", "index")
    )


def for_display(entries: list[TranscriptEntry]) -> list[TranscriptEntry]:
    """Tool calls and results parsed into display cards (introspect/tool_cards.py), each
    entry's spilled outputs as `spill_list` (one query for all of them), and each assistant
    message's usage on its last line (message_usages, one more).

    (prefetch_related would build a queryset and a manager per entry, for the few that have any.)
    """
    spilled: dict[int, list[Spill]] = {}
    if entries:
        for spill in Spill.objects.filter(entry_id__in=[entry.pk for entry in entries]).order_by("pk"):
            spilled.setdefault(spill.entry_id, []).append(spill)
    for entry in entries:
        entry.spill_list = spilled.get(entry.pk, [])
        if entry.type == "assistant" and entry.tool_use_id:
            entry.call = tool_cards.tool_call(entry)
        elif entry.type == "user" and entry.tool_result_id:
            entry.result = tool_cards.tool_result(entry)
    message_usages(entries)
    return entries


def message_usages(entries: list[TranscriptEntry]) -> None:
    """Give the last line on the list of each assistant message its `usage`
    (rules.usage.MessageUsage): the final-row rule over every row of that message in the session,
    other files included, in one query for the list. A line lacking message.id or requestId is a
    message of its own. Every other line gets `usage = None`.
    """
    last: dict[tuple[str, str], TranscriptEntry] = {}
    for entry in entries:
        entry.usage = None
        if entry.type != "assistant":
            continue
        if entry.message_id and entry.request_id:
            last[(entry.message_id, entry.request_id)] = entry
        elif any(getattr(entry, name) is not None for name in usage.FIELDS):
            row = (None, None, entry.model, *(getattr(entry, name) for name in usage.FIELDS))
            entry.usage = usage.messages([row])[0]
    if not last:
        return
    rows = fields.usage_rows(
        TranscriptEntry.objects.filter(session_id__in={entry.session_id for entry in last.values()})
    )
    found = {
        (message.message_id, message.request_id): message
        for message in usage.messages(bulk.chunked_in(rows, "message_id", {m for m, _ in last}))
    }
    for key, entry in last.items():
        entry.usage = found.get(key)


@dataclass(frozen=True)
class SubagentSummary:
    """What a subagent run cost and did: over its own file."""

    models: list[str]
    totals: usage.UsageTotals
    tool_calls: int
    started_at: datetime | None
    ended_at: datetime | None

    @property
    def duration_secs(self) -> int:
        if self.started_at is None or self.ended_at is None:
            return 0
        return int((self.ended_at - self.started_at).total_seconds())


def subagent_summary(agent: Subagent) -> SubagentSummary | None:
    """A subagent's models, tokens and cost (one usage per message, its final row), tool calls
    (distinct tool_use ids) and duration (first to last stamped line of its file); None without
    a file. Two queries."""
    if agent.source_id is None:
        return None
    lines = TranscriptEntry.objects.filter(source_id=agent.source_id)
    messages = usage.messages(fields.usage_rows(lines))
    span = lines.aggregate(
        tool_calls=Count("tool_use_id", distinct=True, filter=Q(type="assistant")),
        first=Min("ts"),
        last=Max("ts"),
    )
    return SubagentSummary(
        models=usage.models(messages),
        totals=usage.totals(messages),
        tool_calls=span["tool_calls"],
        started_at=span["first"],
        ended_at=span["last"],
    )


def conversation_by_turn(session: Session, turns: list[Turn]) -> dict[int, Exchange]:
    """For each turn, the exchange its prompt opens (keyed) or the nearest prompt's (heuristic).

    Only the lines between the page's first prompt and the prompt after its last are read, so the
    cost follows the page, not the session. A prompt several fire turns share is shown once: under
    its keyed turn, else the first turn near it; the others point there.
    """
    offsets = [
        turn.prompt_offset if turn.prompt_entry_id else turn.nearest_offset
        for turn in turns
        if turn.prompt_entry_id or turn.nearest_prompt_id
    ]
    if session.transcript_id is None or not offsets:
        return {}
    following = (
        TranscriptEntry.objects.filter(
            source_id=session.transcript_id, is_prompt=True, is_copy=False, offset__gt=max(offsets)
        )
        .order_by("offset")
        .values_list("offset", flat=True)
        .first()
    )
    window = conversation_entries(session).filter(offset__gte=min(offsets))
    if following is not None:
        window = window.filter(offset__lt=following)
    entries = for_display(list(window[:CONVERSATION_LIMIT]))
    starts = [n for n, entry in enumerate(entries) if entry.is_prompt]
    position = {entry.pk: n for n, entry in enumerate(entries)}
    exchanges: dict[int, Exchange] = {}
    shown: dict[int, int] = {}
    for turn in sorted(turns, key=lambda t: (t.join_confidence != Turn.Join.KEYED, t.epoch)):
        anchor = turn.prompt_entry_id or turn.nearest_prompt_id
        if anchor is None or anchor not in position:
            continue
        start = position[anchor]
        if anchor in shown:
            exchanges[turn.pk] = Exchange(prompt=entries[start], entries=[], first_turn=shown[anchor])
            continue
        end = next((n for n in starts if n > start), len(entries))
        shown[anchor] = turn.epoch
        exchanges[turn.pk] = Exchange(prompt=entries[start], entries=entries[start + 1 : end])
    return exchanges


def conversation(session: Session) -> list[TranscriptEntry]:
    """The whole conversation of a session without fire turns (plain Claude Code)."""
    if session.transcript_id is None:
        return []
    return for_display(list(conversation_entries(session)[:CONVERSATION_LIMIT]))


def subagent_conversation(agent: Subagent) -> list[TranscriptEntry]:
    """A subagent's own transcript, loaded on demand under the call that spawned it."""
    if agent.source_id is None:
        return []
    return for_display(
        list(
            TranscriptEntry.objects.filter(source_id=agent.source_id, inert=False)
            .exclude(type__in=("progress", "queue-operation"))
            .order_by("offset", "index")[:CONVERSATION_LIMIT]
        )
    )


def near_misses_by_turn(session: Session, turns: list[Turn]) -> dict[int, list[WaysEvent]]:
    """Near-misses placed in the turn whose scan they belong to: the last turn starting ≤ 3 s after them.

    Only the page's time span is read (up to the next page's first turn), so long sessions cost the same.
    """
    if not turns:
        return {}
    lo = turns[0].ts - timedelta(seconds=3)
    misses = WaysEvent.objects.filter(session=session, event="way_nearmiss", ts__gte=lo)
    following = session.turns.filter(epoch=turns[-1].epoch + 1).values_list("ts", flat=True).first()
    if following is not None:
        misses = misses.filter(ts__lt=following - timedelta(seconds=3))
    starts = [turn.ts for turn in turns]
    out: dict[int, list[WaysEvent]] = {}
    for miss in misses.order_by("ts"):
        at = bisect_right(starts, miss.ts + timedelta(seconds=3)) - 1
        if at >= 0:
            out.setdefault(turns[at].pk, []).append(miss)
    return out


@dataclass(frozen=True)
class WindowSpan:
    number: int
    start_ts: str
    first_turn: int | None
    last_turn: int | None
    turns: int
    peak: int = 0  # the largest context position a turn of the window recorded


def window_spans(session: Session) -> list[WindowSpan]:
    """The compaction windows with the turns each holds, for the scrubber (one covering-index scan)."""
    spans = {
        row["window"]: row
        for row in session.turns.values("window").annotate(
            first=Min("epoch"), last=Max("epoch"), n=Count("pk"), peak=Max("token_position")
        )
    }
    windows = list(session.windows.order_by("number")) or []
    numbers = sorted({w.number for w in windows} | set(spans))
    starts = {w.number: w.start_ts for w in windows}
    return [
        WindowSpan(
            n,
            starts.get(n, ""),
            spans.get(n, {}).get("first"),
            spans.get(n, {}).get("last"),
            spans.get(n, {}).get("n", 0),
            spans.get(n, {}).get("peak") or 0,
        )
        for n in numbers
    ]


def peak_context(windows: list[WindowSpan]) -> int:
    """The largest context position any turn recorded (0: none recorded)."""
    return max((window.peak for window in windows), default=0)


def subagents_by_tool_use(session: Session) -> dict[str, Subagent]:
    return {
        agent.tool_use_id: agent for agent in Subagent.objects.filter(session=session).exclude(tool_use_id="")
    }


def events_for_session(session: Session, *, page: int = 1) -> Page:
    """Every event of the session in event order (the log, not only turn material)."""
    return Paginator(
        WaysEvent.objects.filter(session=session).order_by(*EVENT_ORDER), EVENTS_PER_PAGE
    ).get_page(page)


def events_after(session: Session, after: int) -> list[WaysEvent]:
    """Events imported after the row `after` (live follow: one indexed id > cursor lookup)."""
    return list(WaysEvent.objects.filter(session=session, pk__gt=after).order_by("pk"))


def last_event_id(session: Session) -> int:
    return WaysEvent.objects.filter(session=session).order_by("-pk").values_list("pk", flat=True).first() or 0


def attach_evidence(turns: list[Turn], ways: dict[str, Way], session: Session) -> None:
    """Give each turn row its why-fired lines (introspection.md §5) for the drill-down."""
    for turn in turns:
        for row in turn.ways.all():
            way = ways.get(row.way_id)
            row.evidence = evidence.why_fired(
                channel=row.trigger_channel,
                matched_span=row.matched_span,
                fire_score=row.fire_score,
                surface=row.event.surface,
                criteria=way.criteria if way else {},
                token_position=turn.token_position,
                window_k=session.window_k,
                keyed=turn.join_confidence == Turn.Join.KEYED,
            )


def ways_by_id(way_ids: set[str], project: Project | None) -> dict[str, Way]:
    """The way file that resolves each id today: project root first, then user, then core."""
    rank = {Way.RootKind.PROJECT: 0, Way.RootKind.USER: 1, Way.RootKind.CORE: 2}
    found: dict[str, Way] = {}
    candidates = Way.objects.filter(way_id__in=way_ids, present=True).filter(
        Q(project__isnull=True) | Q(project=project)
    )
    for way in sorted(candidates, key=lambda w: rank[w.root_kind]):
        found.setdefault(way.way_id, way)
    return found


def turn_context(session: Session, turns: list[Turn], *, header: bool = False) -> dict:
    """Everything a page of turns shows: rows with evidence, exchanges, near-misses, subagents,
    and what other apps note under each turn (introspect/queries/providers.py)."""
    way_ids = {row.way_id for turn in turns for row in turn.ways.all()}
    ways = ways_by_id(way_ids, session.project)
    attach_evidence(turns, ways, session)
    exchanges = conversation_by_turn(session, turns)
    misses = near_misses_by_turn(session, turns)
    notes = providers.session_notes(session, turns, header=header)
    for turn in turns:
        turn.notes = notes.by_turn.get(turn.pk, [])
        turn.exchange = exchanges.get(turn.pk)
        turn.near_misses = misses.get(turn.pk, [])
        # Spans are marked in the prompt only where the turn is keyed to that prompt.
        turn.prompt_spans = (
            [
                row.matched_span
                for row in turn.ways.all()
                if row.trigger_channel == "keyword" and row.matched_span
            ]
            if turn.join_confidence == "keyed"
            else []
        )
    return {
        "turns": turns,
        "ways": ways,
        "subagents": subagents_by_tool_use(session),
        "header_notes": notes.header,
    }


def session_detail_page(session: Session, *, start: int) -> dict:
    """The session page from turn `start`: the header's windows and gauge, a page of turns, and the
    whole conversation when the session has no fire turns (plain Claude Code)."""
    turns = turns_page(session, start=start)
    windows = window_spans(session)
    return {
        **turn_context(session, turns, header=True),
        "start": start,
        "next_start": turns[-1].epoch + 1 if turns and turns[-1].epoch < session.turn_count else None,
        "prev_start": max(start - TURNS_PER_PAGE, 1) if start > 1 else None,
        "windows": windows,
        "peak_context": peak_context(windows),
        "conversation": [] if session.turn_count else conversation(session),
        "cursor": turns[-1].epoch if turns else 0,
    }


def session_live_tail(session: Session, *, after: int) -> dict:
    """Live follow: the turns after the cursor, the last known turn again (it may have grown), and
    the cursor for the next poll. Turn numbers are stable, so the cursor is an epoch."""
    turns = turns_page(session, after=max(after - 1, 0))
    return {
        **turn_context(session, turns),
        "live_after": after,
        "cursor": turns[-1].epoch if turns else after,
    }
