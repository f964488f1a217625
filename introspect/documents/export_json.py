"""A session as one JSON document: the dump (`ways session dump --matched`, documents/build.py,
as `api-session-dump` serves it), the session's usage (tokens and list-price cost), the
conversation in order, entry by entry, with each agent-ways fire turn at its place (by epoch: its
ways are the dump's turn of that epoch), and each subagent's conversation with its own usage.

Validated by the pydantic models below before it is written, like the other documents.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any, Literal

import orjson

from introspect.documents import build
from introspect.documents import schema as m
from introspect.documents.export_runs import SubagentRun
from introspect.models import Session

FORMAT = "waysweb-session-export/1"


class ExportEntry(m.Out):
    uuid: str | None = None
    type: str
    subtype: str | None = None
    timestamp: str | None = None
    turn: int  # the conversation turn: 0 before the first prompt, then one per real prompt
    is_prompt: bool | None = None  # omitted when false, like is_error
    text: str
    tool_name: str | None = None
    tool_use_id: str | None = None
    tool_result_id: str | None = None
    is_error: bool | None = None
    line: dict[str, Any] | None = None  # the transcript line as Claude Code wrote it


class UnreadLine(m.Out):
    """A line of the transcript the importer could not read (kept in its quarantine)."""

    line: int  # 1-based, as an editor numbers the file's lines
    file: str  # its path under the root it was found in
    reason: str
    more: int | None = None  # lines further on that could not be read either, not listed one by one


class ConversationItem(m.Out):
    kind: Literal["entry", "ways_turn", "unread_line"]
    entry: ExportEntry | None = None
    ways_turn: int | None = None  # the epoch of a turn of `dump.turns`
    unread_line: UnreadLine | None = None


class ExportUsage(m.Out):
    """Tokens (one usage per message, its final row) and the list-price cost (rules/usage.py)."""

    input_tokens: int
    output_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int
    cost_usd: float | None  # null: no message was priced
    unpriced_messages: int


class ExportSubagent(m.Out):
    agent_id: str
    agent_type: str
    description: str
    tool_use_id: str | None  # the call that spawned it, when the files say so
    models: list[str]
    usage: ExportUsage | None  # null: its file has no line
    conversation: list[ExportEntry]


class SessionExport(m.Out):
    format: str
    session: str
    title: str
    project: str
    usage: ExportUsage
    dump: m.SessionIntrospection | m.Error
    conversation: list[ConversationItem]
    subagents: list[ExportSubagent]


def json_export(session: Session, chunks: Iterable[list], subagents: Sequence[SubagentRun] = ()) -> bytes:
    """The JSON document of `session` (chunks: queries.export.export_chunks; subagents:
    queries.export.subagent_runs)."""
    conversation = []
    turn = 0
    for items in chunks:
        for item in items:
            if item.fire is not None:
                conversation.append(ConversationItem(kind="ways_turn", ways_turn=item.fire.epoch))
                continue
            if item.gap is not None:
                conversation.append(ConversationItem(kind="unread_line", unread_line=unread_line(item.gap)))
                continue
            entry = item.card.entry
            if entry.is_prompt and item.turn_start is not None:
                turn = item.turn_start
            conversation.append(ConversationItem(kind="entry", entry=export_entry(item.card, turn)))
    document = SessionExport(
        format=FORMAT,
        session=session.sid,
        title=session.title,
        project=session.recorded_project or (session.project.path if session.project else ""),
        usage=export_usage(session),
        dump=build.dump_document(session.sid, matched=True),
        conversation=conversation,
        subagents=[export_subagent(run) for run in subagents],
    )
    return orjson.dumps(m.dump(document), option=orjson.OPT_INDENT_2)


def unread_line(gap) -> UnreadLine:
    """A queries.line_gaps.LineGap as the document says it."""
    return UnreadLine(line=gap.line, file=gap.file, reason=gap.reason, more=gap.more or None)


def export_usage(totals) -> ExportUsage:
    """A Session's usage fields, or a run's (rules.usage.UsageTotals): the same names."""
    cost: Decimal | None = totals.cost_usd
    return ExportUsage(
        input_tokens=totals.input_tokens,
        output_tokens=totals.output_tokens,
        cache_creation_input_tokens=totals.cache_creation_input_tokens,
        cache_read_input_tokens=totals.cache_read_input_tokens,
        cost_usd=None if cost is None else float(cost),
        unpriced_messages=totals.unpriced_messages,
    )


def export_subagent(run: SubagentRun) -> ExportSubagent:
    entries = []
    turn = 0
    for chunk in run.chunks:
        for card in chunk:
            entry = card.entry
            turn += entry.is_prompt  # its own prompts, as the session's are numbered
            entries.append(export_entry(card, turn))
    agent = run.agent
    return ExportSubagent(
        agent_id=agent.agent_id,
        agent_type=agent.agent_type,
        description=agent.description,
        tool_use_id=agent.tool_use_id or None,
        models=run.models,
        usage=export_usage(run.totals) if run.totals else None,
        conversation=entries,
    )


def export_entry(card, turn: int) -> ExportEntry:
    """An entry's card (queries.entry_cards.EntryCard) as the document says it: its text and line as
    shown, secrets masked."""
    entry = card.entry
    return ExportEntry(
        uuid=entry.uuid,
        type=entry.type,
        subtype=entry.subtype or None,
        timestamp=entry.timestamp_raw,
        turn=turn,
        is_prompt=entry.is_prompt or None,
        text=card.text,
        tool_name=entry.tool_name,
        tool_use_id=entry.tool_use_id,
        tool_result_id=entry.tool_result_id,
        is_error=entry.is_error or None,
        line=parsed(card.line),
    )


def parsed(line: bytes) -> dict[str, Any] | None:
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None
