"""A session's subagent runs: what each cost and did, a page of its own transcript, and which of them
the session page shows under a tool call or on their own."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Max, Min, Q

from introspect.derive import fields
from introspect.models import Subagent, TranscriptEntry
from introspect.queries import line_gaps
from introspect.queries.conversation import (
    CONVERSATION_TYPES_HIDDEN,
    Item,
    place_gaps,
    position_of,
    prepare_spine,
)
from introspect.rules import conversation as paging
from introspect.rules import usage


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


def subagent_conversation(agent: Subagent, *, part: int = 0) -> tuple[list[Item], int | None]:
    """A page (`part`) of a subagent's own transcript, loaded on demand under the call that
    spawned it, as spine items (its entries, and the marks of lines that could not be read), and
    the next part's number (None at the end): every line reachable, page by page."""
    if agent.source_id is None:
        return [], None
    size = paging.PAGE_ENTRIES
    run = list(
        TranscriptEntry.objects.filter(source_id=agent.source_id, inert=False)
        .exclude(type__in=CONVERSATION_TYPES_HIDDEN)
        .order_by("offset", "index")[part * size : (part + 1) * size + 1]
    )
    following = part + 1 if len(run) > size else None
    entries = run[:size]
    items = prepare_spine(agent.source_id, [Item(entry=entry) for entry in entries])
    if line_gaps.may_have_gaps(agent.source, entries):
        lower = position_of(entries[0]) if part > 0 and entries else None
        upper = position_of(run[size]) if following is not None else None
        items = place_gaps(items, line_gaps.gaps_between(agent.source, lower, upper))
    return items, following


@dataclass(frozen=True, slots=True)
class AgentCard:
    """A subagent run as a page draws it: the run, and what it cost and did (`summary`; None when
    the page does not show its facts, or the run has no file)."""

    agent: Subagent
    summary: SubagentSummary | None = None


def agent_cards(agents: list[Subagent], summaries: dict[str, SubagentSummary]) -> list[AgentCard]:
    """The cards of `agents`, each with its summary when `summaries` has one: the one place an
    AgentCard is built."""
    return [AgentCard(agent=agent, summary=summaries.get(agent.agent_id)) for agent in agents]


def subagents_by_tool_use(
    agents: list[Subagent], *, summarised: set[str] = frozenset()
) -> dict[str, AgentCard]:
    """The runs spawned by a tool call, by that call's tool_use id; those whose call is among
    `summarised` (the calls a page shows) with their summary (two queries when there are any)."""
    spawned = [agent for agent in agents if agent.tool_use_id]
    summaries = subagent_summaries([agent for agent in spawned if agent.tool_use_id in summarised])
    return {card.agent.tool_use_id: card for card in agent_cards(spawned, summaries)}


def loose_subagents(agents: list[Subagent]) -> list[AgentCard]:
    """The runs with a transcript of their own that no tool call of the page's conversation leads
    to: every one of a session whose main transcript is missing, else those whose spawning call
    is not in it. Each with its summary (tokens, cost); two queries when there are any."""
    loose = [agent for agent in agents if agent.spawn_entry_id is None and agent.source_id is not None]
    return agent_cards(loose, subagent_summaries(loose))
