"""Display models for tool calls and their results, built from transcript lines.

Pure functions over entry-like objects (anything with `line` bytes and the `TranscriptEntry`
columns read below): no database access, and no exception for an odd shape. Shapes follow
formats-claude-code.md §7: one `tool_use` block per assistant line, `tool_result` blocks on user
lines, and the structured `toolUseResult` beside them, the richest source for rendering.
Everything here is text for autoescaped templates and `<pre>`; the code boxes are drawn as HTML
lines by rules/highlight.py.

Why one long module: its one job is reading the tool-call and tool-result line shapes into cards; the
private readers below (`_block`, `_content_text`, the diff builders) serve only these builders and
change with the shapes they read. Syntax colouring and its cache already live apart (highlight.py).
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Any

import orjson

from introspect.rules.highlight import DiffLine, language_for_path

# A Write of a generated file or a huge replace_all must not turn into a 100k-row table.
MAX_DIFF_LINES = 2000

KINDS = {
    "Bash": "bash",
    "Edit": "edit",
    "Write": "write",
    "MultiEdit": "multiedit",
    "Read": "read",
    "Grep": "grep",
    "Glob": "glob",
    "Task": "agent",
    "Agent": "agent",
    "TodoWrite": "todo",
    "WebFetch": "webfetch",
    "AskUserQuestion": "ask",
}
# Keys whose value makes a useful one-line summary for tools without a dedicated rule.
SUMMARY_KEYS = (
    "command",
    "file_path",
    "notebook_path",
    "path",
    "pattern",
    "url",
    "query",
    "description",
    "prompt",
    "skill",
)
SUMMARY_LIMIT = 200


@dataclass(frozen=True)
class Option:
    label: str
    description: str = ""
    chosen: bool = False


@dataclass(frozen=True)
class Question:
    """One AskUserQuestion question: its options, and the answer once the result is known."""

    question: str
    header: str = ""
    multi_select: bool = False
    options: tuple[Option, ...] = ()
    answer: str = ""  # what the person chose or typed ("Other"), as the result reports it


@dataclass(frozen=True)
class ToolCall:
    tool_use_id: str
    name: str
    kind: str
    summary: str
    input_json: str
    diff: tuple[DiffLine, ...] = ()
    todos: tuple[tuple[str, str], ...] = ()  # TodoWrite: (status, content)
    file_path: str = ""  # Read, Write, Edit, MultiEdit: picks the highlighting
    language: str = "text"  # a Pygments lexer alias for the code this call carries
    command: str = ""  # Bash: the whole command, shown as shell code
    description: str = ""  # Bash, Task/Agent: the model's own one-line label
    prompt: str = ""  # Task/Agent: the subagent's instructions (Markdown)
    content: str = ""  # Write: the whole new file
    questions: tuple[Question, ...] = ()  # AskUserQuestion


@dataclass(frozen=True)
class ToolResult:
    tool_use_id: str
    is_error: bool
    text: str
    kind: str = "other"  # guessed from the `toolUseResult` shape: bash, edit, write, read, grep, glob, agent
    stdout: str | None = None
    stderr: str | None = None
    interrupted: bool = False
    diff: tuple[DiffLine, ...] = ()  # from structuredPatch; prefer it over ToolCall.diff when present
    file_path: str = ""
    num_lines: int | None = None
    start_line: int | None = None
    total_lines: int | None = None
    filenames: tuple[str, ...] = ()
    num_files: int | None = None
    agent_id: str = ""
    total_tokens: int | None = None
    total_duration_ms: int | None = None
    total_tool_use_count: int | None = None
    language: str = "text"  # Read: the file's lexer
    content: str = ""  # Read: the file text without the `N→` prefixes
    answers: tuple[tuple[str, str], ...] = ()  # AskUserQuestion: (question, answer)


def tool_call(entry: Any, *, line: bytes | None = None) -> ToolCall:
    """The display model of an assistant `tool_use` line (`line`: the line as shown, secrets masked,
    when it is not the entry's own)."""
    tool_use_id = _str(getattr(entry, "tool_use_id", None))
    name = _str(getattr(entry, "tool_name", None))
    raw = _line(entry, line)
    obj = _load(raw)
    block = _block(obj, "tool_use", "id", tool_use_id)
    if block is None:
        return ToolCall(
            tool_use_id=tool_use_id, name=name, kind="other", summary="", input_json=_raw_text(raw, obj)
        )
    tool_use_id = _str(block.get("id")) or tool_use_id
    name = _str(block.get("name")) or name
    data = block.get("input")
    input_json = _pretty(data)
    if not isinstance(data, dict):
        return ToolCall(tool_use_id=tool_use_id, name=name, kind="other", summary="", input_json=input_json)
    kind = "mcp" if name.startswith("mcp__") else KINDS.get(name, "other")
    diff: tuple[DiffLine, ...] = ()
    todos: tuple[tuple[str, str], ...] = ()
    extras: dict[str, Any] = {}
    if kind == "bash":
        summary = _one_line(data.get("command")) or _one_line(data.get("description"))
        extras.update(
            command=_str(data.get("command")), description=_str(data.get("description")), language="bash"
        )
    elif kind in ("edit", "write", "multiedit", "read"):
        summary = _one_line(data.get("file_path"))
        path = _str(data.get("file_path"))
        extras.update(file_path=path, language=language_for_path(path))
        if kind == "edit":
            diff = _snippet_diff(data.get("old_string"), data.get("new_string"))
            if data.get("replace_all") is True:
                summary += " (replace all)"
        elif kind == "multiedit":
            diff = _multi_diff(data.get("edits"))
        elif kind == "write":
            diff = _cap([("+", text) for text in _lines(data.get("content"))])
            extras["content"] = _str(data.get("content"))
    elif kind in ("grep", "glob"):
        summary = _one_line(data.get("pattern"))
        if _str(data.get("path")):
            summary += f" in {_one_line(data.get('path'))}"
    elif kind == "agent":
        summary = _one_line(data.get("description")) or _one_line(data.get("prompt"))
        if _str(data.get("subagent_type")):
            summary = f"[{_one_line(data.get('subagent_type'))}] {summary}"
        extras.update(description=_str(data.get("description")), prompt=_str(data.get("prompt")))
    elif kind == "todo":
        items = data.get("todos") if isinstance(data.get("todos"), list) else []
        todos = tuple((_str(t.get("status")), _str(t.get("content"))) for t in items if isinstance(t, dict))
        summary = f"{len(todos)} todo{'s' if len(todos) != 1 else ''}"
    elif kind == "webfetch":
        summary = _one_line(data.get("url"))
    elif kind == "ask":
        extras["questions"] = _questions(data.get("questions"))
        count = len(extras["questions"])
        summary = _one_line(extras["questions"][0].question) if count == 1 else f"{count} questions"
    else:
        summary = next((_one_line(data[k]) for k in SUMMARY_KEYS if _str(data.get(k))), "")
    return ToolCall(
        tool_use_id=tool_use_id,
        name=name,
        kind=kind,
        summary=summary,
        input_json=input_json,
        diff=diff,
        todos=todos,
        **extras,
    )


# Claude Code's words when the person refuses a tool call or stops it running (formats-claude-code.md §7).
REJECTIONS = ("The user doesn't want to proceed with this tool use", "User rejected tool use")


def call_status(result: ToolResult | None) -> str:
    """How a call ended, for its one-line head: "none" (no result recorded yet), "rejected" (the
    person refused or stopped it), "error", or "ok"."""
    if result is None:
        return "none"
    if result.text.lstrip().startswith(REJECTIONS):
        return "rejected"
    return "error" if result.is_error else "ok"


def tool_result(entry: Any, *, line: bytes | None = None, shown_text: str | None = None) -> ToolResult:
    """The display model of a user `tool_result` line, with the structured `toolUseResult` extras
    (`line` and `shown_text`: as shown, secrets masked, when they are not the entry's own)."""
    tool_use_id = _str(getattr(entry, "tool_result_id", None))
    is_error = getattr(entry, "is_error", False) is True
    raw = _line(entry, line)
    obj = _load(raw)
    block = _block(obj, "tool_result", "tool_use_id", tool_use_id)
    if block is None:
        # Not a tool_result line after all (or unreadable): show what the importer extracted.
        return ToolResult(
            tool_use_id=tool_use_id,
            is_error=is_error,
            text=_str(getattr(entry, "text", None) if shown_text is None else shown_text)
            or _raw_text(raw, obj),
        )
    tool_use_id = _str(block.get("tool_use_id")) or tool_use_id
    is_error = is_error or block.get("is_error") is True
    text = _content_text(block.get("content"))
    extra = obj.get("toolUseResult")
    if isinstance(extra, str):
        # Rejections and errors are plain strings ("User rejected tool use", "Error: Exit code 1 …").
        return ToolResult(tool_use_id=tool_use_id, is_error=is_error, text=text or extra)
    if not isinstance(extra, dict):
        # Before 2.1.1 there is no toolUseResult; an AskUserQuestion answer is still in the text.
        answers = _answers(None, text)
        if answers:
            return ToolResult(
                tool_use_id=tool_use_id, is_error=is_error, text=text, kind="ask", answers=answers
            )
        return ToolResult(tool_use_id=tool_use_id, is_error=is_error, text=text)
    fields: dict[str, Any] = {}
    if "stdout" in extra or "stderr" in extra:
        fields.update(
            kind="bash",
            stdout=_str(extra.get("stdout")),
            stderr=_str(extra.get("stderr")),
            interrupted=extra.get("interrupted") is True,
        )
    elif isinstance(extra.get("file"), dict):
        file = extra["file"]
        fields.update(
            kind="read",
            file_path=_str(file.get("filePath")),
            language=language_for_path(_str(file.get("filePath"))),
            content=_str(file.get("content")),
            num_lines=_int(file.get("numLines")),
            start_line=_int(file.get("startLine")),
            total_lines=_int(file.get("totalLines")),
        )
    elif "structuredPatch" in extra or "oldString" in extra:
        fields.update(
            kind="write" if extra.get("type") == "create" else "edit",
            file_path=_str(extra.get("filePath")),
            language=language_for_path(_str(extra.get("filePath"))),
            diff=_patch_diff(extra.get("structuredPatch")),
        )
    elif "filenames" in extra:
        names = extra["filenames"] if isinstance(extra["filenames"], list) else []
        # Grep reports its `mode`; Glob does not.
        fields.update(
            kind="grep" if "mode" in extra else "glob",
            filenames=tuple(n for n in names if isinstance(n, str)),
            num_files=_int(extra.get("numFiles")),
        )
    elif isinstance(extra.get("answers"), dict) or isinstance(extra.get("questions"), list):
        fields.update(kind="ask", answers=_answers(extra.get("answers"), text))
    elif _str(extra.get("agentId")):
        fields.update(
            kind="agent",
            agent_id=_str(extra.get("agentId")),
            total_tokens=_int(extra.get("totalTokens")),
            total_duration_ms=_int(extra.get("totalDurationMs")),
            total_tool_use_count=_int(extra.get("totalToolUseCount")),
        )
    return ToolResult(tool_use_id=tool_use_id, is_error=is_error, text=text, **fields)


def answered(call: ToolCall, result: ToolResult | None) -> tuple[Question, ...]:
    """The call's questions with the result's answers filled in and the chosen options marked.

    A multi-select answer is the chosen labels joined by ", " (Claude Code's own wording); an
    answer that is no option's label was typed by the person ("Other").
    """
    if not isinstance(call, ToolCall):
        return ()
    if not isinstance(result, ToolResult) or not result.answers:
        return call.questions
    answers = dict(result.answers)
    out = []
    for question in call.questions:
        answer = answers.get(question.question, "")
        picked = {part.strip() for part in answer.split(",")} if question.multi_select else {answer.strip()}
        options = tuple(
            Option(label=o.label, description=o.description, chosen=bool(answer) and o.label in picked)
            for o in question.options
        )
        if question.multi_select and answer in {o.label for o in question.options}:
            # A label that itself holds ", " is one choice, not several.
            options = tuple(
                Option(label=o.label, description=o.description, chosen=o.label == answer) for o in options
            )
        out.append(
            Question(
                question=question.question,
                header=question.header,
                multi_select=question.multi_select,
                options=options,
                answer=answer,
            )
        )
    return tuple(out)


def _questions(value: Any) -> tuple[Question, ...]:
    if not isinstance(value, list):
        return ()
    out = []
    for item in value:
        if not isinstance(item, dict):
            continue
        options = item.get("options") if isinstance(item.get("options"), list) else []
        out.append(
            Question(
                question=_str(item.get("question")),
                header=_str(item.get("header")),
                multi_select=item.get("multiSelect") is True,
                options=tuple(
                    Option(label=_str(o.get("label")), description=_str(o.get("description")))
                    for o in options
                    if isinstance(o, dict)
                ),
            )
        )
    return tuple(out)


# `User has answered your questions: "Which one?"="B", "And?"="C". You can now continue …`
_ANSWER = re.compile(r'"((?:[^"\\]|\\.)*)"="((?:[^"\\]|\\.)*)"')
_ANSWERED = "User has answered your question"


def _answers(value: Any, text: str) -> tuple[tuple[str, str], ...]:
    """(question, answer) pairs from `toolUseResult.answers`, else from the result text."""
    if isinstance(value, dict) and value:
        pairs = []
        for question, answer in value.items():
            if isinstance(answer, list):
                answer = ", ".join(a for a in answer if isinstance(a, str))
            if isinstance(question, str) and isinstance(answer, str):
                pairs.append((question, answer))
        return tuple(pairs)
    if _ANSWERED not in text:
        return ()
    return tuple((q, a) for q, a in _ANSWER.findall(text))


@dataclass(frozen=True)
class CodeBox:
    """One code box of an entry's card: a text, or (`diff` not None) a diff, and its lexer."""

    text: str = ""
    language: str = "text"
    start: int | None = None
    diff: tuple[DiffLine, ...] | None = None


def code_box(entry: Any, slot: str, *, line: bytes | None = None) -> CodeBox | None:
    """The box `slot` of an entry's card, as partials/entry.html and tool_result.html draw it: a
    call's `command` (Bash), `content` (Write), `diff` (Edit, MultiEdit) or `input` (its raw JSON);
    a result's `content` (Read) or `diff` (its structuredPatch). None for any other slot."""
    if getattr(entry, "type", None) == "assistant" and getattr(entry, "tool_use_id", None):
        call = tool_call(entry, line=line)
        boxes = {
            "command": CodeBox(call.command, "bash"),
            "content": CodeBox(call.content, call.language),
            "diff": CodeBox(language=call.language, diff=call.diff),
            "input": CodeBox(call.input_json, "json"),
        }
    elif getattr(entry, "type", None) == "user" and getattr(entry, "tool_result_id", None):
        result = tool_result(entry, line=line)
        boxes = {
            "content": CodeBox(result.content, result.language, result.start_line),
            "diff": CodeBox(language=result.language, diff=result.diff),
        }
    else:
        return None
    return boxes.get(slot)


# --- parsing helpers ------------------------------------------------------------------------------


def _line(entry: Any, line: bytes | None = None) -> bytes:
    if line is not None:
        return line
    try:
        data = getattr(entry, "line", b"")
    except (TypeError, ValueError):  # a corrupt compressed row (lib/linepack.CorruptLine)
        return b""
    return bytes(data) if isinstance(data, (bytes, bytearray, memoryview)) else b""


def _load(data: bytes) -> dict:
    if not data:
        return {}
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        # orjson refuses lone surrogate escapes, NaN and >64-bit integers; the stdlib takes them.
        try:
            obj = json.loads(data.decode("utf-8", "replace"))
        except ValueError:
            return {}
    return obj if isinstance(obj, dict) else {}


def _block(obj: dict, block_type: str, id_key: str, wanted: str) -> dict | None:
    """The content block of `block_type` whose `id_key` equals `wanted`, else the first of that type."""
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return None
    blocks = [b for b in content if isinstance(b, dict) and b.get("type") == block_type]
    return next((b for b in blocks if wanted and b.get(id_key) == wanted), blocks[0] if blocks else None)


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for item in content:
        if isinstance(item, str):
            parts.append(item)
        elif isinstance(item, dict) and item.get("type") == "text":
            parts.append(_str(item.get("text")))
        elif isinstance(item, dict) and item.get("type") == "image":
            parts.append("[image]")
    return "\n".join(parts)


def _raw_text(line: bytes, obj: dict) -> str:
    if obj:
        return _pretty(obj)
    return line.decode("utf-8", "replace")


def _pretty(value: Any) -> str:
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except TypeError:  # an integer beyond 64 bits from the stdlib fallback
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _one_line(value: Any) -> str:
    lines = [line.strip() for line in _str(value).splitlines() if line.strip()]
    if not lines:
        return ""
    first = lines[0]
    if len(first) > SUMMARY_LIMIT:
        return first[:SUMMARY_LIMIT] + "…"
    return first + (" …" if len(lines) > 1 else "")


def _lines(value: Any) -> list[str]:
    return _str(value).splitlines()


# --- diffs ----------------------------------------------------------------------------------------


def _cap(lines: list[DiffLine]) -> tuple[DiffLine, ...]:
    if len(lines) <= MAX_DIFF_LINES:
        return tuple(lines)
    return (*lines[:MAX_DIFF_LINES], ("@", f"… {len(lines) - MAX_DIFF_LINES} more lines"))


def _unified(old: Any, new: Any) -> list[DiffLine]:
    a, b = _lines(old), _lines(new)
    # Whole-snippet context: the strings are excerpts, so hunk line numbers would mean nothing.
    out: list[DiffLine] = []
    for line in difflib.unified_diff(a, b, lineterm="", n=max(len(a), len(b))):
        if line.startswith(("---", "+++", "@@")):
            continue
        out.append((line[:1], line[1:]))
    return out


def _snippet_diff(old: Any, new: Any) -> tuple[DiffLine, ...]:
    return _cap(_unified(old, new))


def _multi_diff(edits: Any) -> tuple[DiffLine, ...]:
    if not isinstance(edits, list):
        return ()
    out: list[DiffLine] = []
    for number, edit in enumerate(edits, 1):
        if not isinstance(edit, dict):
            continue
        out.append(("@", f"edit {number}" + (" (replace all)" if edit.get("replace_all") is True else "")))
        out.extend(_unified(edit.get("old_string"), edit.get("new_string")))
    return _cap(out)


def _patch_diff(patch: Any) -> tuple[DiffLine, ...]:
    """Diff lines from a `structuredPatch`: hunks of `" ctx"`, `"-old"`, `"+new"` strings."""
    if not isinstance(patch, list):
        return ()
    out: list[DiffLine] = []
    for hunk in patch:
        if not isinstance(hunk, dict):
            continue
        numbers = [_int(hunk.get(k)) for k in ("oldStart", "oldLines", "newStart", "newLines")]
        if None not in numbers:
            out.append(("@", "@@ -{},{} +{},{} @@".format(*numbers)))
        lines = hunk.get("lines") if isinstance(hunk.get("lines"), list) else []
        for line in lines:
            if not isinstance(line, str):
                continue
            if line[:1] in ("-", "+", " "):
                out.append((line[:1], line[1:]))
            else:  # "\ No newline at end of file", or an empty context line
                out.append((" ", line))
    return _cap(out)
