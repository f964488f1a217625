"""A session's conversation: the trunk's entries in file order, how they are cut into pages (a turn,
and a part of it when the turn is longer than a page), where the fire turns sit on that spine, and
the one preparation every stretch of a spine goes through before it is drawn (prepare_spine: the
session page, its live tail, a subagent's pages and every export).

Why one long module: the page cut, the positions it is addressed by and where fires sit on it are
one contract, read together when a page boundary or a permalink changes; the conversation's display
cards live apart (queries/entry_cards.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from django.db.models import Q, QuerySet

from introspect.models import Session, TranscriptEntry, Turn
from introspect.queries import line_gaps, providers
from introspect.queries.entry_cards import EntryCard, entry_cards
from introspect.queries.fire_turns import TURNS_PER_PAGE, with_rows
from introspect.rules import conversation as paging
from lib import params

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


def has_conversation(session: Session) -> bool:
    return session.transcript_id is not None and conversation_entries(session).exists()


def newest_position(session: Session) -> tuple[int, int]:
    """Position of the trunk's last conversation entry, where opening the page moves the mark;
    (-1, 0) without one, so every entry imported later is new."""
    if session.transcript_id is None:
        return (-1, 0)
    found = conversation_entries(session).order_by("-offset", "-index").values_list("offset", "index").first()
    return found if found is not None else (-1, 0)


@dataclass(frozen=True, slots=True)
class Item:
    """One thing on the conversation spine: an entry, an agent-ways fire turn placed there, or the
    mark of a line that could not be read (queries/line_gaps.py). A value: what a later step adds to
    it (its card, notes, decision turn, the unseen divider) makes a new one (dataclasses.replace)."""

    entry: TranscriptEntry | None = None
    card: EntryCard | None = None  # the entry prepared for display (prepare_spine)
    fire: Turn | None = None
    # A fire turn's conversation turn (number_fires; None: tied to no prompt, or not numbered).
    conversation_turn: int | None = None
    gap: line_gaps.LineGap | None = None
    turn_start: int | None = None  # set on a prompt (or a page's first entry): the turn it opens
    continued: bool = False
    first_unseen: bool = False  # the "new since your last visit" divider goes before it
    notes: list[providers.Note] = field(default_factory=list)  # other apps' notes on this very entry
    decision: object | None = None  # on a prompt: the decision turn tied to it (queries/decision_scans.py)
    turn_source: str = ""  # on a prompt, where the session has both logs: which one saw its turn

    @property
    def turn_link(self) -> str:
        """Where the heading of the turn it opens links: that turn's own page, at the heading."""
        return f"?turn={self.turn_start}#t-{self.turn_start}"


@dataclass(frozen=True)
class FireAfterPrompt:
    """A fire turn the live tail found keyed to a prompt the page already shows: drawn right after
    that prompt's card, found by its uuid (none: the turn is not drawn)."""

    fire: Turn
    after_uuid: str


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

    @property
    def prev_query(self) -> str:
        return page_query(*self.prev) if self.prev else ""


def page_query(turn: int, part: int | str, *, seen: str | None = None) -> str:
    """The query string of the conversation's page (turn, part): a part only past the first (or
    "last"), and the viewer's mark the page counts what is new from (`seen`)."""
    query = f"?turn={turn}" + (f"&part={part}" if part else "")
    return query + (f"&seen={seen}" if seen is not None else "")


def fires_query(start: int, *, seen_turns: str | None = None) -> str:
    """The query string of the fire-turn list from fire turn `start`."""
    return f"?view=fires&from={start}" + (f"&seen_turns={seen_turns}" if seen_turns is not None else "")


def position_of(entry: TranscriptEntry) -> tuple[int, int]:
    return entry.offset, entry.index


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
    size = paging.PAGE_ENTRIES
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


def conversation_page(session: Session, *, turn: int, part: int) -> ConversationPage:
    """The page of the conversation that starts at turn `turn` (part `part` of it when the turn is
    longer than a page), with the fire turns that annotate it."""
    size = paging.PAGE_ENTRIES
    run, opener = page_run(session, turn, part)
    starts = [n for n, entry in enumerate(run) if entry.is_prompt and n > 0]
    items, first = number_items(run, turn=turn, part=part)
    reach = paging.extent(starts, len(run), size, turn=first, part=part)
    entries = run[: reach.count]
    items = items[: reach.count]
    later = run[reach.count] if len(run) > reach.count else None
    prompts = [entry.pk for entry in entries if entry.is_prompt]
    open_prompt = opener.pk if part > 0 and opener is not None else None
    if open_prompt is not None:
        prompts.append(open_prompt)
    fires, unplaced = fires_for_page(session, prompts, first_page=turn == 0 and part == 0)
    items = prepare_spine(
        session.transcript_id,
        items,
        fires,
        later=later,
        open_prompt=open_prompt,
        turn=turn if part > 0 else None,
    )
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


def conversation_tail(session: Session, *, after: tuple[int, int], fire_after: int) -> dict:
    """Live follow: the entries written after the cursor (numbered on from the turns before
    them), the fire turns derived since `fire_after` (the last one again: it may have grown)."""
    size = paging.PAGE_ENTRIES
    offset, index = after
    run = list(from_position(conversation_entries(session), offset, index + 1)[:size])
    turn = before_position(trunk_prompts(session), offset, index + 1).count()
    items, _ = number_items(run, turn=turn, part=1)
    if items and items[0].turn_start is not None and not items[0].entry.is_prompt:
        items[0] = replace(items[0], turn_start=None)  # the open turn goes on; no new heading
    fires = list(
        with_rows(session.turns.filter(epoch__gte=max(fire_after, 1)).order_by("epoch"))[: TURNS_PER_PAGE * 5]
    )
    here = {entry.pk for entry in run if entry.is_prompt}
    # A fire turn shown before (the last, growing) is swapped in place; one keyed to a prompt
    # already on the page goes after that prompt; the rest are new and recent: on the spine here.
    replaced = [f for f in fires if f.epoch == fire_after]
    new = [f for f in fires if f.epoch > fire_after]
    keyed_earlier = [f for f in new if f.prompt_entry_id and f.prompt_entry_id not in here]
    on_spine = [f for f in new if f not in keyed_earlier]
    elsewhere = [f for f in on_spine if (f.prompt_entry_id or f.nearest_prompt_id) not in here]
    placed = prepare_spine(
        session.transcript_id,
        items,
        [f for f in on_spine if (f.prompt_entry_id or f.nearest_prompt_id) in here],
        turn=turn,
        trailing=elsewhere,
        spans_from=fires,
    )
    # Fire turns of prompts shown before this tail (the growing last one among them): numbered by
    # their prompt (one more query, only when there are any).
    earlier = [f for f in replaced + keyed_earlier + elsewhere if f.prompt_entry_id or f.nearest_prompt_id]
    by_prompt = (
        turn_numbers(session, {f.prompt_entry_id or f.nearest_prompt_id for f in earlier}) if earlier else {}
    )
    numbers = {f.epoch: by_prompt.get(f.prompt_entry_id or f.nearest_prompt_id) for f in earlier}
    placed = [
        replace(item, conversation_turn=numbers[item.fire.epoch])
        if item.fire is not None and item.fire.epoch in numbers
        else item
        for item in placed
    ]
    prompts_of = dict(
        TranscriptEntry.objects.filter(pk__in=[f.prompt_entry_id for f in keyed_earlier]).values_list(
            "pk", "uuid"
        )
    )
    return {
        "items": placed,
        "fires": fires,
        "fire_numbers": fire_numbers(placed) | numbers,
        "replaced": replaced,
        "keyed_earlier": [
            FireAfterPrompt(fire=fire, after_uuid=prompts_of.get(fire.prompt_entry_id) or "")
            for fire in keyed_earlier
        ],
        "cursor": entry_position(run[-1]) if run else f"{offset}.{index}",
        "fire_cursor": fires[-1].epoch if fires else fire_after,
    }


def prepare_spine(
    source_id: int | None,
    items: list[Item],
    fires: Sequence[Turn] = (),
    *,
    later: TranscriptEntry | None = None,
    open_prompt: int | None = None,
    turn: int | None = None,
    trailing: Sequence[Turn] = (),
    spans_from: Sequence[Turn] | None = None,
    every_entry: bool = False,
) -> list[Item]:
    """A stretch of a spine (`source_id`'s entries as numbered items) made ready to draw, the one way
    the session page, its live tail, a subagent's pages and every export do it: each tool call given
    its result and the entries prepared for display, each prompt with the keyword spans its fire
    turns matched (entry_cards: each item's `card`), the items the page draws (`drawn`;
    `every_entry` keeps them all, for an export), and `fires` placed on the
    spine (place_fires: `later`, `open_prompt`), then `trailing` after it, each numbered with the
    conversation turn it sits in (`turn`: the one the stretch continues).

    `spans_from`: the fire turns whose spans mark the prompts when they are more than those placed
    (the live tail: a turn it swaps in place may be keyed to a prompt it draws).
    """
    cards = entry_cards(
        source_id,
        [item.entry for item in items],
        prompt_spans=prompt_spans(fires if spans_from is None else spans_from),
    )
    items = [replace(item, card=card) for item, card in zip(items, cards, strict=True)]
    if not every_entry:
        items = drawn(items)
    items = place_fires(items, list(fires), later=later, open_prompt=open_prompt)
    items += [Item(fire=fire) for fire in trailing]
    return number_fires(items, turn)


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
    kept: list[Item] = []
    heading: Item | None = None
    for item in items:
        if item.card.bookkeeping or item.card.with_call:
            heading = heading or (item if item.turn_start is not None else None)
            continue
        if heading is not None and item.turn_start is None:
            item = replace(item, turn_start=heading.turn_start, continued=heading.continued)
        heading = None
        kept.append(item)
    return kept


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


def number_fires(items: list[Item], current: int | None = None) -> list[Item]:
    """Give each fire turn on the spine the number of the conversation turn it sits in
    (`conversation_turn`; None when it is tied to no prompt): the page shows one numbering, the
    prompts', and agent-ways' own (the epoch) only as a detail. `current`: the turn the page
    continues, for fire turns placed before its first entry."""
    out = []
    for item in items:
        if item.turn_start is not None:
            current = item.turn_start
        elif item.fire is not None:
            tied = item.fire.prompt_entry_id or item.fire.nearest_prompt_id
            item = replace(item, conversation_turn=current if tied else None)
        out.append(item)
    return out


def fire_numbers(items: list[Item]) -> dict[int, int | None]:
    """The conversation turn of each fire turn on the spine, by its epoch (what its TurnCard says)."""
    return {item.fire.epoch: item.conversation_turn for item in items if item.fire is not None}


def prompt_spans(fires: Sequence[Turn]) -> dict[int, list[str]]:
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
    size = paging.PAGE_ENTRIES
    if turn == 0:
        first = trunk_prompts(session).first()
        entries = conversation_entries(session)
        if first is not None:
            entries = before_position(entries, first.offset, first.index)
        return paging.last_part(entries.count(), size)
    bounds = list(trunk_prompts(session)[turn - 1 : turn + 1])
    if not bounds:
        return 0
    entries = from_position(conversation_entries(session), bounds[0].offset, bounds[0].index)
    if len(bounds) > 1:
        entries = before_position(entries, bounds[1].offset, bounds[1].index)
    return paging.last_part(entries.count(), size)


def turn_of_entry(session: Session, entry: TranscriptEntry) -> tuple[int, int]:
    """(turn, part) of the page that holds a trunk entry: where its permalink lands."""
    turn = before_position(trunk_prompts(session), entry.offset, entry.index + 1).count()
    entries = conversation_entries(session)
    if turn > 0:
        prompt = trunk_prompts(session)[turn - 1 : turn].first()
        entries = from_position(entries, prompt.offset, prompt.index)
    inside = before_position(entries, entry.offset, entry.index).count()
    return turn, paging.part_of(inside, paging.PAGE_ENTRIES)


def entry_at_or_before(session: Session, at: tuple[int, int]) -> TranscriptEntry | None:
    """The trunk's last conversation entry at or before position `at` (a live cursor): where a page
    that had read up to `at` stood. None before the first entry or without a transcript."""
    if session.transcript_id is None:
        return None
    entries = before_position(conversation_entries(session), at[0], at[1] + 1)
    return entries.order_by("-offset", "-index").only("pk", "offset", "index", "uuid").first()


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
