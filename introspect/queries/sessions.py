"""Reads for the introspection pages: each returns exactly what a template may show."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.core.paginator import Page, Paginator
from django.db.models import (
    BooleanField,
    Case,
    Count,
    Exists,
    F,
    IntegerField,
    Max,
    Min,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce

from introspect.derive import fields
from introspect.derive.session_inputs import EVENT_ORDER
from introspect.importer import activity, heartbeat, transcripts
from introspect.models import (
    Project,
    SeenMark,
    Session,
    Spill,
    Subagent,
    TranscriptEntry,
    Turn,
    TurnWay,
    Way,
    WaysEvent,
)
from introspect.queries import event_turns, line_gaps, providers
from introspect.rules import conversation, entry_kinds, evidence, system_lines, tool_cards, usage
from introspect.rules.timestamps import shifted
from lib import bulk, params
from lib.viewers import Viewer

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


# A row the importer made for a session id it read (stores.ensure_sessions) that no derive has
# filled in yet: every field at its default. Mid-import the list showed such rows as
# "inferred · no transcript · unknown · 0 s"; it lists a session once it is put together.
NOT_DERIVED = Q(derived_version=0, built_event_id=0, built_entry_id=0)


@dataclass(frozen=True)
class ListImport:
    """What the session list says about the import, and the cursor its poller carries."""

    importer: heartbeat.Reading
    activity: activity.Activity | None  # the import under way, None when nothing imports
    waiting: int  # sessions read but not derived yet (not listed)
    # Changes whenever the list would: the phase, the sessions listed and waiting, their last change.
    cursor: str

    @property
    def importing(self) -> bool:
        return self.activity is not None


def session_list_import() -> ListImport:
    """The import under way (small files, no query) and the list's state in one aggregate query."""
    reading = heartbeat.current()
    current = activity.of(reading)
    listed = ~NOT_DERIVED
    counts = Session.objects.aggregate(
        listed=Count("pk", filter=listed),
        waiting=Count("pk", filter=NOT_DERIVED),
        changed=Max("updated_at", filter=listed),
    )
    changed = int(counts["changed"].timestamp() * 1e6) if counts["changed"] else 0
    phase = current.phase if current else "idle"
    return ListImport(
        importer=reading,
        activity=current,
        waiting=counts["waiting"],
        cursor=f"{phase}.{counts['listed']}.{counts['waiting']}.{changed}",
    )


def session_list_page(filters: SessionFilters, *, page: int, viewer: Viewer | None = None) -> Page:
    """Sessions newest first (by origin), filtered by project and a text match on id, project,
    title or any prompt; each with what `viewer` has not seen yet (`unseen`, see with_unseen) and
    whether subagent transcripts are all it has (`subagents_only`: its main one is missing).
    Sessions read but not derived yet are left out (NOT_DERIVED)."""
    sessions = with_unseen(
        Session.objects.exclude(NOT_DERIVED).select_related("project", "transcript"), viewer
    ).annotate(
        subagents_only=Case(
            When(
                transcript__isnull=True,
                then=Exists(Subagent.objects.filter(session=OuterRef("pk"), source__isnull=False)),
            ),
            default=Value(False),
            output_field=BooleanField(),
        )
    )
    if filters.project:
        sessions = sessions.filter(project_id=filters.project)
    if filters.q:
        # Any prompt of the session, not only its first: one EXISTS per session row, stopping at
        # the first prompt line that matches (real prompts only, never tool output).
        prompted = TranscriptEntry.objects.filter(
            session=OuterRef("pk"), is_prompt=True, text__icontains=filters.q
        )
        sessions = sessions.filter(
            Q(sid__icontains=filters.q)
            | Q(project__path__icontains=filters.q)
            | Q(title__icontains=filters.q)
            | Q(first_prompt__icontains=filters.q)
            | Exists(prompted)
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
        sessions = sessions.filter(Session.live_filter())
    sessions = sessions.order_by(*SORTS.get(filters.sort, SORTS["newest"]))
    return Paginator(sessions, SESSIONS_PER_PAGE).get_page(page)


def with_unseen(sessions: QuerySet[Session], viewer: Viewer | None) -> QuerySet[Session]:
    """Each session's `unseen`: its trunk entries after the viewer's last-seen mark (for a session
    without a transcript, its fire turns after the mark); None where the viewer never opened it.

    Subqueries of the list's one query. The count is a range on (source, offset) from the mark, so
    it reads only the entries written since, whatever the session's length.
    """
    if viewer is None or not viewer.known:
        return sessions.annotate(unseen=Value(None, output_field=IntegerField()))
    mark = SeenMark.objects.of(viewer).filter(session=OuterRef("pk"))
    sessions = sessions.annotate(
        seen_offset=Subquery(mark.values("offset")[:1]),
        seen_index=Subquery(mark.values("index")[:1]),
        seen_turns=Subquery(mark.values("turns")[:1]),
    )
    trunk = TranscriptEntry.objects.filter(
        source_id=OuterRef("transcript_id"), inert=False, is_copy=False
    ).exclude(type__in=CONVERSATION_TYPES_HIDDEN)
    newer = from_position(trunk, OuterRef("seen_offset"), OuterRef("seen_index") + 1)
    count = Subquery(newer.order_by().values("source_id").annotate(n=Count("pk")).values("n")[:1])
    return sessions.annotate(
        unseen=Case(
            When(seen_turns__isnull=True, then=Value(None)),
            When(transcript__isnull=False, then=Coalesce(count, 0)),
            default=F("turn_count") - F("seen_turns"),
            output_field=IntegerField(),
        )
    )


SHORT_ID = 8  # the list shows this many characters of an id (templatetags short_id)
PREFIX_MATCHES = 50


def sessions_by_prefix(prefix: str) -> list[Session]:
    """Sessions whose id starts with `prefix` (a short id of at least SHORT_ID characters, as the
    list shows them), at most PREFIX_MATCHES: one range scan of the unique sid index. A range, not
    `startswith`: SQLite's LIKE ignores case, and ids differing in case are different sessions."""
    if len(prefix) < SHORT_ID:
        return []
    found = Session.objects.select_related("project").filter(sid__gte=prefix, sid__lt=prefix + "\U0010ffff")
    return [session for session in found.order_by("sid")[:PREFIX_MATCHES] if session.sid.startswith(prefix)]


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


def with_rows(turns: QuerySet[Turn]) -> QuerySet[Turn]:
    """Fire turns with their rows (and each row's event and verdict) in one more query."""
    rows = TurnWay.objects.select_related("event", "judge_event").order_by("position")
    return turns.prefetch_related(Prefetch("ways", queryset=rows))


def turns_page(
    session: Session, *, start: int = 1, after: int | None = None, size: int = TURNS_PER_PAGE
) -> list[Turn]:
    """A page of turns from epoch `start` (or after `after`, for live follow), with their rows."""
    turns = (
        session.turns.filter(epoch__gt=after) if after is not None else session.turns.filter(epoch__gte=start)
    )
    return list(with_rows(turns.order_by("epoch"))[:size])


CONVERSATION_TYPES_HIDDEN = ("ai-title", "custom-title", "progress")


def conversation_entries(session: Session) -> QuerySet[TranscriptEntry]:
    """The trunk's conversation in file order: every line but the inert, the copies of another
    file's lines and the bookkeeping kinds whose content the header shows (titles)."""
    return (
        TranscriptEntry.objects.filter(source_id=session.transcript_id, inert=False, is_copy=False)
        .exclude(type__in=CONVERSATION_TYPES_HIDDEN)
        .order_by("offset", "index")
    )


def trunk_prompts(session: Session) -> QuerySet[TranscriptEntry]:
    """The real prompts of the trunk in file order: each opens a conversation turn."""
    return TranscriptEntry.objects.filter(
        source_id=session.transcript_id, is_prompt=True, is_copy=False, inert=False
    ).order_by("offset", "index")


# A range on `offset` (what the (source, offset, index) indexes answer) with the one offset's
# lines before or after `index` taken out: an OR of the two would not use the index.
def from_position(entries: QuerySet[TranscriptEntry], offset: int, index: int) -> QuerySet[TranscriptEntry]:
    return entries.filter(offset__gte=offset).exclude(offset=offset, index__lt=index)


def before_position(entries: QuerySet[TranscriptEntry], offset: int, index: int) -> QuerySet[TranscriptEntry]:
    return entries.filter(offset__lte=offset).exclude(offset=offset, index__gte=index)


def for_display(entries: list[TranscriptEntry]) -> list[TranscriptEntry]:
    """Tool calls and results parsed into display cards (introspect/rules/tool_cards.py), each
    entry's spilled outputs as `spill_list` (one query for all of them), each assistant
    message's usage on its last line (message_usages, one more), and each text the `text` column
    holds only the start of read whole from its raw line (whole_texts).

    (prefetch_related would build a queryset and a manager per entry, for the few that have any.)
    """
    spilled: dict[int, list[Spill]] = {}
    if entries:
        for spill in Spill.objects.filter(entry_id__in=[entry.pk for entry in entries]).order_by("pk"):
            spilled.setdefault(spill.entry_id, []).append(spill)
    whole_texts(entries)
    for entry in entries:
        entry.spill_list = spilled.get(entry.pk, [])
        if entry.type == "assistant" and entry.tool_use_id:
            entry.call = tool_cards.tool_call(entry)
        elif entry.type == "user" and entry.tool_result_id:
            entry.result = tool_cards.tool_result(entry)
        elif entry.type == "system" and entry.subtype == "compact_boundary":
            entry.compaction = system_lines.compaction(entry.line)
        elif entry.type == "system":
            entry.system_text = system_lines.system_text(entry.line)
    message_usages(entries)
    return entries


def whole_texts(entries: list[TranscriptEntry]) -> None:
    """Give each entry whose stored text may be cut (importer/transcripts.TEXT_LIMIT) its whole
    text, from the raw line the entry already carries: no query, and only the entries shown pay
    for it (lists and search read the column alone)."""
    for entry in entries:
        if transcripts.maybe_cut(entry.text):
            entry.text = transcripts.whole_text(entry.line) or entry.text


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
        elif any(getattr(entry, name) is not None for name in (*usage.FIELDS, *usage.SPLIT)):
            row = (None, None, entry.model, *(getattr(entry, name) for name in fields.USAGE_COLUMNS))
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
    return subagent_summaries([agent]).get(agent.agent_id)


def subagent_summaries(agents: list[Subagent]) -> dict[str, SubagentSummary]:
    """subagent_summary for several runs at once (their cards on a page): two queries for all."""
    by_source = {agent.source_id: agent.agent_id for agent in agents if agent.source_id is not None}
    if not by_source:
        return {}
    lines = TranscriptEntry.objects.filter(source_id__in=list(by_source))
    rows: dict[int, list] = {}
    for source_id, *row in fields.usage_rows(lines).values_list(
        "source_id", "message_id", "request_id", "model", *fields.USAGE_COLUMNS
    ):
        rows.setdefault(source_id, []).append(row)
    spans = lines.values("source_id").annotate(
        tool_calls=Count("tool_use_id", distinct=True, filter=Q(type="assistant")),
        first=Min("ts"),
        last=Max("ts"),
    )
    found = {}
    for span in spans.order_by():
        messages = usage.messages(rows.get(span["source_id"], []))
        found[by_source[span["source_id"]]] = SubagentSummary(
            models=usage.models(messages),
            totals=usage.totals(messages),
            tool_calls=span["tool_calls"],
            started_at=span["first"],
            ended_at=span["last"],
        )
    return found


def pair_results(source_id: int | None, entries: list[TranscriptEntry]) -> list[TranscriptEntry]:
    """Give each tool call its own result (`paired_result`), parallel calls included, and mark the
    results shown inside their call (`with_call`). A result on a later page is read here too (one
    query): it is shown under its call, and again at its own place on its own page. Returns the
    results read from outside `entries`, to be prepared for display with them."""
    calls = {entry.tool_use_id: entry for entry in entries if entry.type == "assistant" and entry.tool_use_id}
    if not calls:
        return []
    here = {entry.tool_result_id: entry for entry in entries if entry.type == "user" and entry.tool_result_id}
    outside = [tool_use for tool_use in calls if tool_use not in here]
    found = {}
    if outside:
        for result in TranscriptEntry.objects.filter(
            source_id=source_id, tool_result_id__in=outside, is_copy=False
        ).order_by("offset", "index"):
            found.setdefault(result.tool_result_id, result)
    for tool_use, call in calls.items():
        result = here.get(tool_use) or found.get(tool_use)
        call.paired_result = result
        if result is not None and tool_use in here and here[tool_use].offset >= call.offset:
            result.with_call = True
    return list(found.values())


@dataclass
class Item:
    """One thing on the conversation spine: an entry, an agent-ways fire turn placed there, or the
    mark of a line that could not be read (queries/line_gaps.py)."""

    entry: TranscriptEntry | None = None
    fire: Turn | None = None
    gap: line_gaps.LineGap | None = None
    turn_start: int | None = None  # set on a prompt (or a page's first entry): the turn it opens
    continued: bool = False
    first_unseen: bool = False  # the "new since your last visit" divider goes before it
    notes: list[providers.Note] = field(default_factory=list)  # other apps' notes on this very entry


@dataclass
class ConversationPage:
    """A page of the conversation from (turn, part): the items in order and the way on."""

    turn: int
    part: int
    items: list[Item]
    fires: list[Turn]
    next: tuple[int, int] | None
    prev: tuple[int, int | str] | None
    cursor: str  # "offset.index" of the last entry: live follow reads after it
    last_turn: int = 0
    unplaced: int = 0  # fire turns tied to no prompt beyond the ones this page shows


def entry_position(entry: TranscriptEntry) -> str:
    return f"{entry.offset}.{entry.index}"


def parse_position(value: str) -> tuple[int, int] | None:
    """A cursor `offset.index` from a query string; None unless both fit the 64-bit columns they
    are compared with and stored in (a viewer's seen mark), the index with room for its +1."""
    offset, _, index = value.partition(".")
    place = params.parse_int(offset), params.parse_int(index or "0", low=0, high=params.INT_LIMIT - 1)
    return None if None in place else place


def page_run(session: Session, turn: int, part: int) -> tuple[list[TranscriptEntry], TranscriptEntry | None]:
    """The entries a page of (turn, part) is cut from (at most one page and one more), and the
    prompt that opens `turn` (None for turn 0 or a turn past the last)."""
    size = conversation.PAGE_ENTRIES
    entries = conversation_entries(session)
    prompt = None
    if turn > 0:
        prompt = trunk_prompts(session)[turn - 1 : turn].first()
        if prompt is None:
            return [], None
        entries = from_position(entries, prompt.offset, prompt.index)
    return list(entries[part * size : part * size + size + 1]), prompt


def fires_for_page(session: Session, prompts: list[int], *, first_page: bool) -> tuple[list[Turn], int]:
    """The fire turns tied to the page's prompts (keyed to one, or placed near one by time), and on
    the first page those tied to no prompt at all (at most a page of them; the rest counted)."""
    turns = with_rows(session.turns.all())
    tied = Q(prompt_entry_id__in=prompts) | Q(prompt_entry__isnull=True, nearest_prompt_id__in=prompts)
    loose = Q(prompt_entry__isnull=True, nearest_prompt__isnull=True)
    if not first_page:
        return (list(turns.filter(tied).order_by("epoch")) if prompts else []), 0
    found = list(turns.filter(tied | loose).order_by("epoch")[: TURNS_PER_PAGE * 5])
    placed = [turn for turn in found if turn.prompt_entry_id or turn.nearest_prompt_id]
    unplaced = [turn for turn in found if not (turn.prompt_entry_id or turn.nearest_prompt_id)]
    shown = unplaced[:TURNS_PER_PAGE]
    extra = session.turns.filter(loose).count() - len(shown) if len(unplaced) > TURNS_PER_PAGE else 0
    return placed + shown, extra


def place_fires(
    items: list[Item], fires: list[Turn], *, later: TranscriptEntry | None, open_prompt: int | None = None
) -> list[Item]:
    """Put each fire turn on the spine: a keyed one right after its prompt; a heuristic one at its
    place in time among its prompt's turn (after the last entry not later than it).

    `open_prompt` is the prompt of a turn the page continues (a later part of a long turn): its
    heuristic turns earlier than the page's first entry are an earlier part's. Those not earlier
    than `later` (the next page's first entry) are the next page's.
    """
    by_prompt: dict[int, list[Turn]] = {}
    for fire in fires:
        by_prompt.setdefault(fire.prompt_entry_id or fire.nearest_prompt_id or 0, []).append(fire)
    out = [Item(fire=fire) for fire in by_prompt.pop(0, [])]
    heuristic: list[Turn] = []
    if open_prompt is not None and items:
        start = items[0].entry.ts
        heuristic = [
            f
            for f in by_prompt.pop(open_prompt, [])
            if not f.prompt_entry_id and (start is None or f.ts >= start)
        ]
    heuristic.sort(key=lambda t: (t.ts, t.epoch))
    for item in items:
        entry = item.entry
        if entry.is_prompt:
            out += [Item(fire=f) for f in heuristic]
            anchored = by_prompt.pop(entry.pk, [])
            out.append(item)
            out += [Item(fire=f) for f in anchored if f.prompt_entry_id == entry.pk]
            heuristic = sorted(
                (f for f in anchored if f.prompt_entry_id != entry.pk), key=lambda t: (t.ts, t.epoch)
            )
            continue
        while heuristic and entry.ts is not None and heuristic[0].ts < entry.ts:
            out.append(Item(fire=heuristic.pop(0)))
        out.append(item)
    if later is not None and later.ts is not None:
        heuristic = [f for f in heuristic if f.ts < later.ts]
    out += [Item(fire=f) for f in heuristic]
    return out


def number_items(entries: list[TranscriptEntry], *, turn: int, part: int) -> tuple[list[Item], int]:
    """The page's entries as spine items, each prompt marked with the turn it opens; returns the
    items and the number of the first turn on the page."""
    current = turn if part > 0 or not entries or not entries[0].is_prompt else max(turn - 1, 0)
    first = current + (1 if entries and entries[0].is_prompt else 0)
    items = []
    for n, entry in enumerate(entries):
        if entry.is_prompt:
            current += 1
            items.append(Item(entry=entry, turn_start=current))
        elif n == 0:
            items.append(Item(entry=entry, turn_start=current, continued=part > 0 or current > 0))
        else:
            items.append(Item(entry=entry))
    return items, first


def conversation_page(session: Session, *, turn: int, part: int) -> ConversationPage:
    """The page of the conversation that starts at turn `turn` (part `part` of it when the turn is
    longer than a page), with the fire turns that annotate it."""
    size = conversation.PAGE_ENTRIES
    run, opener = page_run(session, turn, part)
    starts = [n for n, entry in enumerate(run) if entry.is_prompt and n > 0]
    items, first = number_items(run, turn=turn, part=part)
    reach = conversation.extent(starts, len(run), size, turn=first, part=part)
    entries = run[: reach.count]
    items = items[: reach.count]
    later = run[reach.count] if len(run) > reach.count else None
    prompts = [entry.pk for entry in entries if entry.is_prompt]
    open_prompt = opener.pk if part > 0 and opener is not None else None
    if open_prompt is not None:
        prompts.append(open_prompt)
    fires, unplaced = fires_for_page(session, prompts, first_page=turn == 0 and part == 0)
    extra = pair_results(session.transcript_id, [item.entry for item in items])
    for_display(entries + extra)
    items = drawn(items)
    mark_prompt_spans(entries, fires)
    items = place_fires(items, fires, later=later, open_prompt=open_prompt)
    number_fires(items, turn if part > 0 else None)
    if line_gaps.may_have_gaps(session.transcript, entries):
        # The page holds what lies from its first entry up to the next page's (the first page
        # also what comes before its first entry; the last, what follows its last).
        lower = None if (turn == 0 and part == 0) or not entries else position_of(entries[0])
        upper = position_of(later) if later is not None else None
        items = place_gaps(items, line_gaps.gaps_between(session.transcript, lower, upper))
    if part > 0:
        prev: tuple[int, int | str] | None = (turn, part - 1)
    elif turn > 0:
        prev = (turn - 1, "last")
    else:
        prev = None
    return ConversationPage(
        turn=turn,
        part=part,
        items=items,
        fires=fires,
        next=(reach.next_turn, reach.next_part) if reach.next_turn is not None else None,
        prev=prev,
        cursor=entry_position(entries[-1]) if entries else "",
        last_turn=max((item.turn_start or 0 for item in items), default=first),
        unplaced=unplaced,
    )


def place_gaps(items: list[Item], gaps: list[line_gaps.LineGap]) -> list[Item]:
    """Put each unread line on the spine at its place: before the first entry not before it in
    the file (a torn line's lost part before the record recovered from it), else at the end."""
    out: list[Item] = []
    pending = list(gaps)
    for item in items:
        if item.entry is not None:
            at = position_of(item.entry)
            while pending and pending[0].position <= at:
                out.append(Item(gap=pending.pop(0)))
        out.append(item)
    return out + [Item(gap=gap) for gap in pending]


def drawn(items: list[Item]) -> list[Item]:
    """The items the page draws: not a result already drawn inside its call's card, nor the input
    queue's bookkeeping (rules/entry_kinds.hidden_queue_lines). A turn heading on an item left out
    moves to the next one drawn."""
    hidden = entry_kinds.hidden_queue_lines([item.entry for item in items])
    kept: list[Item] = []
    heading: Item | None = None
    for n, item in enumerate(items):
        if n in hidden or getattr(item.entry, "with_call", False):
            heading = heading or (item if item.turn_start is not None else None)
            continue
        if heading is not None and item.turn_start is None:
            item.turn_start, item.continued = heading.turn_start, heading.continued
        heading = None
        kept.append(item)
    return kept


def number_fires(items: list[Item], current: int | None = None) -> None:
    """Give each fire turn on the spine the number of the conversation turn it sits in
    (`conversation_turn`; None when it is tied to no prompt): the page shows one numbering, the
    prompts', and agent-ways' own (the epoch) only as a detail. `current`: the turn the page
    continues, for fire turns placed before its first entry."""
    for item in items:
        if item.turn_start is not None:
            current = item.turn_start
        elif item.fire is not None:
            tied = item.fire.prompt_entry_id or item.fire.nearest_prompt_id
            item.fire.conversation_turn = current if tied else None


def mark_prompt_spans(entries: list[TranscriptEntry], fires: list[Turn]) -> None:
    """Give each prompt the keyword spans its keyed fire turns matched (`prompt_spans`)."""
    spans = prompt_spans(fires)
    for entry in entries:
        if entry.is_prompt:
            entry.prompt_spans = spans.get(entry.pk, [])


def prompt_spans(fires: list[Turn]) -> dict[int, list[str]]:
    """Keyword spans to mark in a prompt: only where a turn is keyed to that prompt."""
    spans: dict[int, list[str]] = {}
    for fire in fires:
        if fire.join_confidence == Turn.Join.KEYED and fire.prompt_entry_id:
            spans.setdefault(fire.prompt_entry_id, []).extend(
                row.matched_span
                for row in fire.ways.all()
                if row.trigger_channel == "keyword" and row.matched_span
            )
    return spans


def last_part_of(session: Session, turn: int) -> int:
    """The last part of `turn`: "previous page" from the turn after it lands there."""
    size = conversation.PAGE_ENTRIES
    if turn == 0:
        first = trunk_prompts(session).first()
        entries = conversation_entries(session)
        if first is not None:
            entries = before_position(entries, first.offset, first.index)
        return conversation.last_part(entries.count(), size)
    bounds = list(trunk_prompts(session)[turn - 1 : turn + 1])
    if not bounds:
        return 0
    entries = from_position(conversation_entries(session), bounds[0].offset, bounds[0].index)
    if len(bounds) > 1:
        entries = before_position(entries, bounds[1].offset, bounds[1].index)
    return conversation.last_part(entries.count(), size)


def turn_of_entry(session: Session, entry: TranscriptEntry) -> tuple[int, int]:
    """(turn, part) of the page that holds a trunk entry: where its permalink lands."""
    turn = before_position(trunk_prompts(session), entry.offset, entry.index + 1).count()
    entries = conversation_entries(session)
    if turn > 0:
        prompt = trunk_prompts(session)[turn - 1 : turn].first()
        entries = from_position(entries, prompt.offset, prompt.index)
    inside = before_position(entries, entry.offset, entry.index).count()
    return turn, conversation.part_of(inside, conversation.PAGE_ENTRIES)


def entry_code(session: Session, entry_id: int, slot: str) -> tool_cards.CodeBox | None:
    """One code box of an entry of `session` (trunk or subagent file), or None: what a page that
    drew the box plain, past its highlighting budget, fetches coloured. One query."""
    entry = TranscriptEntry.objects.filter(pk=entry_id, session=session).first()
    return tool_cards.code_box(entry, slot) if entry is not None else None


def entry_by_uuid(session: Session, uuid: str) -> TranscriptEntry | None:
    if session.transcript_id is None or not uuid:
        return None
    return conversation_entries(session).filter(uuid=uuid).only("pk", "offset", "index").first()


def turn_of_fire(session: Session, epoch: int) -> tuple[int, int] | None:
    """(turn, part) of the page that shows fire turn `epoch`, or None when it is on no prompt."""
    fire = session.turns.filter(epoch=epoch).select_related("prompt_entry", "nearest_prompt").first()
    if fire is None:
        return None
    prompt = fire.prompt_entry or fire.nearest_prompt
    if prompt is None:
        return (0, 0)
    return turn_of_entry(session, prompt)


def conversation_tail(session: Session, *, after: tuple[int, int], fire_after: int) -> dict:
    """Live follow: the entries written after the cursor (numbered on from the turns before
    them), the fire turns derived since `fire_after` (the last one again: it may have grown)."""
    size = conversation.PAGE_ENTRIES
    offset, index = after
    run = list(from_position(conversation_entries(session), offset, index + 1)[:size])
    turn = before_position(trunk_prompts(session), offset, index + 1).count()
    items, _ = number_items(run, turn=turn, part=1)
    if items and items[0].turn_start is not None and not items[0].entry.is_prompt:
        items[0].turn_start = None  # the open turn goes on; no new heading
    fires = list(
        with_rows(session.turns.filter(epoch__gte=max(fire_after, 1)).order_by("epoch"))[: TURNS_PER_PAGE * 5]
    )
    extra = pair_results(session.transcript_id, run)
    for_display(run + extra)
    items = drawn(items)
    here = {entry.pk for entry in run if entry.is_prompt}
    mark_prompt_spans(run, fires)
    # A fire turn shown before (the last, growing) is swapped in place; one keyed to a prompt
    # already on the page goes after that prompt; the rest are new and recent: on the spine here.
    replaced = [f for f in fires if f.epoch == fire_after]
    new = [f for f in fires if f.epoch > fire_after]
    keyed_earlier = [f for f in new if f.prompt_entry_id and f.prompt_entry_id not in here]
    on_spine = [f for f in new if f not in keyed_earlier]
    placed = place_fires(
        items, [f for f in on_spine if (f.prompt_entry_id or f.nearest_prompt_id) in here], later=None
    )
    elsewhere = [f for f in on_spine if (f.prompt_entry_id or f.nearest_prompt_id) not in here]
    placed += [Item(fire=f) for f in elsewhere]
    number_fires(placed, turn)
    # Fire turns of prompts shown before this tail (the growing last one among them): numbered by
    # their prompt (one more query, only when there are any).
    earlier = [f for f in replaced + keyed_earlier + elsewhere if f.prompt_entry_id or f.nearest_prompt_id]
    if earlier:
        numbers = turn_numbers(session, {f.prompt_entry_id or f.nearest_prompt_id for f in earlier})
        for fire in earlier:
            fire.conversation_turn = numbers.get(fire.prompt_entry_id or fire.nearest_prompt_id)
    prompts_of = dict(
        TranscriptEntry.objects.filter(pk__in=[f.prompt_entry_id for f in keyed_earlier]).values_list(
            "pk", "uuid"
        )
    )
    for fire in keyed_earlier:
        fire.after_uuid = prompts_of.get(fire.prompt_entry_id) or ""
    return {
        "items": placed,
        "fires": fires,
        "replaced": replaced,
        "keyed_earlier": keyed_earlier,
        "cursor": entry_position(run[-1]) if run else f"{offset}.{index}",
        "fire_cursor": fires[-1].epoch if fires else fire_after,
    }


def turn_numbers(session: Session, prompt_ids: set[int]) -> dict[int, int]:
    """The turn each of a few trunk prompts opens, by the prompt's pk: one query for where they are,
    and a count of the prompts up to each (the prompts' own index), however long the session."""
    places = TranscriptEntry.objects.filter(
        pk__in=prompt_ids, source_id=session.transcript_id, is_prompt=True
    )
    return {
        pk: before_position(trunk_prompts(session), offset, index + 1).count()
        for pk, offset, index in places.values_list("pk", "offset", "index")
    }


def subagent_conversation(agent: Subagent, *, part: int = 0) -> tuple[list[Item], int | None]:
    """A page (`part`) of a subagent's own transcript, loaded on demand under the call that
    spawned it, as spine items (its entries, and the marks of lines that could not be read), and
    the next part's number (None at the end): every line reachable, page by page."""
    if agent.source_id is None:
        return [], None
    size = conversation.PAGE_ENTRIES
    run = list(
        TranscriptEntry.objects.filter(source_id=agent.source_id, inert=False)
        .exclude(type__in=CONVERSATION_TYPES_HIDDEN)
        .order_by("offset", "index")[part * size : (part + 1) * size + 1]
    )
    following = part + 1 if len(run) > size else None
    entries = run[:size]
    extra = pair_results(agent.source_id, entries)
    for_display(entries + extra)
    items = drawn([Item(entry=entry) for entry in entries])
    if line_gaps.may_have_gaps(agent.source, entries):
        lower = position_of(entries[0]) if part > 0 and entries else None
        upper = position_of(run[size]) if following is not None else None
        items = place_gaps(items, line_gaps.gaps_between(agent.source, lower, upper))
    return items, following


def near_misses_by_turn(session: Session, turns: list[Turn]) -> dict[int, list[WaysEvent]]:
    """Near-misses placed in the turn whose scan they belong to: the last turn starting ≤ 3 s after them.

    Only the page's time span is read (up to the next page's first turn), so long sessions cost the same.
    """
    if not turns:
        return {}
    scan = timedelta(seconds=3)
    lo = shifted(turns[0].ts, -scan)
    misses = WaysEvent.objects.filter(session=session, event="way_nearmiss", ts__gte=lo)
    following = session.turns.filter(epoch=turns[-1].epoch + 1).values_list("ts", flat=True).first()
    if following is not None:
        misses = misses.filter(ts__lt=shifted(following, -scan))
    starts = [turn.ts for turn in turns]
    out: dict[int, list[WaysEvent]] = {}
    for miss in misses.order_by("ts"):
        at = bisect_right(starts, shifted(miss.ts, scan)) - 1
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


def subagents_by_tool_use(agents: list[Subagent]) -> dict[str, Subagent]:
    return {agent.tool_use_id: agent for agent in agents if agent.tool_use_id}


def loose_subagents(agents: list[Subagent]) -> list[Subagent]:
    """The runs with a transcript of their own that no tool call of the page's conversation leads
    to: every one of a session whose main transcript is missing, else those whose spawning call
    is not in it. Each with its `summary` (tokens, cost); two queries when there are any."""
    loose = [agent for agent in agents if agent.spawn_entry_id is None and agent.source_id is not None]
    summaries = subagent_summaries(loose)
    for agent in loose:
        agent.summary = summaries.get(agent.agent_id)
    return loose


def events_for_session(session: Session, *, page: int = 1) -> Page:
    """Every event of the session in event order (the log, not only turn material)."""
    return Paginator(
        event_turns.with_turns(WaysEvent.objects.filter(session=session)).order_by(*EVENT_ORDER),
        EVENTS_PER_PAGE,
    ).get_page(page)


def events_after(session: Session, after: int) -> list[WaysEvent]:
    """Events imported after the row `after` (live follow: one indexed id > cursor lookup)."""
    return list(
        event_turns.with_turns(WaysEvent.objects.filter(session=session, pk__gt=after)).order_by("pk")
    )


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


def turn_context(
    session: Session, turns: list[Turn], *, header: bool = False, items: list[Item] | None = None
) -> dict:
    """Everything the fire turns of a page show: rows with evidence, near-misses, subagents, and
    what other apps note under each turn (introspect/queries/providers.py). Given the conversation
    `items` of the page, a note about an entry goes under that entry and not again under its turn."""
    turns = sorted(turns, key=lambda turn: turn.epoch)
    way_ids = {row.way_id for turn in turns for row in turn.ways.all()}
    ways = ways_by_id(way_ids, session.project)
    attach_evidence(turns, ways, session)
    misses = near_misses_by_turn(session, turns)
    notes = providers.session_notes(session, turns, header=header)
    placed: set[int] = set()
    for item in items or ():
        if item.entry is not None and item.entry.pk in notes.by_entry:
            item.notes = notes.by_entry[item.entry.pk]
            placed.update(id(note.item) for note in item.notes)
    for turn in turns:
        turn.notes = [note for note in notes.by_turn.get(turn.pk, []) if id(note.item) not in placed]
        turn.near_misses = misses.get(turn.pk, [])
    agents = list(Subagent.objects.filter(session=session).order_by("agent_id"))
    return {
        "turns": turns,
        "ways": ways,
        "subagents": subagents_by_tool_use(agents),
        "loose_subagents": loose_subagents(agents) if header else [],
        "header_notes": notes.header,
    }


def has_conversation(session: Session) -> bool:
    return session.transcript_id is not None and conversation_entries(session).exists()


def session_detail_page(
    session: Session,
    *,
    turn: int,
    part: int,
    fires_from: int | None = None,
    since: tuple[int, int] | None = None,
    since_turns: int | None = None,
) -> dict:
    """The session page: the header's windows and gauge, and a page of the conversation from
    (turn, part) with the fire turns that annotate it. A session without a transcript (or asked
    for `fires_from`) lists its fire turns alone, a page from fire turn `fires_from`. `unseen`:
    what came after the viewer's mark (`since` in the conversation, `since_turns` in the list)."""
    windows = window_spans(session)
    header = {
        "windows": windows,
        "peak_context": max(peak_context(windows), session.peak_context_tokens),
        "conversation_turns": trunk_prompts(session).count() if session.transcript_id else None,
    }
    if fires_from is not None or not has_conversation(session):
        start = fires_from or 1
        turns = turns_page(session, start=start)
        return {
            **header,
            **turn_context(session, turns, header=True),
            "mode": "fires",
            "start": start,
            "next_start": turns[-1].epoch + 1 if turns and turns[-1].epoch < session.turn_count else None,
            "prev_start": max(start - TURNS_PER_PAGE, 1) if start > 1 else None,
            "fire_cursor": turns[-1].epoch if turns else 0,
            "unseen": unseen_turns(session, turns, since_turns) if since_turns is not None else None,
        }
    page = conversation_page(session, turn=turn, part=part)
    context = turn_context(session, page.fires, header=True, items=page.items)
    on_page = {
        item.entry.tool_use_id for item in page.items if item.entry is not None and item.entry.tool_use_id
    }
    shown = [agent for tool_use, agent in context["subagents"].items() if tool_use in on_page]
    summaries = subagent_summaries(shown)
    for agent in shown:
        agent.summary = summaries.get(agent.agent_id)
    return {
        **header,
        **context,
        "mode": "conversation",
        "page": page,
        "fire_cursor": session.turn_count,
        "unseen": unseen_entries(session, page, since) if since is not None else None,
    }


@dataclass(frozen=True)
class Unseen:
    """What the viewer had not seen when they opened the page: how many entries (fire turns, for
    a session without a conversation), the mark they are counted from (`since`, carried on links
    to other pages so those draw the divider too), and the page holding the first of them:
    `place` (turn, part), or None when it is this page (`Item.first_unseen` / the turn's epoch)."""

    count: int
    since: str
    place: tuple[int, int] | None = None
    first_turn: int | None = None  # fire-turn list: the epoch the divider goes before


def seen_mark(session: Session, viewer: Viewer) -> SeenMark | None:
    """The viewer's mark on `session`; None for a first visit (no query: no mark can exist)."""
    if not viewer.known:
        return None
    return SeenMark.objects.of(viewer).filter(session=session).first()


def newest_position(session: Session) -> tuple[int, int]:
    """Position of the trunk's last conversation entry, where opening the page moves the mark;
    (-1, 0) without one, so every entry imported later is new."""
    if session.transcript_id is None:
        return (-1, 0)
    found = conversation_entries(session).order_by("-offset", "-index").values_list("offset", "index").first()
    return found if found is not None else (-1, 0)


def position_of(entry: TranscriptEntry) -> tuple[int, int]:
    return entry.offset, entry.index


def unseen_entries(session: Session, page: ConversationPage, since: tuple[int, int]) -> Unseen | None:
    """The entries after `since`; marks the page's item the divider goes before when the first of
    them is on this page, else finds its page for the jump link. Two queries, three more off-page."""
    offset, index = since
    newer = from_position(conversation_entries(session), offset, index + 1)
    first = newer.only("pk", "offset", "index").first()
    if first is None:
        return None
    at = position_of(first)
    shown = [item for item in page.items if item.entry is not None]
    # The first page also holds what comes before its first shown entry (results drawn with their call).
    opens = page.turn == 0 and page.part == 0
    if shown and at <= position_of(shown[-1].entry) and (opens or at >= position_of(shown[0].entry)):
        next(item for item in shown if position_of(item.entry) >= at).first_unseen = True
        place = None
    else:
        place = turn_of_entry(session, first)
    return Unseen(count=newer.count(), since=f"{offset}.{index}", place=place)


def unseen_turns(session: Session, turns: list[Turn], since: int) -> Unseen | None:
    """The fire turns after the `since`-th (a session without a conversation): no query, the
    epochs are the session's turn numbers."""
    if session.turn_count <= since:
        return None
    first = since + 1
    on_page = any(turn.epoch == first for turn in turns)
    return Unseen(
        count=session.turn_count - since,
        since=str(since),
        place=None if on_page else (first, 0),
        first_turn=first,
    )


def session_live_tail(session: Session, *, after: int) -> dict:
    """Live follow of the fire-turn list: the turns after the cursor, the last known turn again
    (it may have grown), and the cursor for the next poll. Turn numbers are stable."""
    turns = turns_page(session, after=max(after - 1, 0))
    return {
        **turn_context(session, turns),
        "mode": "fires",
        "live_after": after,
        "fire_cursor": turns[-1].epoch if turns else after,
    }


def session_conversation_tail(session: Session, *, after: tuple[int, int], fire_after: int) -> dict:
    """Live follow of the conversation: new entries and fire turns since the cursors."""
    tail = conversation_tail(session, after=after, fire_after=fire_after)
    return {**turn_context(session, tail["fires"], items=tail["items"]), **tail}
