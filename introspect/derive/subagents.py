"""Subagent runs of a session, each linked to the tool call that spawned it (formats-claude-code.md §11)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import orjson

from introspect.models import Session, SourceFile, Subagent, TranscriptEntry
from introspect.rules import secrets
from lib import bulk, column_fit, safefs

META_CAP = 65536


def subagent_files(session: Session) -> dict[str, SourceFile]:
    """The session's subagent transcripts by agent id, the newest generation of each."""
    return subagent_files_in(SourceFile.objects.filter(session_key=session.sid).order_by("generation"))


def subagent_files_in(rows: Iterable[SourceFile]) -> dict[str, SourceFile]:
    """`subagent_files` among a session's transcript files, read already, oldest generation first."""
    return {row.agent_key: row for row in rows if row.kind == SourceFile.Kind.SUBAGENT_TRANSCRIPT}


def read_metas(files: dict[str, SourceFile]) -> dict[str, dict]:
    """Each subagent file's `.meta.json`, read before the derive transaction (files are slow and may
    fail: a database write must never wait on them)."""
    return {agent_id: read_meta(row) for agent_id, row in files.items()}


def read_meta(row: SourceFile) -> dict:
    """The `.meta.json` beside a subagent file the importer discovered (never a path from data)."""
    path = Path(row.root) / (row.rel_path[: -len(".jsonl")] + ".meta.json")
    try:
        raw = safefs.read_capped(Path(row.root), path, META_CAP)
    except OSError:
        return {}  # missing, unreadable, a FIFO, or a link out of the transcripts folder: no meta
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def rebuild_subagents(
    session: Session, trunk: SourceFile | None, files: dict[str, SourceFile], metas: dict[str, dict]
) -> None:
    """Link each subagent run to its spawning tool call: meta.json first, then the trunk's own links."""
    links: dict[str, tuple[str, str]] = {}
    for agent_id in files:
        meta = metas.get(agent_id, {})
        if meta.get("toolUseId"):
            links[agent_id] = (meta["toolUseId"], "meta.json")
    trunk_lines = (
        TranscriptEntry.objects.filter(source=trunk).defer("raw", "cwd", "flags").order_by("offset", "index")
    )
    if trunk is not None:
        for entry in (
            trunk_lines.exclude(spawned_agent_id=None)
            .exclude(spawned_agent_id="")
            .exclude(tool_result_id=None)
            .exclude(tool_result_id="")
        ):
            if entry.spawned_agent_id not in links:
                links[entry.spawned_agent_id] = (
                    entry.tool_result_id,
                    "agent_progress" if entry.type == "progress" else "tool_result",
                )
    wanted = {tool_use_id for tool_use_id, _ in links.values() if tool_use_id}
    spawns = (
        {entry.tool_use_id: entry for entry in bulk.chunked_in(trunk_lines, "tool_use_id", wanted)}
        if trunk is not None
        else {}
    )
    Subagent.objects.filter(session=session).delete()
    rows = []
    for agent_id in sorted(set(files) | set(links)):
        tool_use_id, method = links.get(agent_id, ("", ""))
        spawn = spawns.get(tool_use_id)
        meta = metas.get(agent_id, {})
        spawn_input = tool_input(spawn)
        rows.append(
            Subagent(
                session=session,
                agent_id=agent_id,
                source=files.get(agent_id),
                tool_use_id=tool_use_id,
                spawn_entry=spawn,
                link=method,
                agent_type=column_fit.cut(
                    str(spawn_input.get("subagent_type") or meta.get("agentType") or ""),
                    Subagent,
                    "agent_type",
                ),
                description=secrets.mask_text(
                    str(spawn_input.get("description") or meta.get("description") or "")
                ),
            )
        )
    Subagent.objects.bulk_create(rows)


def tool_input(entry: TranscriptEntry | None) -> dict:
    """The `input` of the tool call a transcript line holds; {} when it holds none."""
    if entry is None:
        return {}
    try:
        message = orjson.loads(entry.line).get("message") or {}
    except (orjson.JSONDecodeError, AttributeError):
        return {}
    for block in message.get("content") or []:
        if (
            isinstance(block, dict)
            and block.get("type") == "tool_use"
            and isinstance(block.get("input"), dict)
        ):
            return block["input"]
    return {}
