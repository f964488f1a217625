"""Finding the parts of a decision record's Markdown: headings outside code fences, sections, paragraphs,
the front matter block, the Nygard `## Status` section and its link lines ("Superseded by …"). The
parser (parse.py) reads what these find; the writers (edit.py, questions.py) change the same lines.
No Django."""

from __future__ import annotations

import re

from ledger.records.refs import refs_in

COMMENT = re.compile(r"<!--.*?-->", re.S)
HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
DECL = re.compile(
    r"^\s*(?:>\s*)*(?:[-*+]\s+)?(?:\*\*|__)?"
    r"(super[sc]edes|super[sc]eded\s+by|amends|amended\s+by)"
    r"(?:\*\*|__)?\s*:?\s*(?:\*\*|__)?\s*(.*)$",
    re.I,
)


def unfenced(lines: list[str], start: int = 0, end: int | None = None):
    """(index, line without its CR) of each line of lines[start:end] outside code fences: inside
    one nothing is a heading, a link line or a question, however it looks. Fence lines are skipped."""
    fence = None
    for index in range(start, len(lines) if end is None else end):
        line = lines[index].rstrip("\r")
        opener = FENCE.match(line)
        if fence:
            if opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence):
                fence = None
            continue
        if opener:
            fence = opener.group(1)
            continue
        yield index, line


def headings(lines: list[str], start: int = 0) -> list[tuple[int, str, int]]:
    """(level, text, line index) of ATX headings outside code fences."""
    found = []
    for index, line in unfenced(lines, start):
        match = HEADING.match(line)
        if match:
            found.append((len(match.group(1)), (match.group(2) or "").strip(), index))
    return found


def section_end(heads: list[tuple[int, str, int]], position: int, level: int, total: int) -> int:
    for other_level, _, index in heads[position + 1 :]:
        if other_level <= level:
            return index
    return total


def paragraphs(lines: list[str], start: int, end: int) -> list[tuple[int, int]]:
    """(first, last) line indices of blank-line separated blocks in lines[start:end]."""
    blocks, first = [], None
    for index in range(start, end):
        if lines[index].strip():
            if first is None:
                first = index
        elif first is not None:
            blocks.append((first, index - 1))
            first = None
    if first is not None:
        blocks.append((first, end - 1))
    return blocks


def front_matter_range(lines: list[str]) -> tuple[int, int] | None:
    """(first key line, closing fence line) when the document opens with a closed `---` block."""
    if not lines or lines[0].lstrip("\ufeff").rstrip("\r") != "---":
        return None
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r") == "---":
            return 1, index
    return None


def status_section(lines: list[str], body_start: int):
    """The Nygard `## Status` section: (heading index, end index, paragraphs) or None."""
    heads = headings(lines, body_start)
    for position, (level, text, index) in enumerate(heads):
        if level == 2 and text.lower().rstrip(":") == "status":
            end = section_end(heads, position, 2, len(lines))
            return index, end, paragraphs(lines, index + 1, end)
    return None


def declaration(line: str) -> tuple[str, list[str]] | None:
    """("supersedes"|"superseded_by"|"amends"|"amended_by", refs) for a link line, else None."""
    match = DECL.match(line)
    if not match:
        return None
    rest = match.group(2).strip()
    if not rest or not (rest.startswith("[") or re.match(r"(?:adr\b|adr[-\s_]?\d|\d)", rest, re.I)):
        return None
    refs = refs_in(rest)
    if not refs:
        return None
    verb = re.sub(r"\s+", " ", match.group(1).lower()).replace("superced", "supersed")
    kind = {
        "supersedes": "supersedes",
        "superseded by": "superseded_by",
        "amends": "amends",
        "amended by": "amended_by",
    }[verb]
    return kind, refs


def pick_status(
    lines: list[str], paragraphs: list[tuple[int, int]]
) -> tuple[int | None, list[int], list[int]]:
    """Which status-section paragraph holds the status: a whole-record "Superseded by" wins, else the
    first paragraph that is not a link line. Returns (chosen, superseded-by paragraphs, plain paragraphs)."""
    full, plain = [], []
    for position, (first, _) in enumerate(paragraphs):
        declared = declaration(lines[first].rstrip("\r"))
        if declared is None:
            plain.append(position)
        elif declared[0] == "superseded_by" and any("#" not in ref for ref in declared[1]):
            full.append(position)
    chosen = full[0] if full else (plain[0] if plain else None)
    return chosen, full, plain
