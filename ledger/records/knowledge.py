"""The `knowledge/v1` file format (knowledge-and-records.md §4.1): parsed, checked, rendered. No Django.

A record is a Markdown document whose front matter is a closed set of keys, written in one order;
its title and description are assertions, never a transcript. The importer indexes these files
(ledger/importer/knowledge.py) and the services write them (ledger/services/).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from ledger.records.document import MAX_DOCUMENT_BYTES, split_document
from lib import frontmatter

KNOWLEDGE_KEYS = (
    "schema",
    "id",
    "kind",
    "class",
    "title",
    "description",
    "status",
    "epistemics",
    "date",
    "tags",
    "superseded_by",
    "provenance",
    "relations",
    "about",
    "route",
)
CLASSES = ("fact", "convention", "constraint", "memory", "lesson")
STATUSES = ("candidate", "verified", "superseded")
RECORD_ID = re.compile(r"^[a-z][a-z0-9-]*$")
# §4.1 transcript guard: a record is an assertion, never a transcript.
TRANSCRIPT_LINE = re.compile(r"^\s*(transcript|messages|assistant|completion|response)[: ]", re.I)


@dataclass(frozen=True)
class Knowledge:
    data: dict = field(default_factory=dict)
    body: str = ""
    problems: tuple[str, ...] = ()
    quarantine: tuple[str, str] | None = None

    def get(self, key: str, default=""):
        value = self.data.get(key, default)
        return default if value is None else value


def parse_knowledge(raw: bytes, *, stem: str) -> Knowledge:
    """A `knowledge/v1` record; schema problems are listed (`knowledge check`), not fatal."""
    data, body, problem = split_document(raw)
    if problem is not None:
        return Knowledge(body=body, quarantine=problem)
    return checked(data, body.strip("\n"), stem=stem)


def checked(data: dict, body: str, *, stem: str) -> Knowledge:
    """The record of a file named `stem` whose front matter reads as `data` and body as `body`."""
    problems = []
    if data.get("schema") != "knowledge/v1":
        problems.append(f"schema is {data.get('schema')!r}, not knowledge/v1")
    unknown = [key for key in data if key not in KNOWLEDGE_KEYS]
    if unknown:
        problems.append(f"unknown keys: {', '.join(map(str, unknown))}")
    if data.get("id") != stem:
        problems.append(f"id {data.get('id')!r} is not the file name {stem!r}")
    elif not RECORD_ID.match(str(stem)):
        problems.append("id is not a lowercase slug")
    if data.get("class") not in CLASSES:
        problems.append(f"class {data.get('class')!r} is not one of {', '.join(CLASSES)}")
    if data.get("status") not in STATUSES:
        problems.append(f"status {data.get('status')!r} is not one of {', '.join(STATUSES)}")
    for key in ("title", "description"):
        if TRANSCRIPT_LINE.match(str(data.get(key) or "")):
            problems.append(f"{key} reads like a transcript")
    if isinstance(data.get("date"), date):
        data["date"] = data["date"].isoformat()
    return Knowledge(data=data, body=body, problems=tuple(problems))


def transcript_like(text: str) -> bool:
    """Whether any line of `text` opens like a transcript (the §4.1 guard)."""
    return any(TRANSCRIPT_LINE.match(line) for line in text.splitlines())


def render_knowledge(data: dict, body: str) -> bytes:
    """A knowledge/v1 file: front matter in the §4.1 key order, then the body."""
    return render_front(data, body)[0]


# The file reads back as what was rendered: a front matter of text, lists of text and mappings of
# those is emitted by YAML 1.1's safe dumper (which quotes any text that would resolve to another
# type there) and read back by the YAML 1.2 loader (which resolves fewer types) as the same text.
Front = tuple[dict, str]


def render_front(data: dict, body: str) -> tuple[bytes, Front | None]:
    """`render_knowledge`, and the (front matter, body) `parse_knowledge` reads back from its bytes,
    when that surely is what was rendered (every value text, a list of text or a mapping of those,
    within the parser's size caps), for `checked`: the pass that derives candidates then indexes
    them without parsing again what it has just written. None when it is not that sure."""
    ordered = {key: data[key] for key in KNOWLEDGE_KEYS if key in data and data[key] not in (None, "", [])}
    head = frontmatter.dump(ordered)
    text = body.strip()
    raw = f"---\n{head}---\n\n{text}\n".encode()
    sure = (
        len(raw) <= MAX_DOCUMENT_BYTES
        and len(head.encode()) <= frontmatter.MAX_FRONTMATTER_BYTES
        and all(
            plain(value)
            or (isinstance(value, dict) and all(isinstance(k, str) and plain(v) for k, v in value.items()))
            for value in ordered.values()
        )
    )
    return raw, (ordered, text) if sure else None


def plain(value: object) -> bool:
    """Text, or a list of text."""
    return isinstance(value, str) or (
        isinstance(value, list) and all(isinstance(item, str) for item in value)
    )
