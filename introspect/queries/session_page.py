"""The session page: its header (compaction windows, context gauge), a page of the conversation or of
the fire-turn list with everything its fire turns show, what the viewer has not seen yet, and the
two live-follow tails."""

from __future__ import annotations

from dataclasses import dataclass, replace

from introspect.models import SeenMark, Session, Subagent, Turn
from introspect.queries import providers, turn_outcomes
from introspect.queries.conversation import (
    ConversationPage,
    Item,
    conversation_entries,
    conversation_page,
    conversation_tail,
    fire_numbers,
    fires_query,
    from_position,
    has_conversation,
    page_query,
    position_of,
    trunk_prompts,
    turn_of_entry,
)
from introspect.queries.fire_turns import (
    TURNS_PER_PAGE,
    near_misses_by_turn,
    peak_context,
    turn_cards,
    turns_page,
    ways_by_id,
    window_spans,
)
from introspect.queries.session_links import session_links
from introspect.queries.subagents import loose_subagents, subagents_by_tool_use
from lib.viewers import Viewer


def turn_context(
    session: Session,
    turns: list[Turn],
    *,
    header: bool = False,
    items: list[Item] | None = None,
    numbers: dict[int, int | None] | None = None,
) -> dict:
    """Everything the fire turns of a page show: rows with evidence, near-misses, subagents, and
    what other apps note under each turn (introspect/queries/providers.py). Given the conversation
    `items` of the page, a note about an entry goes under that entry and not again under its turn
    (`items`: the page's items, those with notes given them);
    `numbers`: each turn's conversation turn by its epoch (fire_numbers; none in the fire-turn list)."""
    turns = sorted(turns, key=lambda turn: turn.epoch)
    way_ids = {row.way_id for turn in turns for row in turn.ways.all()}
    ways = ways_by_id(way_ids, session.project)
    misses = near_misses_by_turn(session, turns)
    notes = providers.session_notes(session, turns, header=header)
    noted = [
        replace(item, notes=notes.by_entry[item.entry.pk])
        if item.entry is not None and item.entry.pk in notes.by_entry
        else item
        for item in items or ()
    ]
    placed = {id(note.item) for item in noted for note in item.notes}
    under_turns = {
        pk: [note for note in turn_notes if id(note.item) not in placed]
        for pk, turn_notes in notes.by_turn.items()
    }
    agents = list(Subagent.objects.filter(session=session).order_by("agent_id"))
    return {
        **({"items": noted} if items is not None else {}),
        "turns": turns,
        # What the turn-row partial draws of each turn it is given (by epoch).
        "turn_cards": turn_cards(
            turns, ways, session, misses=misses, notes=under_turns, numbers=numbers or {}
        ),
        "ways": ways,
        # The page's own calls show their run's facts; a live tail's do not.
        "subagents": subagents_by_tool_use(agents, summarised=tool_uses(items or []) if header else set()),
        "loose_subagents": loose_subagents(agents) if header else [],
        "header_notes": notes.header,
    }


def tool_uses(items: list[Item]) -> set[str]:
    """The tool_use ids of the calls among `items`."""
    return {item.entry.tool_use_id for item in items if item.entry is not None and item.entry.tool_use_id}


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
        "links": session_links(session),
    }
    if fires_from is not None or not has_conversation(session):
        start = fires_from or 1
        turns = turns_page(session, start=start)
        next_start = turns[-1].epoch + 1 if turns and turns[-1].epoch < session.turn_count else None
        prev_start = max(start - TURNS_PER_PAGE, 1) if start > 1 else None
        unseen = unseen_turns(session, turns, since_turns) if since_turns is not None else None
        return {
            **header,
            **turn_context(session, turns, header=True),
            "mode": "fires",
            "start": start,
            "next_start": next_start,
            "prev_start": prev_start,
            "fire_cursor": turns[-1].epoch if turns else 0,
            "unseen": unseen,
            "prev_query": fires_query(prev_start) if prev_start else "",
            "next_query": fires_query(next_start, seen_turns=unseen.since if unseen else None)
            if next_start
            else "",
        }
    page = conversation_page(session, turn=turn, part=part)
    context = turn_context(
        session, page.fires, header=True, items=page.items, numbers=fire_numbers(page.items)
    )
    page = replace(page, items=context.pop("items"))
    unseen = unseen_entries(session, page, since) if since is not None else None
    if unseen is not None and unseen.divider_at is not None:
        page = replace(page, items=divided(page.items, unseen.divider_at))
    headings = (item.turn_start for item in page.items if item.turn_start is not None)
    return {
        **header,
        **context,
        "mode": "conversation",
        "page": page,
        "turn_signals": turn_outcomes.turn_signals(session, headings),
        "fire_cursor": session.turn_count,
        "unseen": unseen,
        "next_query": page_query(*page.next, seen=unseen.since if unseen else None) if page.next else "",
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
    divider_at: tuple[int, int] | None = (
        None  # conversation: the position the divider goes before, on this page
    )

    @property
    def jump(self) -> str:
        """The link to the first of them: the divider on its page, carrying the mark."""
        if self.place is None:
            return "#new-since"
        if self.first_turn:
            return fires_query(self.place[0], seen_turns=self.since) + "#new-since"
        return page_query(*self.place, seen=self.since) + "#new-since"


def seen_mark(session: Session, viewer: Viewer) -> SeenMark | None:
    """The viewer's mark on `session`; None for a first visit (no query: no mark can exist)."""
    if not viewer.known:
        return None
    return SeenMark.objects.of(viewer).filter(session=session).first()


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
        return Unseen(count=newer.count(), since=f"{offset}.{index}", divider_at=at)
    return Unseen(count=newer.count(), since=f"{offset}.{index}", place=turn_of_entry(session, first))


def divided(items: list[Item], at: tuple[int, int]) -> list[Item]:
    """`items` with the "new since your last visit" divider before the first entry at or after `at`."""
    out = list(items)
    first = next(n for n, item in enumerate(out) if item.entry is not None and position_of(item.entry) >= at)
    out[first] = replace(out[first], first_unseen=True)
    return out


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
    # A turn the tail opens has its signals so far (one query, only when it opens any).
    headings = (item.turn_start for item in tail["items"] if item.turn_start is not None)
    noted = turn_context(session, tail["fires"], items=tail["items"], numbers=tail["fire_numbers"])
    return {
        **noted,
        **tail,
        "items": noted["items"],  # the tail's, with the notes about them
        "turn_signals": turn_outcomes.turn_signals(session, headings),
    }
