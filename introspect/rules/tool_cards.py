"""Display models for tool calls and their results, built from transcript lines.

Pure functions over entry-like objects (anything with `line` bytes and the `TranscriptEntry`
columns read below): no database access, and no exception for an odd shape. Shapes follow
formats-claude-code.md §7: one `tool_use` block per assistant line, `tool_result` blocks on user
lines, and the structured `toolUseResult` beside them, the richest source for rendering.
Everything here is text for autoescaped templates and `<pre>`, except the code blocks at the end:
their lines are HTML made by Pygments (which escapes every character of the text it is given) or
by `html.escape`, so agent text stays inert either way.
"""

from __future__ import annotations

import difflib
import fnmatch
import functools
import hashlib
import html
import json
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import orjson
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import find_lexer_class, get_all_lexers, get_lexer_by_name
from pygments.util import ClassNotFound

DiffLine = tuple[str, str]  # (marker, text); marker "-", "+", " ", or "@" for a hunk/edit header

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


def tool_call(entry: Any) -> ToolCall:
    """The display model of an assistant `tool_use` line."""
    tool_use_id = _str(getattr(entry, "tool_use_id", None))
    name = _str(getattr(entry, "tool_name", None))
    obj = _load(_line(entry))
    block = _block(obj, "tool_use", "id", tool_use_id)
    if block is None:
        return ToolCall(
            tool_use_id=tool_use_id, name=name, kind="other", summary="", input_json=_raw_text(entry, obj)
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


def tool_result(entry: Any) -> ToolResult:
    """The display model of a user `tool_result` line, with the structured `toolUseResult` extras."""
    tool_use_id = _str(getattr(entry, "tool_result_id", None))
    is_error = getattr(entry, "is_error", False) is True
    obj = _load(_line(entry))
    block = _block(obj, "tool_result", "tool_use_id", tool_use_id)
    if block is None:
        # Not a tool_result line after all (or unreadable): show what the importer extracted.
        return ToolResult(
            tool_use_id=tool_use_id,
            is_error=is_error,
            text=_str(getattr(entry, "text", None)) or _raw_text(entry, obj),
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


def code_box(entry: Any, slot: str) -> CodeBox | None:
    """The box `slot` of an entry's card, as partials/entry.html and tool_result.html draw it: a
    call's `command` (Bash), `content` (Write), `diff` (Edit, MultiEdit) or `input` (its raw JSON);
    a result's `content` (Read) or `diff` (its structuredPatch). None for any other slot."""
    if getattr(entry, "type", None) == "assistant" and getattr(entry, "tool_use_id", None):
        call = tool_call(entry)
        boxes = {
            "command": CodeBox(call.command, "bash"),
            "content": CodeBox(call.content, call.language),
            "diff": CodeBox(language=call.language, diff=call.diff),
            "input": CodeBox(call.input_json, "json"),
        }
    elif getattr(entry, "type", None) == "user" and getattr(entry, "tool_result_id", None):
        result = tool_result(entry)
        boxes = {
            "content": CodeBox(result.content, result.language, result.start_line),
            "diff": CodeBox(language=result.language, diff=result.diff),
        }
    else:
        return None
    return boxes.get(slot)


# --- parsing helpers ------------------------------------------------------------------------------


def _line(entry: Any) -> bytes:
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


def _raw_text(entry: Any, obj: dict) -> str:
    if obj:
        return _pretty(obj)
    return _line(entry).decode("utf-8", "replace")


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


# --- code blocks ----------------------------------------------------------------------------------

# A card shows this many lines; the rest wait behind "show all N lines" (a <details>, no script).
PREVIEW_LINES = 12
# Pygments colours at most this much of a text (Python, its slowest common lexer, takes ≈ 50 ms for
# 8 KiB); the lines after it are shown escaped and plain, so a 2 MB Read result costs an escape,
# not seconds of lexing.
HIGHLIGHT_MAX_BYTES = 8 * 1024
HIGHLIGHT_MAX_LINES = 250
# Nothing is drawn past this many lines or characters (the raw line keeps all of it).
MAX_CODE_LINES = 10_000
MAX_CODE_CHARS = 2_000_000
# One render of a page hands Pygments at most this many characters of code (≈ 20 ms of Python
# lexing): a conversation page holds ~80 code boxes, and colouring all of them took half its
# server time (issue 15). The boxes past it are drawn plain, say so, and are coloured when they
# come into view (static/js/app.js fetches them from views/sessions.entry_code).
HIGHLIGHT_PAGE_BUDGET = 4 * 1024
# Coloured lines are kept by the digest of (language, text), up to about this many bytes: a page
# rendered again (a reload, a poller, a second reader) and the boxes fetched later cost a lookup.
HIGHLIGHT_CACHE_BYTES = 32 << 20

_FORMATTER = HtmlFormatter(nowrap=True)


class HighlightBudget:
    """What one render of a page may still hand to Pygments, and how many boxes it left plain."""

    def __init__(self, size: int | None = None):
        self.size = HIGHLIGHT_PAGE_BUDGET if size is None else size
        self.left = self.size
        self.deferred = 0

    def spend(self, cost: int) -> bool:
        """Take `cost` characters if they fit in what is left; a box that does not fit is deferred
        (a smaller one after it may still fit: boxes are coloured greedily in page order)."""
        if cost <= self.left:
            self.left -= cost
            return True
        self.deferred += 1
        return False


@dataclass(frozen=True)
class CodeBlock:
    """A text split into preview and the rest, each line as HTML (escaped, maybe Pygments-coloured)."""

    head: tuple[str, ...]
    rest: tuple[str, ...]
    total_lines: int  # lines in the text, including any not drawn
    start: int = 1  # the number of the first line
    highlighted: int = 0  # how many leading lines Pygments coloured
    omitted: int = 0  # lines past the drawing cap
    language: str = "text"
    deferred: bool = False  # past the page's highlighting budget: drawn plain for now

    @property
    def clamped(self) -> bool:
        return bool(self.rest)


@dataclass(frozen=True)
class DiffRow:
    marker: str  # "-", "+", " ", "@"
    html: str  # the line's text as HTML
    old: int | None = None  # line numbers, when a hunk header gives them
    new: int | None = None

    @property
    def kind(self) -> str:
        return {"+": "add", "-": "del", "@": "hunk"}.get(self.marker, "ctx")


@dataclass(frozen=True)
class DiffBlock:
    head: tuple[DiffRow, ...]  # the first PREVIEW_LINES rows, hunk headers included
    rest: tuple[DiffRow, ...]
    total_lines: int  # diff lines, not counting hunk headers
    deferred: bool = False  # past the page's highlighting budget: drawn plain for now

    @property
    def clamped(self) -> bool:
        return bool(self.rest)


@functools.lru_cache(maxsize=512)
def language_for_path(path: str) -> str:
    """The Pygments lexer alias for a file name (`/repo/a.py` → `python`), `text` when none fits."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    if not name:
        return "text"
    try:
        cls = lexer_class_for_filename(name)
    except (ClassNotFound, ValueError):
        cls = None
    return cls.aliases[0] if cls is not None and cls.aliases else "text"


@functools.cache
def _filename_patterns() -> tuple[
    dict[str, list[tuple[int, str, str]]], list[tuple[int, re.Pattern, str, str]]
]:
    """Every lexer's file-name globs, numbered in Pygments' own order: the `*.ext` ones by extension,
    the others (`Makefile`, `*.[1-9]`, `.bash_*`) compiled as Pygments compiles them."""
    by_extension: dict[str, list[tuple[int, str, str]]] = {}
    others: list[tuple[int, re.Pattern, str, str]] = []
    number = 0
    for name, _aliases, globs, _mimetypes in get_all_lexers(plugins=True):
        for glob in globs:
            extension = glob[2:]
            if glob.startswith("*.") and not any(c in extension for c in "*?["):
                by_extension.setdefault(extension, []).append((number, name, glob))
            else:
                others.append((number, re.compile(fnmatch.translate(glob)), name, glob))
            number += 1
    return by_extension, others


def lexer_class_for_filename(name: str) -> type[Lexer] | None:
    """`pygments.lexers.find_lexer_class_for_filename(name)` without its walk over every glob.

    Pygments matches the name against all ~930 globs with a regex each (≈ 1.5 ms a name, and a
    session page names dozens of files); a `*.ext` glob matches exactly the names ending in
    `.ext`, so those are looked up by each dotted suffix of the name and only the ~90 others are
    matched. The matches are then ranked as Pygments ranks them (priority, +0.5 for a glob
    without `*`, then class name; ties in its order), so the answer is the same class.
    """
    by_extension, others = _filename_patterns()
    found = [
        match for at, char in enumerate(name) if char == "." for match in by_extension.get(name[at + 1 :], ())
    ]
    found += [(number, lexer, glob) for number, pattern, lexer, glob in others if pattern.match(name)]
    if not found:
        return None
    found.sort()
    classes = [(find_lexer_class(lexer), glob) for _, lexer, glob in found]

    def rating(match: tuple[type[Lexer], str]) -> tuple[float, str]:
        cls, glob = match
        return cls.priority + (0.5 if "*" not in glob else 0), cls.__name__

    classes.sort(key=rating)
    return classes[-1][0]


def split_lines(text: str) -> list[str]:
    """Lines as Pygments counts them: `\\r\\n` and a lone `\\r` end a line, nothing else does."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n") if text else []


def highlight_lines(lines: list[str], language: str) -> list[str]:
    """Each line as HTML: Pygments colours the first HIGHLIGHT_MAX_* of them, the rest are escaped."""
    head, text = _lexed(lines, language)
    return _render(lines, head, _colour([text], language, None)[0])[0]


def _lexed(lines: list[str], language: str) -> tuple[int, str]:
    """How many leading lines Pygments colours (within the cap), and the text it is given for them."""
    head = highlighted_count(lines, language)
    return head, "\n".join(lines[:head]) + "\n" if head else ""


def _colour(texts: list[str], language: str, budget: HighlightBudget | None) -> list[list[str] | None] | None:
    """Pygments' lines for each text (None for an empty text or an unknown lexer), from the cache
    where it has them; None when the texts it lacks do not fit the budget (all or none: the two
    sides of a diff are coloured together)."""
    keys = [_digest(text, language) if text else b"" for text in texts]
    found = [_cache_get(key) if text else None for key, text in zip(keys, texts, strict=True)]
    missing = [n for n, text in enumerate(texts) if text and found[n] is _MISSING]
    if missing and budget is not None and not budget.spend(sum(len(texts[n]) for n in missing)):
        return None
    for n in missing:
        found[n] = _pygments(texts[n], language)
        _cache_put(keys[n], found[n])
    return found


def _render(lines: list[str], head: int, coloured: list[str] | None) -> tuple[list[str], int]:
    """The lines as HTML: `coloured` (Pygments' lines for the `head` leading ones), the rest escaped."""
    if coloured is None or len(coloured) != head:
        # Not coloured (plain text, deferred, an unknown lexer), or a lexer that saw line ends where
        # we did not (a stray \r): plain text.
        coloured, head = [], 0
    return [*coloured, *_escaped(lines[head:])], head


def _escaped(lines: list[str]) -> list[str]:
    """`html.escape` of each line: one pass over the joined text (a 10,000-line output is 10,000
    calls otherwise), unless a line holds a \n of its own (a diff line can) and would split."""
    if not lines:
        return []
    out = html.escape("\n".join(lines), quote=False).split("\n")
    return out if len(out) == len(lines) else [html.escape(line, quote=False) for line in lines]


def highlighted_count(lines: list[str], language: str) -> int:
    """How many leading lines fit the highlighting cap (none for plain text)."""
    if language == "text":
        return 0
    head, size = 0, 0
    limit = min(len(lines), HIGHLIGHT_MAX_LINES)
    while head < limit and size + len(lines[head]) + 1 <= HIGHLIGHT_MAX_BYTES:
        size += len(lines[head]) + 1
        head += 1
    return head


def code_block(
    text: str, language: str = "text", *, start: int | None = None, budget: HighlightBudget | None = None
) -> CodeBlock:
    """`text` as numbered lines, PREVIEW_LINES of them shown first (formats: any tool's text).

    With a `budget`, a text whose colouring does not fit what is left of it is drawn plain and the
    block says `deferred`; without one it is always coloured.
    """
    lines = split_lines(text[:MAX_CODE_CHARS])
    total = len(lines)
    if len(text) > MAX_CODE_CHARS:
        # Past the character cap the lines are only counted (str.count runs at memory speed).
        total = text.count("\n") + (not text.endswith("\n"))
    drawn = lines[:MAX_CODE_LINES]
    head, lexed = _lexed(drawn, language)
    found = _colour([lexed], language, budget)
    rendered, coloured = _render(drawn, head, found[0] if found else None)
    return CodeBlock(
        head=tuple(rendered[:PREVIEW_LINES]),
        rest=tuple(rendered[PREVIEW_LINES:]),
        total_lines=total,
        start=start if start and start > 0 else 1,
        highlighted=coloured,
        omitted=total - len(drawn),
        language=language,
        deferred=found is None,
    )


_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def diff_block(
    diff: tuple[DiffLine, ...], language: str = "text", *, budget: HighlightBudget | None = None
) -> DiffBlock:
    """Diff lines as rows: each side highlighted as its own file, numbered from the hunk headers.

    A `budget` works as in `code_block`: both sides are coloured, or (`deferred`) neither.
    """
    old_side = [text for marker, text in diff if marker in (" ", "-")]
    new_side = [text for marker, text in diff if marker in (" ", "+")]
    (old_head, old_text), (new_head, new_text) = _lexed(old_side, language), _lexed(new_side, language)
    found = _colour([old_text, new_text], language, budget)
    old_html = iter(_render(old_side, old_head, found[0] if found else None)[0])
    new_html = iter(_render(new_side, new_head, found[1] if found else None)[0])
    rows: list[DiffRow] = []
    old_no: int | None = None
    new_no: int | None = None
    for marker, text in diff:
        if marker == "@":
            match = _HUNK.match(text)
            old_no, new_no = (int(match[1]), int(match[2])) if match else (None, None)
            rows.append(DiffRow(marker="@", html=html.escape(text, quote=False)))
            continue
        if marker == "-":
            rows.append(DiffRow(marker="-", html=next(old_html), old=old_no))
        elif marker == "+":
            rows.append(DiffRow(marker="+", html=next(new_html), new=new_no))
        else:
            next(old_html)
            rows.append(DiffRow(marker=" ", html=next(new_html), old=old_no, new=new_no))
        if old_no is not None and marker in (" ", "-"):
            old_no += 1
        if new_no is not None and marker in (" ", "+"):
            new_no += 1
    return DiffBlock(
        head=tuple(rows[:PREVIEW_LINES]),
        rest=tuple(rows[PREVIEW_LINES:]),
        total_lines=sum(row.marker != "@" for row in rows),  # hunk headers are no lines of the file
        deferred=found is None,
    )


def _pygments(text: str, language: str) -> list[str] | None:
    """Pygments' HTML for `text`, one string per line; None for an unknown lexer.

    The formatter closes every token's <span> at the end of its line, so the output splits into
    lines; `stripnl=False` keeps leading and trailing empty lines where the numbers expect them.
    """
    lexer = _lexer(language)
    if lexer is None:
        return None
    out = highlight(text, lexer, _FORMATTER)
    return out[:-1].split("\n") if out.endswith("\n") else out.split("\n")


@functools.lru_cache(maxsize=64)
def _lexer(language: str) -> Lexer | None:
    # One lexer per language, reused: get_lexer_by_name walks every lexer's aliases and builds a
    # new instance each call (≈ 0.2 ms, ~80 times a page). A lexer keeps no state between texts.
    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=True)
    except ClassNotFound:
        return None


# The highlighting cache: digest of (language, text) → Pygments' lines, least recently used first.
_MISSING = object()
_cache: OrderedDict[bytes, list[str] | None] = OrderedDict()
_cache_sizes: dict[bytes, int] = {}
_cache_bytes = 0
_cache_lock = threading.Lock()  # waitress serves from several threads


def _digest(text: str, language: str) -> bytes:
    # Lone surrogates (from the stdlib JSON fallback) must hash too: surrogatepass encodes them.
    return hashlib.sha256(f"{language}\0{text}".encode("utf-8", "surrogatepass")).digest()


def _cache_get(key: bytes):
    with _cache_lock:
        found = _cache.get(key, _MISSING)
        if found is not _MISSING:
            _cache.move_to_end(key)
        return found


def _cache_put(key: bytes, lines: list[str] | None) -> None:
    global _cache_bytes
    # What a line list holds, roughly: its characters and ~64 bytes of object per line.
    size = 100 + sum(len(line) + 64 for line in lines or ())
    with _cache_lock:
        if key in _cache or size > HIGHLIGHT_CACHE_BYTES:
            return
        _cache[key] = lines
        _cache_sizes[key] = size
        _cache_bytes += size
        while _cache_bytes > HIGHLIGHT_CACHE_BYTES:
            old, _ = _cache.popitem(last=False)
            _cache_bytes -= _cache_sizes.pop(old)


def clear_caches() -> None:
    """Forget every highlighted text (tests, and bench/render_pages.py timing first renders)."""
    global _cache_bytes
    with _cache_lock:
        _cache.clear()
        _cache_sizes.clear()
        _cache_bytes = 0
