"""Code as HTML lines: Pygments colours the first part of a text, the rest is escaped.

The code boxes of the tool cards (rules/tool_cards.py says which text goes in which box) and their
diffs. Every line is HTML made by Pygments (which escapes every character of the text it is given)
or by `html.escape`, so agent text stays inert either way. What one page may hand to Pygments is
bounded (`HighlightBudget`), and what it coloured is kept (`_cache`) for the next render.
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import html
import re
from dataclasses import dataclass

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import find_lexer_class, get_all_lexers, get_lexer_by_name
from pygments.util import ClassNotFound

from lib.lru import MISSING, LruCache

DiffLine = tuple[str, str]  # (marker, text); marker "-", "+", " ", or "@" for a hunk/edit header

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


def _lexed(lines: list[str], language: str) -> tuple[int, str]:
    """How many leading lines Pygments colours (within the cap), and the text it is given for them."""
    head = highlighted_count(lines, language)
    return head, "\n".join(lines[:head]) + "\n" if head else ""


def _colour(texts: list[str], language: str, budget: HighlightBudget | None) -> list[list[str] | None] | None:
    """Pygments' lines for each text (None for an empty text or an unknown lexer), from the cache
    where it has them; None when the texts it lacks do not fit the budget (all or none: the two
    sides of a diff are coloured together)."""
    keys = [_digest(text, language) if text else b"" for text in texts]
    found = [_cache.get(key) if text else None for key, text in zip(keys, texts, strict=True)]
    missing = [n for n, text in enumerate(texts) if text and found[n] is MISSING]
    if missing and budget is not None and not budget.spend(sum(len(texts[n]) for n in missing)):
        return None
    for n in missing:
        found[n] = _pygments(texts[n], language)
        _cache.put(keys[n], found[n])
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


# The highlighting cache: digest of (language, text) → Pygments' lines. What a line list holds,
# roughly: its characters and ~64 bytes of object per line.
_cache = LruCache(HIGHLIGHT_CACHE_BYTES, lambda lines: 100 + sum(len(line) + 64 for line in lines or ()))


def _digest(text: str, language: str) -> bytes:
    # Lone surrogates (from the stdlib JSON fallback) must hash too: surrogatepass encodes them.
    return hashlib.sha256(f"{language}\0{text}".encode("utf-8", "surrogatepass")).digest()


def clear_caches() -> None:
    """Forget every highlighted text (tests, and bench/render_pages.py timing first renders)."""
    _cache.clear()
