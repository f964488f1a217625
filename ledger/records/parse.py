"""Decision records read in every format waysweb meets (knowledge-and-records.md §10–§13). No Django.

Formats are told apart by keys and shape, never by a label: majordomus writes `schema: adr/v1`, agent-ways
writes `contract: adr/v1`, and they are different formats. A record's identity is its id (front-matter
`id`, then the number in the H1, then the number prefix of the file name, then the slug), never its path.

`parse_adr` never raises: a document that cannot be read comes back with a quarantine reason and as much
identity as its path gives. The scanning helpers here (headings outside fences, the front matter block,
the status section) are also the writers' (records/edit.py): they find the lines the parser read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date as Date
from pathlib import PurePosixPath

from lib import frontmatter

MAX_DOCUMENT_BYTES = 1 << 20
FORMATS = ("nygard", "madr", "madr2", "log4brains", "majordomus", "agentways", "agentways-v1", "unknown")
STATUSES = (
    "draft",
    "proposed",
    "accepted",
    "rejected",
    "deprecated",
    "superseded",
    "abandoned",
    "archived",
    "unknown",
)
IN_FORCE = ("draft", "proposed", "accepted", "deprecated")
FRONT_MATTER_FORMATS = ("majordomus", "madr", "agentways", "agentways-v1")

# §11: the first word of the raw status decides; "Amended by …" keeps whatever else the record says.
_STATUS_WORDS = {
    "draft": "draft",
    "proposed": "proposed",
    "pending": "proposed",
    "accepted": "accepted",
    "approved": "accepted",
    "rejected": "rejected",
    "deprecated": "deprecated",
    "superseded": "superseded",
    "superceded": "superseded",
    "abandoned": "abandoned",
    "archived": "archived",
}
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_LINK = re.compile(r"\[([^\]\n]*)\]\(\s*<?([^)>\s]*)>?(?:\s+\"[^\"\n]*\")?\s*\)")
_BARE_ID = re.compile(r"(?<![\w/.-])ADR[-\s_]?\d{1,5}(?:\.\d{1,3})?(?:#[\w.-]+)?(?![\w])", re.I)
_REF_IN_TEXT = re.compile(f"{_LINK.pattern}|{_BARE_ID.pattern}", re.I)
_NUMBER = re.compile(r"^\s*(?:adr[\s:_-]*)?0*(\d{1,5})(\.\d{1,3})?(?![0-9A-Za-z])(#[\w.-]+)?", re.I)
_DATE_PREFIX = re.compile(r"^\s*(?:\d{4}-\d{2}-\d{2}|\d{6,})")
_FILE_NUMBER = re.compile(r"^(?:adr[-_ ]?)?(\d{1,5}(?:\.\d{1,3})?)(?=[-_ .])", re.I)
_H1_ADR = re.compile(r"^ADR[-\s_]?(\d{1,5}(?:\.\d{1,3})?)(?!\d)\s*(?:[:.)\-–—]\s*|\s+|$)(.*)$", re.I)
_H1_BARE = re.compile(r"^(\d{1,5}(?:\.\d{1,3})?)(?:[.:)]\s+|\s+[-–—:]\s+)(.*)$")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_BULLET = re.compile(
    r"^\s*([*+-])\s+(status|date|deciders|decision-makers|tags|technical story|consulted"
    r"|informed)\s*:\s*(.*?)\s*$",
    re.I,
)
_NYGARD_DATE = re.compile(r"^\s*date\s*:\s*(.+?)\s*$", re.I)
_DECL = re.compile(
    r"^\s*(?:>\s*)*(?:[-*+]\s+)?(?:\*\*|__)?"
    r"(super[sc]edes|super[sc]eded\s+by|amends|amended\s+by)"
    r"(?:\*\*|__)?\s*:?\s*(?:\*\*|__)?\s*(.*)$",
    re.I,
)
_BANNER_SUPERSEDED = re.compile(r"super[sc]eded\s+by\s*:?\s*(.*)$", re.I)
_DATE = re.compile(r"^\s*(\d{4}-\d{2}-\d{2})")
_TYPED = re.compile(r"^([A-Za-z]+):(?!//)\s*(.+)$")
_CITED = re.compile(r"^(RUL|SPEC)-(\S+)$", re.I)


@dataclass
class AdrDoc:
    id: str = ""
    number: str | None = None
    title: str = ""
    raw_status: str = ""
    status: str = "unknown"
    date: str = ""
    format: str = "unknown"
    sections: list[tuple[str, str]] = field(default_factory=list)
    supersedes: list[str] = field(default_factory=list)
    superseded_by: list[str] = field(default_factory=list)
    related: list[str] = field(default_factory=list)
    amends: list[str] = field(default_factory=list)
    amended_by: list[str] = field(default_factory=list)
    deciders: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    provenance: dict = field(default_factory=dict)
    frontmatter: dict = field(default_factory=dict)
    header: dict = field(default_factory=dict)  # MADR 2 / Log4brains bullet list under the H1
    path: str = ""
    slug: str = ""
    problems: list[str] = field(default_factory=list)
    quarantine: tuple[str, str] | None = None

    @property
    def partially_superseded(self) -> bool:
        """A section-level successor (`ADR-0167#4`) while the record itself stays in force (§13)."""
        return self.status in IN_FORCE and any("#" in ref for ref in self.superseded_by)


# --------------------------------------------------------------------------------------------- ids, refs


def canonical_id(text: object) -> str | None:
    """`ADR-0086` for `ADR-0086`, `adr-0086`, `0086`, `86`, `ADR 86`, `[86](0086-x.md)`; None if no number.

    Sub-records keep their part (`ADR-0304.1`), section references their anchor (`ADR-0167#4`). Dates
    (`2020-09-24`, `20200924-…`, Log4brains file names) are not numbers.
    """
    if text is None or isinstance(text, bool):
        return None
    if isinstance(text, int | float):
        text = str(text)
    if not isinstance(text, str):
        return None
    text = text.strip()
    link = _LINK.match(text) if text.startswith("[") else None
    if link:
        return canonical_id(link.group(1)) or canonical_id(_basename(link.group(2)))
    if _DATE_PREFIX.match(text):
        return None
    match = _NUMBER.match(text)
    if not match:
        return None
    return f"ADR-{int(match.group(1)):04d}{match.group(2) or ''}{match.group(3) or ''}"


def normalise_ref(value: object) -> str | None:
    """One `related`/`supersedes` entry: an ADR as its canonical id, a typed ref as `prefix:rest`, a
    Log4brains link as the target's slug; anything else as written."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return canonical_id(value)
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text:
        return None
    link = _LINK.match(text) if text.startswith("[") else None
    if link:
        found = canonical_id(link.group(1)) or canonical_id(_basename(link.group(2)))
        if found:
            return found
        target = link.group(2)
        if target and "://" not in target:
            path, _, anchor = target.partition("#")
            return _stem(_basename(path)) + (f"#{anchor}" if anchor else "")
        return link.group(1).strip() or None
    typed = _TYPED.match(text)
    if typed:
        prefix = typed.group(1).lower()
        if prefix == "adr":
            return canonical_id(typed.group(2)) or text
        return f"{prefix}:{typed.group(2).strip()}"
    cited = _CITED.match(text)
    if cited:
        return f"{cited.group(1).lower()}:{cited.group(2)}"
    return canonical_id(text) or text


def refs_in(text: str) -> list[str]:
    """ADR references in running text: Markdown links and `ADR-N` mentions, in order."""
    found = []
    for match in _REF_IN_TEXT.finditer(text):
        ref = normalise_ref(match.group(0))
        if ref:
            found.append(ref)
    if not found:
        bare = canonical_id(text.strip().rstrip(".").strip())
        if bare:
            found.append(bare)
    return _dedupe(found)


def _basename(target: str) -> str:
    return PurePosixPath(target.replace("\\", "/")).name if target else ""


def _stem(name: str) -> str:
    return name[:-3] if name.lower().endswith(".md") else name


def _dedupe(items: list[str]) -> list[str]:
    seen, out = set(), []
    for item in items:
        if item and item not in seen:
            seen.add(item)
            out.append(item)
    return out


def _number_of(canonical: str) -> str | None:
    match = re.match(r"^ADR-(\d+)(\.\d+)?", canonical)
    return f"{int(match.group(1))}{match.group(2) or ''}" if match else None


def _file_number(name: str) -> str | None:
    if _DATE_PREFIX.match(name):
        return None
    match = _FILE_NUMBER.match(name)
    return match.group(1) if match else None


# --------------------------------------------------------------------------------------------- status


def normalise_status(raw: str, *, archived_path: bool = False) -> str:
    """The §11 enum for a raw status; a file under `archive/` is archived whatever it says."""
    if archived_path:
        return "archived"
    text = _COMMENT.sub("", raw if isinstance(raw, str) else str(raw or "")).strip().lower()
    if "|" in text:  # an unfilled template: "[proposed | rejected | accepted]"
        return "unknown"
    word = re.match(r"[\W_]*([a-z]+)", text)
    return _STATUS_WORDS.get(word.group(1), "unknown") if word else "unknown"


# --------------------------------------------------------------------------------------------- scanning


def _headings(lines: list[str], start: int = 0) -> list[tuple[int, str, int]]:
    """(level, text, line index) of ATX headings outside code fences."""
    found, fence = [], None
    for index in range(start, len(lines)):
        line = lines[index].rstrip("\r")
        opener = _FENCE.match(line)
        if fence:
            if opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence):
                fence = None
            continue
        if opener:
            fence = opener.group(1)
            continue
        match = _HEADING.match(line)
        if match:
            found.append((len(match.group(1)), (match.group(2) or "").strip(), index))
    return found


def _section_end(heads: list[tuple[int, str, int]], position: int, level: int, total: int) -> int:
    for other_level, _, index in heads[position + 1 :]:
        if other_level <= level:
            return index
    return total


def _paragraphs(lines: list[str], start: int, end: int) -> list[tuple[int, int]]:
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


def _front_matter_range(lines: list[str]) -> tuple[int, int] | None:
    """(first key line, closing fence line) when the document opens with a closed `---` block."""
    if not lines or lines[0].lstrip("\ufeff").rstrip("\r") != "---":
        return None
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r") == "---":
            return 1, index
    return None


def _status_section(lines: list[str], body_start: int):
    """The Nygard `## Status` section: (heading index, end index, paragraphs) or None."""
    heads = _headings(lines, body_start)
    for position, (level, text, index) in enumerate(heads):
        if level == 2 and text.lower().rstrip(":") == "status":
            end = _section_end(heads, position, 2, len(lines))
            return index, end, _paragraphs(lines, index + 1, end)
    return None


def _declaration(line: str) -> tuple[str, list[str]] | None:
    """("supersedes"|"superseded_by"|"amends"|"amended_by", refs) for a link line, else None."""
    match = _DECL.match(line)
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


def _pick_status(
    lines: list[str], paragraphs: list[tuple[int, int]]
) -> tuple[int | None, list[int], list[int]]:
    """Which status-section paragraph holds the status: a whole-record "Superseded by" wins, else the
    first paragraph that is not a link line. Returns (chosen, superseded-by paragraphs, plain paragraphs)."""
    full, plain = [], []
    for position, (first, _) in enumerate(paragraphs):
        declared = _declaration(lines[first].rstrip("\r"))
        if declared is None:
            plain.append(position)
        elif declared[0] == "superseded_by" and any("#" not in ref for ref in declared[1]):
            full.append(position)
    chosen = full[0] if full else (plain[0] if plain else None)
    return chosen, full, plain


def _text(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, Date):
        return value.isoformat()
    if isinstance(value, str | int | float):
        return str(value).strip()
    return ""


def _as_list(value: object) -> list:
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return list(value)
    return [value]


def _date(value: object) -> str:
    match = _DATE.match(_text(value))
    return match.group(1) if match else ""


def _split_names(text: str, *, commas_only: bool) -> list[str]:
    text = _COMMENT.sub("", text).strip().strip("[]")
    parts = re.split(r"\s*,\s*" if commas_only else r"[\s,]+", text)
    return [part.strip() for part in parts if part.strip()]


# --------------------------------------------------------------------------------------------- parsing


def parse_adr(raw: bytes, *, rel_path: str) -> AdrDoc:
    """One ADR file, any format. Never raises; problems are listed, unreadable input is quarantined."""
    doc = AdrDoc(path=rel_path if isinstance(rel_path, str) else "")
    try:
        _parse(raw, doc)
    except Exception as exc:
        doc.problems.append(f"parser error: {type(exc).__name__}")
        if doc.quarantine is None:
            doc.quarantine = ("parse_error", f"{type(exc).__name__}: {exc}"[:300])
    if not doc.id:
        doc.id = doc.slug
    if not doc.id:
        doc.problems.append("no id: no front-matter id, number or file name")
    return doc


def _parse(raw: bytes, doc: AdrDoc) -> None:
    """Fill `doc` from the file, one step per part of a record; each step may add problems, in order."""
    path = PurePosixPath(doc.path.replace("\\", "/"))
    doc.slug = _stem(path.name)
    archived = "archive" in path.parts[:-1]
    file_number = _file_number(path.name)
    text = _decode(raw, doc)
    if text is None:
        _identify(doc, None, None, file_number)
        return
    # Comments vanish but keep their line breaks, so line numbers still match the file.
    lines = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text).split("\n")
    fm, fm_text, body_start = _read_front_matter(doc, lines)
    header = _read_header(doc, lines, body_start)
    doc.format = _detect(
        fm,
        fm_text,
        doc.quarantine,
        header.h1_match,
        header.bullets,
        header.status_section,
        header.heads,
        file_number or (header.h1_match.group(1) if header.h1_match else None),
    )
    _read_identity(doc, fm, fm_text, header, file_number)
    _read_title(doc, fm, header)
    _read_sections(doc, lines, header)
    _read_status(doc, fm, lines, header, archived=archived)
    _read_date(doc, fm, header)
    _read_people(doc, fm, header)
    _collect_edges(doc, fm, lines, body_start)
    _check(doc, fm, doc.format)


@dataclass(frozen=True)
class _Header:
    """The body's outline, as the steps of `_parse` read it."""

    heads: list[tuple[int, str, int]]  # (level, text, line) of every heading outside code fences
    h1: tuple[str, int] | None  # (text, line) of the first H1
    h1_match: re.Match | None  # its `ADR-12: …` / `12. …` number and title
    bullets: dict[str, str]  # the MADR 2 / Log4brains bullet list between the H1 and the first H2
    nygard_date: str  # an adr-tools `Date: …` line there
    status_section: tuple | None  # the Nygard `## Status` section (_status_section)

    @property
    def h1_text(self) -> str:
        return self.h1[0] if self.h1 else ""


def _decode(raw: bytes, doc: AdrDoc) -> str | None:
    """The file's text (undecodable bytes replaced, and quarantined); None when it is too large to read."""
    if not isinstance(raw, bytes | bytearray):
        raw = b""
    if len(raw) > MAX_DOCUMENT_BYTES:
        doc.quarantine = ("document_too_large", f"{len(raw)} bytes")
        return None
    try:
        text = bytes(raw).decode("utf-8")
    except UnicodeDecodeError as exc:
        doc.quarantine = ("invalid_utf8", str(exc))
        text = bytes(raw).decode("utf-8", "replace")
    return text.removeprefix("\ufeff")


def _read_front_matter(doc: AdrDoc, lines: list[str]) -> tuple[dict, str, int]:
    """(front matter, its text, first body line); an unclosed or unreadable block is quarantined."""
    fm: dict = {}
    fm_text = ""
    body_start = 0
    fenced = _front_matter_range(lines)
    if lines and lines[0].rstrip("\r") == "---" and fenced is None:
        doc.quarantine = doc.quarantine or ("yaml_invalid", "front matter is not closed")
    elif fenced is not None:
        body_start = fenced[1] + 1
        fm_text = "\n".join(line.rstrip("\r") for line in lines[fenced[0] : fenced[1]])
        try:
            data = frontmatter.load(fm_text)
        except Exception as exc:
            reason = "yaml_too_large" if "larger than" in str(exc) else "yaml_invalid"
            doc.quarantine = doc.quarantine or (reason, str(exc)[:300])
        else:
            if data is None:
                data = {}
            if isinstance(data, dict):
                fm = data
            else:
                doc.quarantine = doc.quarantine or ("yaml_invalid", "front matter is not a mapping")
    doc.frontmatter = fm
    return fm, fm_text, body_start


def _read_header(doc: AdrDoc, lines: list[str], body_start: int) -> _Header:
    """The headings, the H1, and what sits between it and the first H2 (bullets, a Nygard date)."""
    heads = _headings(lines, body_start)
    h1 = next(((text_, index) for level, text_, index in heads if level == 1), None)
    first_h2 = next((index for level, _, index in heads if level == 2), len(lines))
    header_zone = range(h1[1] + 1 if h1 else body_start, first_h2)
    bullets: dict[str, str] = {}
    nygard_date = ""
    for index in header_zone:
        line = lines[index].rstrip("\r")
        bullet = _BULLET.match(line)
        if bullet:
            bullets.setdefault(bullet.group(2).lower(), bullet.group(3))
        elif not nygard_date and _NYGARD_DATE.match(line):
            nygard_date = _NYGARD_DATE.match(line).group(1)
        elif line.lower().startswith("technical story:"):
            bullets.setdefault("technical story", line.split(":", 1)[1].strip())
    doc.header = bullets
    h1_text = h1[0] if h1 else ""
    return _Header(
        heads=heads,
        h1=h1,
        h1_match=_H1_ADR.match(h1_text) or _H1_BARE.match(h1_text),
        bullets=bullets,
        nygard_date=nygard_date,
        status_section=_status_section(lines, body_start),
    )


def _read_identity(doc: AdrDoc, fm: dict, fm_text: str, header: _Header, file_number: str | None) -> None:
    """Identity (§12): the front-matter id, then the H1 number, then the file name's."""
    h1_number = header.h1_match.group(1) if header.h1_match and doc.format != "majordomus" else None
    fm_id = fm.get("id")
    if isinstance(fm_id, int) and not isinstance(fm_id, bool):  # YAML 1.1 ints read 0017 as octal
        written = re.search(r"(?m)^id[ \t]*:[ \t]*['\"]?([^'\"\s#]+)", fm_text)
        fm_id = written.group(1) if written else fm_id
    _identify(doc, fm_id, h1_number, file_number)


def _read_title(doc: AdrDoc, fm: dict, header: _Header) -> None:
    h1_title = (header.h1_match.group(2) if header.h1_match else header.h1_text).strip()
    fm_title = _text(fm.get("title"))
    if doc.format == "majordomus":
        doc.title = fm_title
    else:
        doc.title = fm_title if doc.format == "agentways-v1" and fm_title else (h1_title or fm_title)
    if not doc.title and doc.quarantine is None:
        doc.problems.append("no title")


def _read_sections(doc: AdrDoc, lines: list[str], header: _Header) -> None:
    """majordomus bodies are `# Context`, `# Decision`…; everyone else titles with H1, sections H2."""
    fmt, heads, h1 = doc.format, header.heads, header.h1
    level = 1 if fmt == "majordomus" else 2
    if not any(lvl == level for lvl, _, _ in heads):
        level = 2 if level == 1 else 1
    for position, (lvl, heading, index) in enumerate(heads):
        if lvl != level or (level == 1 and fmt != "majordomus" and h1 and index == h1[1]):
            continue
        end = _section_end(heads, position, level, len(lines))
        text_ = "\n".join(line.rstrip("\r") for line in lines[index + 1 : end])
        doc.sections.append((heading, text_.strip("\n")))


def _read_status(doc: AdrDoc, fm: dict, lines: list[str], header: _Header, *, archived: bool) -> None:
    """The raw status from where the format keeps it, and its §11 enum."""
    bullets, status_section = header.bullets, header.status_section
    if "status" in fm and doc.format in FRONT_MATTER_FORMATS:
        doc.raw_status = _text(fm.get("status"))
        if fm.get("status") is not None and not doc.raw_status:
            doc.problems.append("status is not text")
    elif "status" in bullets:
        doc.raw_status = _COMMENT.sub("", bullets["status"]).strip()
    elif status_section is not None:
        chosen = _pick_status(lines, status_section[2])[0]
        if chosen is not None:
            first, last = status_section[2][chosen]
            doc.raw_status = " ".join(line.strip() for line in lines[first : last + 1])
    elif "status" in fm:
        doc.raw_status = _text(fm.get("status"))
    doc.status = normalise_status(doc.raw_status, archived_path=archived)
    if not doc.raw_status:
        doc.problems.append("no status")
    elif normalise_status(doc.raw_status) == "unknown":
        doc.problems.append(f"unknown status {doc.raw_status!r}")


def _read_date(doc: AdrDoc, fm: dict, header: _Header) -> None:
    raw_date = fm.get("date") if "date" in fm else header.bullets.get("date", header.nygard_date)
    doc.date = _date(raw_date)
    if _text(raw_date) and not doc.date:
        doc.problems.append(f"date {_text(raw_date)!r} is not YYYY-MM-DD")


def _read_people(doc: AdrDoc, fm: dict, header: _Header) -> None:
    """Deciders, tags and provenance."""
    bullets = header.bullets
    for key in ("deciders", "decision-makers"):
        for name in _as_list(fm.get(key)):
            doc.deciders.extend(_split_names(_text(name), commas_only=True))
    for key in ("deciders", "decision-makers"):
        if key in bullets:
            doc.deciders.extend(_split_names(bullets[key], commas_only=True))
    doc.deciders = _dedupe(doc.deciders)
    doc.tags = _dedupe(
        [_text(tag) for tag in _as_list(fm.get("tags")) if _text(tag)]
        + (_split_names(bullets["tags"], commas_only=False) if "tags" in bullets else [])
    )
    if doc.format == "majordomus" and isinstance(fm.get("provenance"), dict):
        doc.provenance = dict(fm["provenance"])
    elif doc.format == "agentways-v1":
        keys = ("basis", "agent", "imported", "enacted", "decided_by")
        doc.provenance = {key: fm[key] for key in keys if key in fm}


def _detect(fm, fm_text, quarantine, h1_match, bullets, status_section, heads, number) -> str:
    """By keys and shape, never by a label (§10.6 name clash)."""
    if "schema" in fm or (quarantine and re.search(r"(?m)^schema[ \t]*:", fm_text or "")):
        return "majordomus"
    if "contract" in fm or (quarantine and re.search(r"(?m)^contract[ \t]*:", fm_text or "")):
        return "agentways-v1"
    h1_is_adr = bool(h1_match) and bool(_H1_ADR.match(h1_match.string))
    if fm or fm_text:
        if h1_is_adr or any(key in fm for key in ("supersedes", "superseded_by", "related", "amends")):
            return "agentways"
        return "madr"
    if "status" in bullets:
        return "log4brains" if number is None or "tags" in bullets else "madr2"
    if status_section is not None:
        return "nygard"
    if h1_is_adr:
        return "agentways"
    madr_sections = {"context and problem statement", "decision outcome", "considered options"}
    if any(text.lower() in madr_sections for level, text, _ in heads if level == 2):
        return "madr"
    return "unknown"


def _identify(doc: AdrDoc, fm_id: object, h1_number: str | None, file_number: str | None) -> None:
    from_fm = canonical_id(fm_id) if _text(fm_id) else None
    from_h1 = canonical_id(h1_number) if h1_number else None
    from_file = canonical_id(file_number) if file_number else None
    if _text(fm_id):
        doc.id = from_fm or _text(fm_id)
        if not from_fm:
            doc.problems.append(f"front-matter id {_text(fm_id)!r} has no number")
    elif fm_id is not None:
        doc.problems.append("front-matter id is not text")
    if not doc.id:
        doc.id = from_h1 or from_file or ""
    if from_fm and from_h1 and from_fm != from_h1:
        doc.problems.append(f"H1 number {from_h1} differs from id {doc.id}")
    if from_file and doc.id and from_file != doc.id and (from_fm or from_h1):
        doc.problems.append(f"file name number {from_file} differs from id {doc.id}")
    doc.number = _number_of(doc.id)


def _collect_edges(doc: AdrDoc, fm: dict, lines: list[str], body_start: int) -> None:
    """Every declaration counts (§13): front matter, status strings, link lines, archive banners."""
    edges: dict[str, list[str]] = {"supersedes": [], "superseded_by": [], "amends": [], "amended_by": []}
    for key in ("supersedes", "superseded_by", "amends"):
        for item in _as_list(fm.get(key)):
            ref = normalise_ref(item)
            if ref:
                edges[key].append(ref)
            elif item is not None:
                doc.problems.append(f"{key} entry {item!r:.60} is not a reference")
    related = []
    for item in _as_list(fm.get("related")):
        ref = normalise_ref(item)
        if ref:
            related.append(ref)
        elif item is not None:
            doc.problems.append(f"related entry {item!r:.60} is not a reference")
    status_decl = _BANNER_SUPERSEDED.match(_COMMENT.sub("", doc.raw_status).strip())
    if status_decl:
        edges["superseded_by"].extend(refs_in(status_decl.group(1)))
    fence = None
    for index in range(body_start, len(lines)):
        line = lines[index].rstrip("\r")
        opener = _FENCE.match(line)
        if fence:
            if opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence):
                fence = None
            continue
        if opener:
            fence = opener.group(1)
            continue
        declared = _declaration(line)
        if declared:
            edges[declared[0]].extend(declared[1])
        elif line.lstrip().startswith(">"):
            banner = _BANNER_SUPERSEDED.search(line)
            if banner:
                edges["superseded_by"].extend(refs_in(banner.group(1)))
    own = {doc.id}
    for key, refs in edges.items():
        setattr(doc, key, [ref for ref in _dedupe(refs) if ref.split("#")[0] not in own or "#" in ref])
    doc.related = _dedupe(related)


def _check(doc: AdrDoc, fm: dict, fmt: str) -> None:
    if doc.status == "superseded" and not doc.superseded_by:
        doc.problems.append("superseded by ?")
    if fmt == "majordomus":
        if fm.get("schema") != "adr/v1":
            doc.problems.append(f"schema is {fm.get('schema')!r}, not adr/v1")
        if normalise_status(doc.raw_status) == "superseded" and not fm.get("superseded_by"):
            doc.problems.append("status superseded without superseded_by")
        if fm.get("superseded_by") and normalise_status(doc.raw_status) != "superseded":
            doc.problems.append("superseded_by on a record that is not superseded")
