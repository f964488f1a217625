"""Reads for exporting a session: the session by id or id prefix, its whole conversation, and
its subagents' conversations.

The conversation is read a chunk at a time, each chunk prepared exactly as a page of the session
page prepares its entries, by the same function (queries/conversation.prepare_spine: tool cards,
paired results, spills, usage, fire turns placed on the spine), so an export of thousands of turns
costs a fixed number of queries per chunk and holds one chunk in memory. Each subagent's conversation is read
the same way, after the session's own (an export puts them in an appendix: export_formats.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from introspect.documents.export_runs import SubagentRun
from introspect.models import Session, Subagent, TranscriptEntry, Turn
from introspect.queries import line_gaps
from introspect.queries.conversation import (
    CONVERSATION_TYPES_HIDDEN,
    Item,
    conversation_entries,
    from_position,
    number_items,
    place_gaps,
    position_of,
    prepare_spine,
)
from introspect.queries.entry_cards import EntryCard
from introspect.queries.fire_turns import with_rows
from introspect.queries.subagents import subagent_summaries

EXPORT_CHUNK = 500
PREFIX_MATCHES_SHOWN = 5


def sessions_by_prefix(prefix: str) -> list[Session]:
    """The session named `prefix` exactly, else those whose id starts with it (at most a few more
    than one, to name them in an "ambiguous" error), id order."""
    exact = Session.objects.filter(sid=prefix).select_related("project", "transcript").first()
    if exact is not None:
        return [exact]
    if not prefix:
        return []
    return list(
        Session.objects.filter(sid__startswith=prefix)
        .select_related("project", "transcript")
        .order_by("sid")[: PREFIX_MATCHES_SHOWN + 1]
    )


def export_chunks(session: Session, *, size: int | None = None) -> Iterator[list[Item]]:
    """The session's conversation in file order as spine items (`conversation.Item`), `size`
    entries a chunk, each fire turn after the prompt it belongs to; fire turns no entry took (a session
    without a transcript has only those) come last, so none is left out. A result shown inside
    its call (`EntryCard.with_call`, as on the session page) stays in the list too, and so does a line
    of the input queue's bookkeeping (`EntryCard.bookkeeping`): the JSON export lists every entry, the
    HTML and Markdown ones skip them where they stand. Fire turns carry their conversation turn;
    a line that could not be read is marked at its place (`Item.gap`, queries/line_gaps.py).

    Queries: two for the fire turns and their rows, then about four a chunk.
    """
    size = size or EXPORT_CHUNK
    fires = list(with_rows(session.turns.all()).order_by("epoch"))
    by_prompt: dict[int, list[Turn]] = {}
    for fire in fires:
        by_prompt.setdefault(fire.prompt_entry_id or fire.nearest_prompt_id or 0, []).append(fire)
    placed: set[int] = set()
    entries = conversation_entries(session) if session.transcript_id is not None else None
    turn, open_prompt, after = 0, None, None
    while entries is not None:
        rest = entries if after is None else from_position(entries, after.offset, after.index + 1)
        run = list(rest[: size + 1])
        chunk, later = run[:size], (run[size] if len(run) > size else None)
        if not chunk:
            break
        items, _ = number_items(chunk, turn=turn, part=0 if after is None else 1)
        if after is not None and not chunk[0].is_prompt:
            items[0] = replace(
                items[0], turn_start=None
            )  # the turn open at the end of the last chunk goes on
        prompts = [entry.pk for entry in chunk if entry.is_prompt]
        keys = [
            *prompts,
            *([open_prompt] if open_prompt is not None else []),
            *([0] if after is None else []),
        ]
        chunk_fires = [f for key in keys for f in by_prompt.get(key, []) if f.epoch not in placed]
        items = prepare_spine(
            session.transcript_id,
            items,
            chunk_fires,
            later=later,
            open_prompt=open_prompt,
            turn=turn if after is not None else None,
            every_entry=True,
        )
        if line_gaps.may_have_gaps(session.transcript, chunk):
            # As on the page: what lies from the chunk's first entry up to the next chunk's.
            lower = None if after is None else position_of(chunk[0])
            upper = position_of(later) if later is not None else None
            items = place_gaps(items, line_gaps.gaps_between(session.transcript, lower, upper))
        placed.update(item.fire.epoch for item in items if item.fire is not None)
        turn += len(prompts)
        open_prompt = prompts[-1] if prompts else open_prompt
        after = chunk[-1]
        yield items
        if later is None:
            break
    left = [fire for fire in fires if fire.epoch not in placed]
    if left:
        yield [Item(fire=fire) for fire in left]


def subagent_runs(session: Session, *, size: int | None = None) -> list[SubagentRun]:
    """The session's subagent runs that have a transcript, in the order they started (their first
    stamped line; the agent id between equals): three queries, then about four a chunk as each
    run's `chunks` is read. A result shown inside its call is marked `with_call` on its card, as on
    the page."""
    agents = list(Subagent.objects.filter(session=session).exclude(source=None).select_related("spawn_entry"))
    summaries = subagent_summaries(agents)

    def started(agent: Subagent) -> tuple:
        at = summaries[agent.agent_id].started_at if agent.agent_id in summaries else None
        return (at is None, at.isoformat() if at else "", agent.agent_id)

    runs = []
    for agent in sorted(agents, key=started):
        summary = summaries.get(agent.agent_id)
        runs.append(
            SubagentRun(
                agent=agent,
                models=summary.models if summary else [],
                totals=summary.totals if summary else None,
                chunks=subagent_chunks(agent, size=size or EXPORT_CHUNK),
            )
        )
    return runs


def subagent_chunks(agent: Subagent, *, size: int) -> Iterator[list[EntryCard]]:
    """A subagent's own transcript, every conversation line of it prepared for display, `size` a
    chunk in file order."""
    lines = (
        TranscriptEntry.objects.filter(source_id=agent.source_id, inert=False)
        .exclude(type__in=CONVERSATION_TYPES_HIDDEN)
        .order_by("offset", "index")
    )
    after = None
    while True:
        rest = lines if after is None else from_position(lines, after.offset, after.index + 1)
        chunk = list(rest[:size])
        if not chunk:
            return
        items = prepare_spine(agent.source_id, [Item(entry=entry) for entry in chunk], every_entry=True)
        yield [item.card for item in items]
        if len(chunk) < size:
            return
        after = chunk[-1]
