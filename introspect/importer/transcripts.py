"""A Claude Code transcript line as typed columns (formats-claude-code.md §4–§11). No Django.

Only what pages, joins and totals query becomes a column; the raw line is kept beside them, so a
field nobody promoted yet is never lost. Unknown line types are records like any other, flagged.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass, field
from datetime import datetime

from introspect.importer import parser
from introspect.rules import entry_kinds
from introspect.rules.event_fields import MAX_STORED_INT
from introspect.rules.event_fields import strict_text as lax_text  # text only: a number is not text
from introspect.rules.timestamps import OUT_OF_RANGE, in_range, parse_timestamp

KNOWN_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "summary",
        "file-history-snapshot",
        "queue-operation",
        "progress",
        "attachment",
        "pr-link",
        "ai-title",
        "custom-title",
        "agent-name",
        "last-prompt",
        "permission-mode",
        "mode",
        "agent-setting",
        "bridge-session",
        "worktree-state",
        "atis-latch",
        "frame-link",
    }
)
# importer-reliability.md §7 step 9: counted, raw not kept, a slim node row keeps the DAG whole.
INERT_TYPES = frozenset({"file-history-snapshot", "last-prompt", "permission-mode", "mode", "atis-latch"})
INERT_PROGRESS = frozenset(
    {"bash_progress", "mcp_progress", "query_update", "search_results_received", "waiting_for_task"}
)
TAGGED_PROMPT = re.compile(
    r"^\s*<(command-name|local-command-stdout|local-command-caveat|bash-input|bash-stdout|"
    r"task-notification|system-reminder|command-message)>"
)
# The `text` column keeps a text's first TEXT_LIMIT characters: what search indexes and lists
# match. Nothing is lost: the raw line beside it is whole, and a page or an export that shows a
# text this long reads it whole from there (`whole_text`), for the entries it shows only.
TEXT_LIMIT = 20_000


# What a flag may be written as, beside true and false (pydantic's lax booleans, which the envelope
# was read with until a no-op ingest stopped importing pydantic): 0 and 1, and these words.
FLAG_WORDS = {
    **dict.fromkeys(("true", "yes", "on", "1", "t", "y"), True),
    **dict.fromkeys(("false", "no", "off", "0", "f", "n"), False),
}


def lax_flag(value: object) -> bool:
    """A boolean, or 0 / 1 (an integer or a float), or one of FLAG_WORDS in any case."""
    if isinstance(value, bool):
        return value
    if type(value) in (int, float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.lower() in FLAG_WORDS:
        return FLAG_WORDS[value.lower()]
    raise ValueError(f"expected a boolean, got {value!r}")


# The transcript line fields waysweb reads (camelCase as Claude Code writes them), by how each is read.
ENVELOPE = {
    "type": lax_text,
    "uuid": lax_text,
    "parentUuid": lax_text,
    "logicalParentUuid": lax_text,
    "sessionId": lax_text,
    "timestamp": lax_text,
    "isSidechain": lax_flag,
    "agentId": lax_text,
    "isMeta": lax_flag,
    "isCompactSummary": lax_flag,
    "promptId": lax_text,
    "requestId": lax_text,
    "version": lax_text,
    "cwd": lax_text,
    "subtype": lax_text,
}


@dataclass
class EntryFields:
    """Columns of a `TranscriptEntry`, built from one parsed line."""

    type: str = ""
    subtype: str = ""
    uuid: str | None = None
    parent_uuid: str | None = None
    logical_parent_uuid: str | None = None
    line_session_id: str | None = None
    timestamp_raw: str | None = None
    ts: datetime | None = None
    is_sidechain: bool = False
    agent_id: str | None = None
    version: str = ""
    cwd: str = ""
    is_meta: bool = False
    is_compact_summary: bool = False
    is_prompt: bool = False
    prompt_id: str | None = None
    request_id: str | None = None
    message_id: str | None = None
    model: str | None = None
    hook_event: str | None = None
    tool_use_id: str | None = None
    tool_name: str | None = None
    tool_result_id: str | None = None
    is_error: bool = False
    spawned_agent_id: str | None = None
    text: str = ""
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    ephemeral_5m_input_tokens: int | None = None
    ephemeral_1h_input_tokens: int | None = None
    speed: str | None = None
    has_usage: bool = False
    inert: bool = False
    flags: list[str] = field(default_factory=list)


# Every column at its default: a new line's fields start as a copy of these (the dataclass's own
# __init__, thirty-six keyword defaults, cost as much as reading the line's envelope).
BLANK = vars(EntryFields())


def blank_fields() -> EntryFields:
    """`EntryFields()`, built by copying its defaults."""
    out = object.__new__(EntryFields)
    out.__dict__.update(BLANK)
    out.flags = []
    return out


def count(value: object) -> int | None:
    """A token count; None for anything else, including integers no database column holds (§7.7)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_STORED_INT:
        return None
    return value


def text_of(content: object) -> str:
    """The readable text of a message content: a string, or text blocks (bare strings tolerated)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict):
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif kind == "thinking" and isinstance(block.get("thinking"), str):
                parts.append(block["thinking"])
            elif kind == "tool_use":
                parts.append(f"{block.get('name', '')} {tool_input_text(block.get('input'))}".strip())
            elif kind == "tool_result":
                parts.append(text_of(block.get("content")))
    return "\n".join(part for part in parts if part)


def tool_input_text(value: object) -> str:
    """The searchable part of a tool input: the command, path, pattern or description."""
    if not isinstance(value, dict):
        return ""
    keys = ("command", "file_path", "path", "pattern", "description", "prompt", "url", "query")
    return " ".join(str(value[key]) for key in keys if isinstance(value.get(key), str))


# The envelope's fields by the type a value must have to be taken as it is (absent or null aside).
ENVELOPE_FLAGS = tuple(name for name, read in ENVELOPE.items() if read is lax_flag)
ENVELOPE_TEXTS = tuple(name for name in ENVELOPE if name not in ENVELOPE_FLAGS)
ENVELOPE_TEXT = operator.itemgetter(*ENVELOPE_TEXTS)
ENVELOPE_FLAG = operator.itemgetter(*ENVELOPE_FLAGS)
NONE = type(None)
TEXT_TYPES = frozenset({str, NONE})
FLAG_TYPES = frozenset({bool, NONE})
ENVELOPE_NAMES = tuple(ENVELOPE)


def envelope(obj: dict) -> tuple[dict, list[str]]:
    """The envelope's values (each field, None where absent), and the flag of the fields it could
    not read (`unparsed:`). Read the quick way when every value is what it nearly always is (text, a
    boolean, absent or null): a cold import reads every line of every transcript. Any other value
    goes through `checked_envelope`, which decides and flags it (the same values either way:
    test_transcripts)."""
    values = dict(zip(ENVELOPE_NAMES, map(obj.get, ENVELOPE_NAMES), strict=True))
    if TEXT_TYPES.issuperset(map(type, ENVELOPE_TEXT(values))) and FLAG_TYPES.issuperset(
        map(type, ENVELOPE_FLAG(values))
    ):
        return values, []
    return checked_envelope(obj)


def checked_envelope(obj: dict) -> tuple[dict, list[str]]:
    """`envelope` read field by field: a field of the wrong type dropped and flagged."""
    values = dict.fromkeys(ENVELOPE)
    bad = []
    for name, read in ENVELOPE.items():
        value = obj.get(name)
        if value is None:
            continue
        try:
            values[name] = read(value)
        except ValueError:
            bad.append(name)
    return values, ["unparsed:" + ",".join(sorted(bad))] if bad else []


def fields_of(obj: dict, *, limit: int | None = TEXT_LIMIT) -> EntryFields:
    """Typed columns for one transcript object, its text cut at `limit` (None: whole); never
    raises on odd shapes."""
    out = blank_fields()
    env, out.flags = envelope(obj)
    out.type = env["type"] or ""
    if out.type not in KNOWN_TYPES:
        out.flags.append("unknown_type")
    out.uuid, out.parent_uuid, out.logical_parent_uuid = (
        env["uuid"],
        env["parentUuid"],
        env["logicalParentUuid"],
    )
    out.line_session_id, out.timestamp_raw = env["sessionId"], env["timestamp"]
    out.ts = parse_timestamp(env["timestamp"])
    if out.ts is not None and not in_range(out.ts):
        out.flags.append(OUT_OF_RANGE)  # kept and placed by it; never joined by time
    out.is_sidechain = bool(env["isSidechain"])
    out.agent_id = env["agentId"]
    out.version, out.cwd = env["version"] or "", env["cwd"] or ""
    out.is_meta, out.is_compact_summary = bool(env["isMeta"]), bool(env["isCompactSummary"])
    out.prompt_id, out.request_id = env["promptId"], env["requestId"]
    out.subtype = env["subtype"] or ""
    if out.type in ("user", "assistant"):
        message_fields(obj, out)
    elif out.type == "attachment":
        attachment = obj.get("attachment")
        if isinstance(attachment, dict):
            out.subtype = str(attachment.get("type") or "")
            out.hook_event = (
                attachment.get("hookEvent") if isinstance(attachment.get("hookEvent"), str) else None
            )
            content = attachment.get("content")
            out.text = (
                "\n".join(c for c in content if isinstance(c, str))
                if isinstance(content, list)
                else (content if isinstance(content, str) else "")
            )
            if out.subtype == entry_kinds.QUEUED_COMMAND:
                queued_fields(obj, attachment, out)
    elif out.type == "progress":
        data = obj.get("data")
        if isinstance(data, dict):
            out.subtype = str(data.get("type") or "")
            if out.subtype == "agent_progress" and isinstance(data.get("agentId"), str):
                out.spawned_agent_id = data["agentId"]
                out.tool_result_id = (
                    obj.get("parentToolUseID") if isinstance(obj.get("parentToolUseID"), str) else None
                )
            if out.subtype == "hook_progress":
                out.hook_event = data.get("hookEvent") if isinstance(data.get("hookEvent"), str) else None
        out.inert = out.subtype in INERT_PROGRESS
    elif out.type == "system":
        content = obj.get("content")
        out.text = content if isinstance(content, str) else ""
    elif out.type == "summary":
        out.text = obj.get("summary") if isinstance(obj.get("summary"), str) else ""
    elif out.type in ("ai-title", "custom-title"):
        title = obj.get("aiTitle") or obj.get("customTitle") or obj.get("title")
        out.text = title if isinstance(title, str) else ""
    elif out.type == "queue-operation":
        out.text = text_of(obj.get("content"))
        operation = obj.get("operation")
        out.subtype = operation if isinstance(operation, str) else ""
    out.inert = out.inert or out.type in INERT_TYPES
    if limit is not None:
        out.text = out.text[:limit]
    return out


def maybe_cut(text: str) -> bool:
    """True for a stored text that may be the first TEXT_LIMIT characters of a longer one."""
    return len(text) >= TEXT_LIMIT


def whole_text(line: bytes) -> str | None:
    """The whole text of a stored transcript line (`TranscriptEntry.line`), parsed as the importer
    parsed it; None when the line holds no record (a row kept without its raw line)."""
    records = parser.parse_line(line).records
    return fields_of(records[0].obj, limit=None).text if records else None


def queued_fields(obj: dict, attachment: dict, out: EntryFields) -> None:
    """A prompt typed while the agent worked, delivered into the running turn as an attachment
    (formats-claude-code.md §5): its words, and whether a person typed them (then it opens a turn)."""
    out.text = text_of(attachment.get("prompt"))
    out.is_prompt = (
        entry_kinds.queued_by_a_person(attachment)
        and not out.is_meta
        and not TAGGED_PROMPT.match(out.text)
        and bool(out.text.strip())
    )


def message_fields(obj: dict, out: EntryFields) -> None:
    message = obj.get("message")
    if isinstance(message, str):
        out.text = message
        out.is_prompt = out.type == "user" and not out.is_meta and not entry_kinds.is_interruption(message)
        return
    if not isinstance(message, dict):
        if message is not None:
            out.flags.append("unparsed:message")
        return
    content = message.get("content")
    if not isinstance(content, (str, list)):
        # Schema drift (importer-reliability.md §7.9: e.g. a message that is an object with
        # numeric keys): the raw line keeps everything, the flag says the columns are partial.
        out.flags.append("unparsed:message.content")
    out.text = text_of(content)
    if out.type == "assistant":
        out.message_id = message.get("id") if isinstance(message.get("id"), str) else None
        out.model = message.get("model") if isinstance(message.get("model"), str) else None
        usage = message.get("usage")
        if isinstance(usage, dict):
            out.has_usage = "cache_read_input_tokens" in usage
            out.input_tokens = count(usage.get("input_tokens"))
            out.output_tokens = count(usage.get("output_tokens"))
            out.cache_creation_input_tokens = count(usage.get("cache_creation_input_tokens"))
            out.cache_read_input_tokens = count(usage.get("cache_read_input_tokens"))
            split = usage.get("cache_creation")
            if isinstance(split, dict):
                # The 5-minute / 1-hour split of the cache writes, priced apart (rules/pricing.py).
                out.ephemeral_5m_input_tokens = count(split.get("ephemeral_5m_input_tokens"))
                out.ephemeral_1h_input_tokens = count(split.get("ephemeral_1h_input_tokens"))
            out.speed = usage.get("speed") if isinstance(usage.get("speed"), str) else None
    blocks = [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []
    if blocks and isinstance(blocks[0].get("type"), str):
        out.subtype = blocks[0]["type"]  # Claude Code writes one content block per assistant line
    for block in blocks:
        if block.get("type") == "tool_use" and out.tool_use_id is None:
            out.tool_use_id = block.get("id") if isinstance(block.get("id"), str) else None
            out.tool_name = block.get("name") if isinstance(block.get("name"), str) else None
        elif block.get("type") == "tool_result":
            if out.tool_result_id is None and isinstance(block.get("tool_use_id"), str):
                out.tool_result_id = block["tool_use_id"]
            out.is_error = out.is_error or block.get("is_error") is True
    result = obj.get("toolUseResult")
    if isinstance(result, dict) and isinstance(result.get("agentId"), str):
        out.spawned_agent_id = result["agentId"]
    if out.type == "user":
        # A real prompt: not an injection, not a tool-result carrier, not a compaction summary,
        # not slash-command scaffolding (formats-claude-code.md §12 turn grouping).
        out.is_prompt = (
            not out.is_meta
            and not out.is_compact_summary
            and out.tool_result_id is None
            and not TAGGED_PROMPT.match(out.text or "")
            and not entry_kinds.is_interruption(out.text)
            and bool(out.text.strip())
        )
