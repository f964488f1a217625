"""Writers of the upstream formats waysweb imports, shared by sample/build.py and bench/corpus.py.

One small function per format. Each returns what the upstream tool leaves on disk (text, or bytes for a
gzip member); what to write stays with the generator: the sample's storyline of sessions, the bench's
scale and randomness. The spec sections named in each docstring are in /work/shared/spec/.

Key order is part of the bytes both generators keep stable, never a contract for readers
(formats-agent-ways.md §4: "field order after `ts` is not a contract"). Claude Code itself has written
the keys of one line type in more than one order across versions, and the two generators settled on
different ones; `KeyOrder` names each place they differ.
"""

from __future__ import annotations

import gzip
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import orjson

# HOME-relative locations (formats-agent-ways.md §2, §10.1; formats-claude-code.md §1;
# knowledge-and-records.md §2.1).
EVENTS_DIR = ".local/state/agent-ways"
LEGACY_EVENTS = ".claude/stats/events.jsonl"
CORE_WAYS = ".claude/hooks/ways"
USER_WAYS = ".config/agent-ways/ways"
PROJECTS_DIR = ".claude/projects"
LEDGER_DIR = ".claude/ledger"

COMPACT_SUMMARY = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The summary below covers the earlier portion of the conversation.\n\nSummary:\n"
)
INTERRUPTED = "[Request interrupted by user]"


# ---------------------------------------------------------------------------------------------- JSON


def dumps(obj: object) -> str:
    """Compact JSON with non-ASCII text as is, the spelling agent-ways (serde, `jq -c`) and Claude Code
    write; orjson and `json.dumps(ensure_ascii=False, separators=(",", ":"))` agree on every line here."""
    return orjson.dumps(obj).decode()


def jsonl(lines: Iterable[str]) -> str:
    """A JSONL file: every line `\\n`-terminated, the last one too (formats-agent-ways.md §4)."""
    return "".join(line + "\n" for line in lines)


# ------------------------------------------------------------------------------------ agent-ways events


def events_line(ts: str, event: str, **fields: object) -> str:
    """One `events.jsonl` line (formats-agent-ways.md §4-§6): `ts` first, then `event`, then the fields in
    the order given. Values are passed as the writer spells them: strings for numbers agent-ways writes as
    strings (`"token_position":"1204"`), native JSON only where §4 lists it."""
    return dumps({"ts": ts, "event": event, **fields})


def gzip_member(data: bytes, *, name: str = "", level: int = 6) -> bytes:
    """One member of a multi-member `events-YYYY-MM-DD.jsonl.gz` archive (formats-agent-ways.md §2.2, §3);
    members are concatenated as rotation appends them. mtime 0 keeps the bytes reproducible. With a `name`
    the header carries it (FNAME), as GzipFile writes a member; without one it is `gzip.compress`'s
    header."""
    if not name:
        return gzip.compress(data, compresslevel=level, mtime=0)
    buf = io.BytesIO()
    with gzip.GzipFile(filename=name, mode="wb", fileobj=buf, mtime=0, compresslevel=level) as member:
        member.write(data)
    return buf.getvalue()


# ------------------------------------------------------------------------------------------- way files


def way_file(front: str, body: str) -> str:
    """A way or check file (formats-agent-ways.md §10): `---` front matter `---`, then the Markdown body."""
    return f"---\n{front.strip()}\n---\n{body.strip()}\n"


def way_path(way_id: str, *, check: bool = False) -> str:
    """Where a way lives under its root (§10.2): the id is the directory, the file is named after its leaf
    (`<id>/<leaf>.md`, a check beside it as `<leaf>.check.md`)."""
    leaf = way_id.rsplit("/", 1)[-1]
    return f"{way_id}/{leaf}.check.md" if check else f"{way_id}/{leaf}.md"


# ----------------------------------------------------------------------------- Claude Code transcripts


def project_slug(path: str) -> str:
    """The project directory name under `~/.claude/projects` (formats-claude-code.md §2): every character
    outside [A-Za-z0-9] becomes `-` (per UTF-16 unit upstream; the same for the ASCII paths written here)."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def transcript_path(project: str, session_id: str) -> str:
    """A trunk transcript, HOME-relative (formats-claude-code.md §1)."""
    return f"{PROJECTS_DIR}/{project_slug(project)}/{session_id}.jsonl"


def subagent_path(project: str, session_id: str, agent_id: str, suffix: str = ".jsonl") -> str:
    """A subagent transcript (or, with suffix `.meta.json`, its sidecar; formats-claude-code.md §1, §11)."""
    return f"{PROJECTS_DIR}/{project_slug(project)}/{session_id}/subagents/agent-{agent_id}{suffix}"


@dataclass(frozen=True)
class KeyOrder:
    """Where the two generators put a transcript line's keys. The defaults are the sample's order, which is
    the order of the spec's upstream example lines for prompts and assistant replies (formats-claude-code.md
    §5, §6); the bench corpus has always written the opposite of each."""

    # assistant lines: "type" right after the envelope, not after "requestId"
    type_first: bool = False
    # a user line's own fields (permissionMode, toolUseResult…) after "uuid", "timestamp", not before
    fields_after_stamp: bool = True
    # compact_boundary: compactMetadata after "uuid", "timestamp", not before
    metadata_after_stamp: bool = False
    # Edit's toolUseResult: structuredPatch before userModified/replaceAll, not after
    patch_before_flags: bool = False
    # the Agent tool_use block: "caller" before "input", not after
    agent_caller_first: bool = False


SAMPLE_ORDER = KeyOrder()


def envelope(
    *, cwd: str, session_id: str, version: str, git_branch: str, slug: str, agent_id: str | None = None
) -> dict:
    """The fields every conversation line of one thread repeats, after `parentUuid` (formats-claude-code.md
    §4); a subagent's lines are sidechain lines carrying its `agentId` (§11)."""
    fields = {
        "isSidechain": agent_id is not None,
        "userType": "external",
        "entrypoint": "cli",
        "cwd": cwd,
        "sessionId": session_id,
        "version": version,
        "gitBranch": git_branch,
    }
    if agent_id is not None:
        fields["agentId"] = agent_id
    fields["slug"] = slug
    return fields


def _stamped(head: dict, own: Mapping | None, uuid: str, timestamp: str, *, own_after: bool) -> str:
    stamp = {"uuid": uuid, "timestamp": timestamp}
    own = own or {}
    return dumps({**head, **stamp, **own} if own_after else {**head, **own, **stamp})


def transcript_user(
    parent: str | None,
    env: Mapping,
    content: str | list,
    *,
    uuid: str,
    timestamp: str,
    extra: Mapping | None = None,
    order: KeyOrder = SAMPLE_ORDER,
) -> str:
    """A `type:"user"` line (formats-claude-code.md §5): a prompt, a tool_result carrier, the compact summary
    or a subagent's task. `extra` holds the line's own fields (permissionMode, promptId, toolUseResult…)."""
    head = {"parentUuid": parent, **env, "type": "user", "message": {"role": "user", "content": content}}
    return _stamped(head, extra, uuid, timestamp, own_after=order.fields_after_stamp)


def transcript_prompt(
    parent: str | None,
    env: Mapping,
    text: str,
    *,
    prompt_id: str,
    uuid: str,
    timestamp: str,
    permission_mode: str = "default",
    order: KeyOrder = SAMPLE_ORDER,
) -> str:
    """A person's prompt: a user line with `permissionMode` and `promptId`, which groups every line the
    prompt causes (formats-claude-code.md §4, 2.1.7x+)."""
    extra = {"permissionMode": permission_mode, "promptId": prompt_id}
    return transcript_user(parent, env, text, uuid=uuid, timestamp=timestamp, extra=extra, order=order)


def transcript_tool_result(
    parent: str | None,
    env: Mapping,
    block: dict,
    *,
    result: object,
    assistant_uuid: str,
    uuid: str,
    timestamp: str,
    order: KeyOrder = SAMPLE_ORDER,
) -> str:
    """The user line carrying one tool_result block, its structured `toolUseResult` and
    `sourceToolAssistantUUID`, the assistant line that made the call (formats-claude-code.md §4, 2.1.1+)."""
    extra = {"toolUseResult": result, "sourceToolAssistantUUID": assistant_uuid}
    return transcript_user(parent, env, [block], uuid=uuid, timestamp=timestamp, extra=extra, order=order)


def transcript_compact_summary(
    parent: str | None,
    env: Mapping,
    summary: str,
    *,
    uuid: str,
    timestamp: str,
    order: KeyOrder = SAMPLE_ORDER,
) -> str:
    """The user line after a compact_boundary holding the summary (formats-claude-code.md §10)."""
    extra = {"isVisibleInTranscriptOnly": True, "isCompactSummary": True}
    return transcript_user(
        parent, env, COMPACT_SUMMARY + summary, uuid=uuid, timestamp=timestamp, extra=extra, order=order
    )


def usage(
    input_tokens: int, cache_creation: int, cache_read: int, output_tokens: int, *, breakdown: bool = True
) -> dict:
    """`message.usage` (formats-claude-code.md §6); with `breakdown`, the cache writes are split by TTL (all
    1 h here), as assistant lines carry them; a subagent's `toolUseResult.usage` has no split."""
    out: dict = {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": cache_creation,
        "cache_read_input_tokens": cache_read,
    }
    if breakdown:
        out["cache_creation"] = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": cache_creation}
    out["output_tokens"] = output_tokens
    out["service_tier"] = "standard"
    return out


def transcript_assistant(
    parent: str | None,
    env: Mapping,
    block: dict,
    *,
    model: str,
    message_id: str,
    request_id: str,
    stop_reason: str | None,
    usage: dict,
    uuid: str,
    timestamp: str,
    order: KeyOrder = SAMPLE_ORDER,
) -> str:
    """One assistant line (formats-claude-code.md §5, §6). Claude Code writes one line per content block;
    the lines of one reply share `message.id`, `requestId` and `usage` (the de-dup key), and only the last
    carries the `stop_reason`."""
    message = {
        "model": model,
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "content": [block],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage,
    }
    if order.type_first:
        head = {"parentUuid": parent, **env, "type": "assistant", "message": message, "requestId": request_id}
    else:
        head = {"parentUuid": parent, **env, "message": message, "requestId": request_id, "type": "assistant"}
    return _stamped(head, None, uuid, timestamp, own_after=True)


def text_block(text: str) -> dict:
    """A `text` content block (formats-claude-code.md §7)."""
    return {"type": "text", "text": text}


def thinking_block(thinking: str, signature: str) -> dict:
    """A `thinking` content block with its signature (formats-claude-code.md §7)."""
    return {"type": "thinking", "thinking": thinking, "signature": signature}


def tool_use_block(tool_id: str, name: str, tool_input: dict) -> dict:
    """A `tool_use` content block (formats-claude-code.md §7)."""
    return {
        "type": "tool_use",
        "id": tool_id,
        "name": name,
        "input": tool_input,
        "caller": {"type": "direct"},
    }


def agent_tool_use_block(
    tool_id: str, *, description: str, prompt: str, subagent_type: str, order: KeyOrder = SAMPLE_ORDER
) -> dict:
    """The `Agent` tool call that spawns a subagent (formats-claude-code.md §11)."""
    tool_input = {"description": description, "prompt": prompt, "subagent_type": subagent_type}
    if order.agent_caller_first:
        return {
            "type": "tool_use",
            "id": tool_id,
            "name": "Agent",
            "caller": {"type": "direct"},
            "input": tool_input,
        }
    return tool_use_block(tool_id, "Agent", tool_input)


def tool_result_block(tool_use_id: str, content: str | list, *, is_error: bool | None = None) -> dict:
    """A `tool_result` content block (formats-claude-code.md §7); `is_error` absent means success."""
    block = {"tool_use_id": tool_use_id, "type": "tool_result", "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    return block


def numbered_line(number: int, text: str) -> str:
    """One line of the Read tool's text result: the line number right-aligned in six columns, an arrow."""
    return f"{number:>6}→{text}"


def read_tool_result(
    file_path: str, content: str, *, start_line: int, num_lines: int, total_lines: int
) -> dict:
    """`toolUseResult` of Read (formats-claude-code.md §7)."""
    return {
        "type": "text",
        "file": {
            "filePath": file_path,
            "content": content,
            "numLines": num_lines,
            "startLine": start_line,
            "totalLines": total_lines,
        },
    }


def grep_tool_result(filenames: list[str]) -> dict:
    """`toolUseResult` of Grep in files_with_matches mode (formats-claude-code.md §7)."""
    return {"mode": "files_with_matches", "filenames": filenames, "numFiles": len(filenames)}


def bash_tool_result(output: str, *, error: bool) -> tuple[str, object]:
    """(tool_result text, `toolUseResult`) of Bash: stdout as is, or a failed command, whose structured
    result is the same error text (formats-claude-code.md §7)."""
    if error:
        text = f"Error: Exit code 1\n{output}"
        return text, text
    return output, {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}


def edit_tool_result(
    file_path: str,
    old: str,
    new: str,
    *,
    start: int,
    original_file: str | None = None,
    order: KeyOrder = SAMPLE_ORDER,
) -> tuple[str, dict]:
    """(tool_result text, `toolUseResult`) of Edit: one structuredPatch hunk replacing `old` by `new` at line
    `start` (formats-claude-code.md §7; diffs render from the hunk)."""
    olds, news = old.split("\n"), new.split("\n")
    patch = [
        {
            "oldStart": start,
            "oldLines": len(olds),
            "newStart": start,
            "newLines": len(news),
            "lines": [f"-{line}" for line in olds] + [f"+{line}" for line in news],
        }
    ]
    result: dict = {"filePath": file_path, "oldString": old, "newString": new, "originalFile": original_file}
    if order.patch_before_flags:
        result.update(structuredPatch=patch, userModified=False, replaceAll=False)
    else:
        result.update(userModified=False, replaceAll=False, structuredPatch=patch)
    return f"The file {file_path} has been updated successfully.", result


def write_tool_result(file_path: str, content: str) -> tuple[str, dict]:
    """(tool_result text, `toolUseResult`) of Write creating a file (formats-claude-code.md §7)."""
    result = {"type": "create", "filePath": file_path, "content": content, "structuredPatch": []}
    return f"File created successfully at: {file_path}", result


def agent_tool_result(
    tool_use_id: str,
    result: str,
    *,
    agent_id: str,
    total_tokens: int,
    tool_uses: int,
    duration_ms: int,
    usage: dict,
) -> tuple[dict, dict]:
    """(tool_result block, `toolUseResult`) of a finished subagent (formats-claude-code.md §11): its answer,
    then the text block naming the agent and its totals, which the structured result repeats."""
    footer = (
        f"agentId: {agent_id} (use SendMessage with to: '{agent_id}' to continue this agent)\n"
        f"<usage>total_tokens: {total_tokens}\ntool_uses: {tool_uses}\nduration_ms: {duration_ms}</usage>"
    )
    block = tool_result_block(tool_use_id, [text_block(result), text_block(footer)])
    structured = {
        "status": "completed",
        "agentId": agent_id,
        "totalDurationMs": duration_ms,
        "totalTokens": total_tokens,
        "totalToolUseCount": tool_uses,
        "usage": usage,
    }
    return block, structured


def transcript_attachment(
    parent: str | None,
    env: Mapping,
    *,
    hook_event: str,
    hook_name: str,
    tool_use_id: str,
    content: list[str],
    uuid: str,
    timestamp: str,
) -> str:
    """A `hook_additional_context` attachment: the text a hook injected, keyed to its hook run by
    `toolUseID` (formats-claude-code.md §9.3, 2.1.97+)."""
    attachment = {
        "type": "hook_additional_context",
        "content": content,
        "hookName": hook_name,
        "toolUseID": tool_use_id,
        "hookEvent": hook_event,
    }
    head = {"parentUuid": parent, **env, "type": "attachment", "attachment": attachment}
    return _stamped(head, None, uuid, timestamp, own_after=True)


def transcript_hook_progress(
    parent: str | None,
    env: Mapping,
    *,
    hook_event: str,
    hook_name: str,
    command: str,
    tool_use_id: str,
    uuid: str,
    timestamp: str,
) -> str:
    """A `hook_progress` line, written when a hook starts (formats-claude-code.md §9.2)."""
    data = {"type": "hook_progress", "hookEvent": hook_event, "hookName": hook_name, "command": command}
    head = {
        "parentUuid": parent,
        **env,
        "type": "progress",
        "data": data,
        "parentToolUseID": tool_use_id,
        "toolUseID": tool_use_id,
    }
    return _stamped(head, None, uuid, timestamp, own_after=True)


def transcript_turn_duration(
    parent: str | None, env: Mapping, *, duration_ms: int, uuid: str, timestamp: str
) -> str:
    """The `system`/`turn_duration` line closing a turn (formats-claude-code.md §8, 2.1.150+)."""
    head = {
        "parentUuid": parent,
        **env,
        "type": "system",
        "subtype": "turn_duration",
        "durationMs": duration_ms,
        "isMeta": False,
    }
    return _stamped(head, None, uuid, timestamp, own_after=True)


def transcript_compact_boundary(
    logical_parent: str | None,
    env: Mapping,
    *,
    trigger: str,
    pre_tokens: int,
    post_tokens: int,
    duration_ms: int,
    uuid: str,
    timestamp: str,
    order: KeyOrder = SAMPLE_ORDER,
) -> str:
    """The `system`/`compact_boundary` line (formats-claude-code.md §10): the chain restarts (`parentUuid`
    null) and `logicalParentUuid` names the last line before the compaction."""
    head = {
        "parentUuid": None,
        "logicalParentUuid": logical_parent,
        **env,
        "type": "system",
        "subtype": "compact_boundary",
        "content": "Conversation compacted",
        "isMeta": False,
        "level": "info",
    }
    metadata = {
        "compactMetadata": {
            "trigger": trigger,
            "preTokens": pre_tokens,
            "postTokens": post_tokens,
            "durationMs": duration_ms,
        }
    }
    if order.metadata_after_stamp:
        return _stamped(head, metadata, uuid, timestamp, own_after=True)
    return _stamped({**head, **metadata}, None, uuid, timestamp, own_after=True)


def transcript_permission_mode(session_id: str, mode: str = "default") -> str:
    """The `permission-mode` line that opens a transcript (formats-claude-code.md §5, 2.1.97+)."""
    return dumps({"type": "permission-mode", "permissionMode": mode, "sessionId": session_id})


def transcript_ai_title(session_id: str, title: str) -> str:
    """An `ai-title` line (formats-claude-code.md §5; the last one wins)."""
    return dumps({"type": "ai-title", "aiTitle": title, "sessionId": session_id})


def transcript_last_prompt(session_id: str, prompt: str) -> str:
    """A `last-prompt` line (formats-claude-code.md §5)."""
    return dumps({"type": "last-prompt", "lastPrompt": prompt, "sessionId": session_id})


def file_backup(backup_name: str, version: int, backup_time: str) -> dict:
    """One entry of `snapshot.trackedFileBackups` (formats-claude-code.md §5)."""
    return {"backupFileName": backup_name, "version": version, "backupTime": backup_time}


def transcript_file_history_snapshot(message_id: str, backups: dict, *, timestamp: str) -> str:
    """A `file-history-snapshot` line, the rewind data written before a prompt (formats-claude-code.md §5)."""
    snapshot = {"messageId": message_id, "trackedFileBackups": backups, "timestamp": timestamp}
    return dumps(
        {
            "type": "file-history-snapshot",
            "messageId": message_id,
            "snapshot": snapshot,
            "isSnapshotUpdate": False,
        }
    )


def subagent_meta(*, agent_type: str, description: str, tool_use_id: str) -> str:
    """A subagent's `.meta.json` sidecar; `toolUseId` links it to the spawning tool_use
    (formats-claude-code.md §1, 2.1.172)."""
    return dumps({"agentType": agent_type, "description": description, "toolUseId": tool_use_id}) + "\n"


# ---------------------------------------------------------------------------------------- front matter


def yaml_quoted(text: str) -> str:
    """A YAML double-quoted scalar: a JSON string is one, escapes included."""
    return dumps(text)


def _yaml_lines(fields: Mapping[str, object], indent: str) -> list[str]:
    lines = []
    for key, value in fields.items():
        if value is None:
            continue
        if isinstance(value, Mapping):
            lines += [f"{indent}{key}:", *_yaml_lines(value, indent + "  ")]
        elif isinstance(value, list | tuple):
            lines.append(f"{indent}{key}:")
            for item in value:
                if isinstance(item, Mapping):
                    first, *rest = _yaml_lines(item, indent + "    ")
                    lines += [f"{indent}  - {first.lstrip()}", *rest]
                else:
                    lines.append(f"{indent}  - {item}")
        else:
            lines.append(f"{indent}{key}: {value}")
    return lines


def front_matter(fields: Mapping[str, object]) -> str:
    """A `---` YAML block in the block style the upstream writers use: a scalar is written as given (quote it
    with `yaml_quoted` where needed), a list one `- item` per line, a mapping indented; None is left out."""
    return "---\n" + "".join(line + "\n" for line in _yaml_lines(fields, "")) + "---\n"


# ---------------------------------------------------------------------------------- ADR-112 ledger


def ledger_entry(
    *,
    session: str,
    epoch: int,
    context_pct: int,
    timestamp: str,
    phase: str,
    body: str,
    transcript: str | None = None,
) -> str:
    """An ADR-112 session-ledger entry (knowledge-and-records.md §2.2): the Stop hook's front matter, a blank
    line, the model's prose."""
    front = {
        "session": session,
        "transcript": transcript,
        "epoch": epoch,
        "context_pct": context_pct,
        "timestamp": timestamp,
        "phase": phase,
    }
    return f"{front_matter(front)}\n{body.strip()}\n"


def ledger_entry_name(ts: datetime, epoch: int) -> str:
    """`<UTC YYYY-MM-DD>T<HHMM>Z_e<epoch, 3 digits>.md` (knowledge-and-records.md §2.1)."""
    return f"{ts:%Y-%m-%dT%H%M}Z_e{epoch:03d}.md"


# ---------------------------------------------------------------------------------------- majordomus


def knowledge_record(
    *,
    id: str,
    cls: str,
    title: str,
    description: str,
    status: str,
    epistemics: str,
    date: str,
    tags: Sequence[str] = (),
    superseded_by: str | None = None,
    origin: str | None = None,
    derived_from: Sequence[str] = (),
    relations: Sequence[tuple[str, str]] = (),
    about: str | None = None,
    route: str | None = None,
    sections: Sequence[tuple[str, str]] = (),
) -> str:
    """A majordomus `knowledge/v1` record (knowledge-and-records.md §4.1): keys in the schema's order, body
    `# <title>` and the description, then any `# Evidence` / `# Rejected` sections."""
    provenance = {"origin": origin, "derived_from": list(derived_from) or None}
    front = {
        "schema": "knowledge/v1",
        "id": id,
        "kind": "knowledge",
        "class": cls,
        "title": yaml_quoted(title),
        "description": yaml_quoted(description),
        "status": status,
        "epistemics": epistemics,
        "date": date,
        "tags": list(tags) or None,
        "superseded_by": superseded_by,
        "provenance": provenance if origin or derived_from else None,
        "relations": [{"type": rtype, "target": target} for rtype, target in relations] or None,
        "about": yaml_quoted(about) if about else None,
        "route": route if about else None,
    }
    body = f"# {title}\n\n{description}\n"
    for heading, text in sections:
        body += f"\n# {heading}\n\n{text.strip()}\n"
    return f"{front_matter(front)}\n{body}"


def mj_envelope(ts: str, event: str, *, head: str, branch: str, by: str, session: str | None = None) -> list:
    """The computed envelope of a majordomus `ledger.jsonl` line (knowledge-and-records.md §7) as (key, value)
    pairs: `ts, event, head, branch, by`, and `session` while an episode is open."""
    pairs = [("ts", ts), ("event", event), ("head", head), ("branch", branch), ("by", by)]
    if session:
        pairs.append(("session", session))
    return pairs


def mj_line(*pairs: tuple[str, object]) -> str:
    """One majordomus `ledger.jsonl` line from (key, value) pairs in order. Keys may repeat, as in
    `provider.event.*` lines, which carry the envelope's `event` and the provider's (§7.1): a dict cannot."""
    return "{" + ",".join(f"{dumps(key)}:{dumps(value)}" for key, value in pairs) + "}"


# ------------------------------------------------------------------------------------------------ ADRs


def _sections(sections: Iterable[tuple[str, str]], level: str = "##") -> str:
    return "".join(f"\n{level} {heading}\n\n{text.strip()}\n" for heading, text in sections)


def adr_nygard(
    number: int, title: str, *, date: str, status: str, sections: Sequence[tuple[str, str]]
) -> str:
    """An adr-tools (Nygard) record (knowledge-and-records.md §10.1): `# N. Title`, `Date:`, `## Status`
    (which carries "Supercedes"/"Superceded by" links in adr-tools' spelling), then `## Context`,
    `## Decision`, `## Consequences` and any further sections."""
    return f"# {number}. {title}\n\nDate: {date}\n" + _sections([("Status", status), *sections])


def adr_madr(
    title: str,
    *,
    sections: Sequence[tuple[str, str]],
    front: Mapping[str, object] | None = None,
    header: Sequence[tuple[str, str]] = (),
) -> str:
    """A MADR record (knowledge-and-records.md §10.2): MADR 3/4 keep `status`, `date`, `decision-makers`…
    in optional YAML `front`; MADR 2.x put `Status:`/`Deciders:`/`Date:` as a bullet `header` under the H1."""
    text = (front_matter(front) + "\n" if front else "") + f"# {title}\n"
    if header:
        text += "\n" + "".join(f"* {key}: {value}\n" for key, value in header)
    return text + _sections(sections)


def adr_agent_ways(
    number: int,
    title: str,
    *,
    front: Mapping[str, object],
    sections: Sequence[tuple[str, str]],
    banner: str | None = None,
) -> str:
    """An agent-ways v0 record (knowledge-and-records.md §10.6): front matter (status, date, deciders,
    related, supersedes/superseded_by), `# ADR-NNN: <decision>`, the archive banner if it was archived,
    then Context, Decision, Consequences (Positive/Negative/Neutral), Alternatives Considered."""
    text = f"{front_matter(front)}\n# ADR-{number}: {title}\n"
    if banner:
        text += f"\n> {banner}\n"
    return text + _sections(sections)


def adr_majordomus(
    *,
    id: str,
    title: str,
    status: str,
    date: str,
    tags: Sequence[str],
    related: Sequence[str],
    origin: str,
    body: str,
    supersedes: Sequence[str] = (),
    superseded_by: str | None = None,
    derived_from: Sequence[str] = (),
) -> str:
    """A majordomus `schema: adr/v1` record (knowledge-and-records.md §10.5), keys in the order majordomus
    writes them; the body has `# Context`, `# Decision`, `# Consequences` (whatever `body` holds)."""
    front = {
        "schema": "adr/v1",
        "id": id,
        "kind": "adr",
        "title": title,
        "status": status,
        "date": date,
        "tags": list(tags),
        "supersedes": list(supersedes) or None,
        "superseded_by": superseded_by,
        "related": list(related),
        "provenance": {"origin": origin, "derived_from": list(derived_from) or None},
    }
    return f"{front_matter(front)}\n{body.strip()}\n"
