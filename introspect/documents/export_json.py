"""A session as one JSON document: the dump (`ways session dump --matched`, documents/build.py,
as `api-session-dump` serves it) and the conversation in order, entry by entry, with each
agent-ways fire turn at its place (by epoch: its ways are the dump's turn of that epoch).

Validated by the pydantic models below before it is written, like the other documents.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

import orjson

from introspect.documents import build
from introspect.documents import schema as m
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


class ConversationItem(m.Out):
    kind: Literal["entry", "ways_turn"]
    entry: ExportEntry | None = None
    ways_turn: int | None = None  # the epoch of a turn of `dump.turns`


class SessionExport(m.Out):
    format: str
    session: str
    title: str
    project: str
    dump: m.SessionIntrospection | m.Error
    conversation: list[ConversationItem]


def json_export(session: Session, chunks: Iterable[list]) -> bytes:
    """The JSON document of `session` (chunks: queries.export.export_chunks)."""
    conversation = []
    turn = 0
    for items in chunks:
        for item in items:
            if item.fire is not None:
                conversation.append(ConversationItem(kind="ways_turn", ways_turn=item.fire.epoch))
                continue
            entry = item.entry
            if entry.is_prompt and item.turn_start is not None:
                turn = item.turn_start
            conversation.append(ConversationItem(kind="entry", entry=export_entry(entry, turn)))
    document = SessionExport(
        format=FORMAT,
        session=session.sid,
        title=session.title,
        project=session.recorded_project or (session.project.path if session.project else ""),
        dump=build.dump_document(session.sid, matched=True),
        conversation=conversation,
    )
    return orjson.dumps(m.dump(document), option=orjson.OPT_INDENT_2)


def export_entry(entry, turn: int) -> ExportEntry:
    return ExportEntry(
        uuid=entry.uuid,
        type=entry.type,
        subtype=entry.subtype or None,
        timestamp=entry.timestamp_raw,
        turn=turn,
        is_prompt=entry.is_prompt or None,
        text=entry.text,
        tool_name=entry.tool_name,
        tool_use_id=entry.tool_use_id,
        tool_result_id=entry.tool_result_id,
        is_error=entry.is_error or None,
        line=parsed(entry.line),
    )


def parsed(line: bytes) -> dict[str, Any] | None:
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None
