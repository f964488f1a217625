"""Architecture decision records in every format waysweb meets (knowledge-and-records.md §10–§13). No Django.

Formats are told apart by keys and shape, never by a label: majordomus writes `schema: adr/v1`, agent-ways
writes `contract: adr/v1`, and they are different formats. A record's identity is its id (front-matter
`id`, then the number in the H1, then the number prefix of the file name, then the slug), never its path.

`parse_adr` never raises: a document that cannot be read comes back with a quarantine reason and as much
identity as its path gives. The writers change the one field they are asked to change and keep every other
byte, because adr-tools forks that re-rendered whole files lost status lines (joshrotenberg/adrs #53).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date as Date
from pathlib import PurePosixPath

from lib import frontmatter

MAX_DOCUMENT_BYTES = 1 << 20
FORMATS = ("nygard", "madr", "madr2", "log4brains", "majordomus", "agentways", "agentways-v1", "unknown")
STATUSES = ("draft", "proposed", "accepted", "rejected", "deprecated", "superseded", "abandoned", "archived",
            "unknown")
IN_FORCE = ("draft", "proposed", "accepted", "deprecated")
FRONT_MATTER_FORMATS = ("majordomus", "madr", "agentways", "agentways-v1")

# §11: the first word of the raw status decides; "Amended by …" keeps whatever else the record says.
_STATUS_WORDS = {
    "draft": "draft", "proposed": "proposed", "pending": "proposed", "accepted": "accepted",
    "approved": "accepted", "rejected": "rejected", "deprecated": "deprecated", "superseded": "superseded",
    "superceded": "superseded", "abandoned": "abandoned", "archived": "archived",
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
_BULLET = re.compile(r"^\s*([*+-])\s+(status|date|deciders|decision-makers|tags|technical story|consulted"
                     r"|informed)\s*:\s*(.*?)\s*$", re.I)
_NYGARD_DATE = re.compile(r"^\s*date\s*:\s*(.+?)\s*$", re.I)
_DECL = re.compile(r"^\s*(?:>\s*)*(?:[-*+]\s+)?(?:\*\*|__)?"
                   r"(super[sc]edes|super[sc]eded\s+by|amends|amended\s+by)"
                   r"(?:\*\*|__)?\s*:?\s*(?:\*\*|__)?\s*(.*)$", re.I)
_BANNER_SUPERSEDED = re.compile(r"super[sc]eded\s+by\s*:?\s*(.*)$", re.I)
_FM_KEY = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:(.*)$")
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
    for other_level, _, index in heads[position + 1:]:
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
    kind = {"supersedes": "supersedes", "superseded by": "superseded_by", "amends": "amends",
            "amended by": "amended_by"}[verb]
    return kind, refs


def _pick_status(lines: list[str],
                 paragraphs: list[tuple[int, int]]) -> tuple[int | None, list[int], list[int]]:
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
    except Exception as exc:  # noqa: BLE001 - one bad file must never blank a list (Backstage #2621)
        doc.problems.append(f"parser error: {type(exc).__name__}")
        if doc.quarantine is None:
            doc.quarantine = ("parse_error", f"{type(exc).__name__}: {exc}"[:300])
    if not doc.id:
        doc.id = doc.slug
    if not doc.id:
        doc.problems.append("no id: no front-matter id, number or file name")
    return doc


def _parse(raw: bytes, doc: AdrDoc) -> None:
    path = PurePosixPath(doc.path.replace("\\", "/"))
    doc.slug = _stem(path.name)
    archived = "archive" in path.parts[:-1]
    file_number = _file_number(path.name)
    if not isinstance(raw, bytes | bytearray):
        raw = b""
    if len(raw) > MAX_DOCUMENT_BYTES:
        doc.quarantine = ("document_too_large", f"{len(raw)} bytes")
        _identify(doc, None, None, file_number)
        return
    try:
        text = bytes(raw).decode("utf-8")
    except UnicodeDecodeError as exc:
        doc.quarantine = ("invalid_utf8", str(exc))
        text = bytes(raw).decode("utf-8", "replace")
    text = text.removeprefix("\ufeff")
    # Comments vanish but keep their line breaks, so line numbers still match the file.
    lines = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text).split("\n")

    fm: dict = {}
    fm_text = ""
    body_start = 0
    fenced = _front_matter_range(lines)
    if lines and lines[0].rstrip("\r") == "---" and fenced is None:
        doc.quarantine = doc.quarantine or ("yaml_invalid", "front matter is not closed")
    elif fenced is not None:
        body_start = fenced[1] + 1
        fm_text = "\n".join(line.rstrip("\r") for line in lines[fenced[0]:fenced[1]])
        try:
            data = frontmatter.load(fm_text)
        except Exception as exc:  # noqa: BLE001 - ValueError, and RecursionError for hostile nesting
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
    status_section = _status_section(lines, body_start)

    h1_text = h1[0] if h1 else ""
    h1_match = _H1_ADR.match(h1_text) or _H1_BARE.match(h1_text)
    doc.format = fmt = _detect(fm, fm_text, doc.quarantine, h1_match, bullets, status_section, heads,
                               file_number or (h1_match.group(1) if h1_match else None))

    # Identity (§12).
    h1_number = h1_match.group(1) if h1_match and fmt != "majordomus" else None
    fm_id = fm.get("id")
    if isinstance(fm_id, int) and not isinstance(fm_id, bool):  # YAML 1.1 ints read 0017 as octal
        written = re.search(r"(?m)^id[ \t]*:[ \t]*['\"]?([^'\"\s#]+)", fm_text)
        fm_id = written.group(1) if written else fm_id
    _identify(doc, fm_id, h1_number, file_number)

    # Title.
    h1_title = (h1_match.group(2) if h1_match else h1_text).strip()
    fm_title = _text(fm.get("title"))
    if fmt == "majordomus":
        doc.title = fm_title
    else:
        doc.title = fm_title if fmt == "agentways-v1" and fm_title else (h1_title or fm_title)
    if not doc.title and doc.quarantine is None:
        doc.problems.append("no title")

    # Sections: majordomus bodies are `# Context`, `# Decision`…; everyone else titles with H1, sections H2.
    level = 1 if fmt == "majordomus" else 2
    if not any(lvl == level for lvl, _, _ in heads):
        level = 2 if level == 1 else 1
    for position, (lvl, heading, index) in enumerate(heads):
        if lvl != level or (level == 1 and fmt != "majordomus" and h1 and index == h1[1]):
            continue
        end = _section_end(heads, position, level, len(lines))
        text_ = "\n".join(line.rstrip("\r") for line in lines[index + 1:end])
        doc.sections.append((heading, text_.strip("\n")))

    # Status.
    if "status" in fm and fmt in FRONT_MATTER_FORMATS:
        doc.raw_status = _text(fm.get("status"))
        if fm.get("status") is not None and not doc.raw_status:
            doc.problems.append("status is not text")
    elif "status" in bullets:
        doc.raw_status = _COMMENT.sub("", bullets["status"]).strip()
    elif status_section is not None:
        chosen = _pick_status(lines, status_section[2])[0]
        if chosen is not None:
            first, last = status_section[2][chosen]
            doc.raw_status = " ".join(line.strip() for line in lines[first:last + 1])
    elif "status" in fm:
        doc.raw_status = _text(fm.get("status"))
    doc.status = normalise_status(doc.raw_status, archived_path=archived)
    if not doc.raw_status:
        doc.problems.append("no status")
    elif normalise_status(doc.raw_status) == "unknown":
        doc.problems.append(f"unknown status {doc.raw_status!r}")

    # Date.
    raw_date = fm.get("date") if "date" in fm else bullets.get("date", nygard_date)
    doc.date = _date(raw_date)
    if _text(raw_date) and not doc.date:
        doc.problems.append(f"date {_text(raw_date)!r} is not YYYY-MM-DD")

    # People, tags, provenance.
    for key in ("deciders", "decision-makers"):
        for name in _as_list(fm.get(key)):
            doc.deciders.extend(_split_names(_text(name), commas_only=True))
    for key in ("deciders", "decision-makers"):
        if key in bullets:
            doc.deciders.extend(_split_names(bullets[key], commas_only=True))
    doc.deciders = _dedupe(doc.deciders)
    doc.tags = _dedupe([_text(tag) for tag in _as_list(fm.get("tags")) if _text(tag)]
                       + (_split_names(bullets["tags"], commas_only=False) if "tags" in bullets else []))
    if fmt == "majordomus" and isinstance(fm.get("provenance"), dict):
        doc.provenance = dict(fm["provenance"])
    elif fmt == "agentways-v1":
        keys = ("basis", "agent", "imported", "enacted", "decided_by")
        doc.provenance = {key: fm[key] for key in keys if key in fm}

    _collect_edges(doc, fm, lines, body_start)
    _check(doc, fm, fmt)


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


# --------------------------------------------------------------------------------------------- writing


def _open(raw: bytes, doc: AdrDoc) -> tuple[list[str], str]:
    if doc.quarantine is not None:
        raise ValueError(f"refusing to rewrite a quarantined record ({doc.quarantine[0]})")
    if doc.format == "unknown":
        raise ValueError("refusing to rewrite a record of unknown format")
    text = bytes(raw).decode("utf-8")
    return text.split("\n"), ("\r" if "\r\n" in text else "")


def _close(lines: list[str]) -> bytes:
    return "\n".join(lines).encode("utf-8")


def _yaml_ok(snippet: str, expected: object) -> bool:
    try:
        return frontmatter.load(snippet) == expected
    except Exception:  # noqa: BLE001
        return False


def _scalar(value: str) -> str:
    return value if _yaml_ok(f"k: {value}", {"k": value}) else json.dumps(value, ensure_ascii=False)


def _flow_item(value: str) -> str:
    return value if _yaml_ok(f"k: [{value}]", {"k": [value]}) else json.dumps(value, ensure_ascii=False)


def _fm_keys(lines: list[str], start: int, end: int) -> dict[str, tuple[int, int]]:
    """Top-level key → (its line, end of its block) inside the front matter lines[start:end]."""
    order = []
    for index in range(start, end):
        line = lines[index].rstrip("\r")
        match = _FM_KEY.match(line)
        if match:
            order.append((match.group(1), index))
    keys: dict[str, tuple[int, int]] = {}
    for position, (key, index) in enumerate(order):
        stop = order[position + 1][1] if position + 1 < len(order) else end
        while stop - 1 > index and (not lines[stop - 1].strip() or lines[stop - 1].startswith("#")):
            stop -= 1
        keys.setdefault(key, (index, stop))
    return keys


def _split_value(line: str) -> tuple[str, str]:
    """(value, trailing comment with its spacing) of a `key: value  # comment` line."""
    value = line.split(":", 1)[1].strip()
    if value[:1] in ("'", '"'):
        return value, ""
    match = re.match(r"^(.*?)(\s+#.*)?$", line.split(":", 1)[1])
    return match.group(1).strip(), match.group(2) or ""


def _with_comment(original: str, replacement: str) -> str:
    """`replacement`, followed by the original line's trailing comment kept in its column."""
    _, comment = _split_value(original)
    if not comment:
        return replacement
    column = len(original) - len(comment.lstrip())
    return replacement + " " * max(1, column - len(replacement)) + comment.lstrip()


def _set_key(lines: list[str], cr: str, key: str, rendered: str, *, after: tuple[str, ...] = (),
             insert: bool = True) -> None:
    start, end = _front_matter_range(lines)
    keys = _fm_keys(lines, start, end)
    if key in keys:
        index, stop = keys[key]
        lines[index:stop] = [_with_comment(lines[index].rstrip("\r"), f"{key}: {rendered}") + cr]
        return
    if not insert:
        return
    position = max((keys[name][1] for name in after if name in keys), default=end)
    lines.insert(position, f"{key}: {rendered}{cr}")


def _append_to_list(lines: list[str], cr: str, key: str, item: str, *, after: tuple[str, ...]) -> None:
    """Add one entry to a front-matter list, in the style it is written (flow, block, scalar, missing)."""
    start, end = _front_matter_range(lines)
    keys = _fm_keys(lines, start, end)
    if key not in keys:
        position = max((keys[name][1] for name in after if name in keys), default=end)
        lines.insert(position, f"{key}: [{_flow_item(item)}]{cr}")
        return
    index, stop = keys[key]
    value, _ = _split_value(lines[index].rstrip("\r"))
    if stop > index + 1 and not value:  # block list
        last = next((i for i in range(stop - 1, index, -1) if lines[i].lstrip().startswith("-")), index)
        prefix = re.match(r"^(\s*-\s*)", lines[last]).group(1) if last != index else "  - "
        lines.insert(stop, f"{prefix}{_flow_item(item)}{cr}")
        return
    if value.startswith("[") and value.endswith("]"):
        inner = value[1:-1].strip()
        rendered = f"[{inner}, {_flow_item(item)}]" if inner else f"[{_flow_item(item)}]"
    elif value in ("", "~", "null", "Null", "NULL"):
        rendered = f"[{_flow_item(item)}]"
    else:
        rendered = f"[{value}, {_flow_item(item)}]"
    lines[index:stop] = [_with_comment(lines[index].rstrip("\r"), f"{key}: {rendered}") + cr]


def _status_site(lines: list[str], doc: AdrDoc) -> str:
    """Where this file keeps its status: `frontmatter`, `bullet` or `section`."""
    fenced = _front_matter_range(lines)
    if fenced and "status" in _fm_keys(lines, *fenced):
        return "frontmatter"
    if "status" in doc.header:
        return "bullet"
    body_start = fenced[1] + 1 if fenced else 0
    if _status_section(lines, body_start) is not None:
        return "section"
    if doc.format in FRONT_MATTER_FORMATS:
        return "frontmatter"
    return "bullet" if doc.format in ("madr2", "log4brains") else "section"


def _ensure_front_matter(lines: list[str], cr: str) -> None:
    if _front_matter_range(lines) is None:
        lines[0:0] = [f"---{cr}", f"---{cr}", cr]


def _bullet_zone(lines: list[str]) -> tuple[int, int]:
    fenced = _front_matter_range(lines)
    heads = _headings(lines, fenced[1] + 1 if fenced else 0)
    h1 = next((index for level, _, index in heads if level == 1), None)
    first_h2 = next((index for level, _, index in heads if level == 2), len(lines))
    return (h1 + 1 if h1 is not None else 0), first_h2


def _set_bullet(lines: list[str], cr: str, key: str, value: str, *, insert: bool = True) -> None:
    start, end = _bullet_zone(lines)
    bullets = [i for i in range(start, end) if _BULLET.match(lines[i].rstrip("\r"))]
    for index in bullets:
        line = lines[index].rstrip("\r")
        pattern = r"^(\s*[*+-]\s+" + re.escape(key) + r"\s*:\s*)(.*?)(\s*<!--.*-->)?(\s*)$"
        match = re.match(pattern, line, re.I)
        if match:
            lines[index] = f"{match.group(1)}{value}{match.group(3) or ''}{cr}"
            return
    if not insert:
        return
    mark = _BULLET.match(lines[bullets[0]]).group(1) if bullets else "*"
    if bullets:
        lines.insert(bullets[0], f"{mark} {key}: {value}{cr}")
    else:
        lines[start:start] = [cr, f"{mark} {key}: {value}{cr}"]


def _replace_paragraph(lines: list[str], paragraph: tuple[int, int], text: str, cr: str) -> None:
    first, last = paragraph
    lines[first:last + 1] = [f"{text}{cr}"]


def _insert_paragraph(lines: list[str], after: int, text: str, cr: str) -> None:
    """A new block after line `after`, separated by one blank line on each side."""
    new = [cr, f"{text}{cr}"]
    following = lines[after + 1] if after + 1 < len(lines) else None
    if following is not None and following.strip():
        new.append(cr)
    lines[after + 1:after + 1] = new


def _nygard_section(lines: list[str], cr: str):
    fenced = _front_matter_range(lines)
    body_start = fenced[1] + 1 if fenced else 0
    found = _status_section(lines, body_start)
    if found is not None:
        return found
    heads = _headings(lines, body_start)
    at = next((index for level, _, index in heads if level == 2), None)
    block = [f"## Status{cr}", cr]
    if at is None:
        if lines and lines[-1] == "":
            lines[len(lines) - 1:len(lines) - 1] = [cr] + block[:1]
        else:
            lines.extend([cr] + block[:1])
    else:
        lines[at:at] = block
    return _status_section(lines, body_start)


def _set_section_status(lines: list[str], cr: str, text: str) -> None:
    heading, _, paragraphs = _nygard_section(lines, cr)
    chosen = _pick_status(lines, paragraphs)[0]
    if chosen is None:
        _insert_paragraph(lines, heading, text, cr)
    else:
        _replace_paragraph(lines, paragraphs[chosen], text, cr)


def _add_links_bullet(lines: list[str], cr: str, text: str) -> None:
    """`* Supersedes [..](..)` in the `## Links` section (MADR 2 / Log4brains), created if missing."""
    fenced = _front_matter_range(lines)
    heads = _headings(lines, fenced[1] + 1 if fenced else 0)
    start, end = _bullet_zone(lines)
    marks = [m.group(1) for i in range(start, end) if (m := _BULLET.match(lines[i].rstrip("\r")))]
    mark = marks[0] if marks else "*"
    for position, (level, heading, index) in enumerate(heads):
        if level == 2 and heading.lower() == "links":
            stop = _section_end(heads, position, 2, len(lines))
            last = max((i for i in range(index + 1, stop) if lines[i].strip()), default=None)
            if last is None:
                _insert_paragraph(lines, index, f"{mark} {text}", cr)
            else:
                lines.insert(last + 1, f"{mark} {text}{cr}")
            return
    block = [cr, f"## Links{cr}", cr, f"{mark} {text}{cr}"]
    if lines and lines[-1] == "":
        lines[len(lines) - 1:len(lines) - 1] = block
    else:
        lines.extend(block)


def _status_word(doc: AdrDoc, site: str, status: str) -> str:
    if site == "section" or doc.format == "agentways":
        return status.capitalize()
    return status


def _local_id(canonical: str, fmt: str) -> str:
    """An id as the format writes it: majordomus `adr-0012`, agent-ways `ADR-012`, else canonical."""
    match = re.match(r"^ADR-(\d+)(\.\d+)?(#.*)?$", canonical)
    if not match:
        return canonical
    number, rest = int(match.group(1)), (match.group(2) or "") + (match.group(3) or "")
    if fmt == "majordomus":
        return f"adr-{number:04d}{rest}"
    if fmt in ("agentways", "agentways-v1"):
        return f"ADR-{number:03d}{rest}"
    return canonical


def _update_date(lines: list[str], cr: str, doc: AdrDoc, site: str, today: str | None) -> None:
    """majordomus and MADR date a record by the day it reached its status / was last updated."""
    if not today:
        return
    if site == "frontmatter" and doc.format in ("majordomus", "madr"):
        _set_key(lines, cr, "date", _scalar(today), after=("status",), insert=doc.format == "majordomus")
    elif site == "bullet" and doc.format == "madr2":
        _set_bullet(lines, cr, "Date", today, insert=False)


def set_status(raw: bytes, doc: AdrDoc, new_status: str, *, today: str) -> bytes:
    """Rewrite only the status (and, where the format dates by status, the date)."""
    if new_status not in STATUSES or new_status == "unknown":
        raise ValueError(f"not a status: {new_status!r}")
    lines, cr = _open(raw, doc)
    site = _status_site(lines, doc)
    word = _status_word(doc, site, new_status)
    if site == "frontmatter":
        _ensure_front_matter(lines, cr)
        _set_key(lines, cr, "status", _scalar(word), after=("title", "kind", "id", "schema", "contract"))
    elif site == "bullet":
        _set_bullet(lines, cr, "Status", word)
    else:
        _set_section_status(lines, cr, word)
    _update_date(lines, cr, doc, site, today)
    return _close(lines)


def _spelling(raw: bytes, upstream: str, modern: str) -> str:
    return upstream if re.search(rb"supercede", bytes(raw), re.I) else modern


def add_superseded_by(raw: bytes, doc: AdrDoc, successor_id: str, successor_link: str = "", *,
                      today: str | None = None) -> bytes:
    """Mark `doc` superseded by `successor_id`. A section-level successor (`ADR-0310#2`) adds the edge and
    leaves the status in force; only formats with a `superseded_by` field can say that."""
    lines, cr = _open(raw, doc)
    partial = "#" in successor_id
    link = successor_link or successor_id
    site = _status_site(lines, doc)
    if doc.format in ("majordomus", "agentways", "agentways-v1"):
        _ensure_front_matter(lines, cr)
        local = _local_id(successor_id, doc.format)
        existing = doc.frontmatter.get("superseded_by")
        if doc.format == "majordomus" and not isinstance(existing, list) and existing in (None, "", local):
            _set_key(lines, cr, "superseded_by", _scalar(local),
                     after=("supersedes", "tags", "date", "status"))
        elif local not in _as_list(existing):
            _append_to_list(lines, cr, "superseded_by", local, after=("supersedes", "date", "status"))
        if not partial:
            _set_key(lines, cr, "status", _scalar(_status_word(doc, "frontmatter", "superseded")),
                     after=("title", "kind", "id", "schema", "contract"))
            _update_date(lines, cr, doc, "frontmatter", today)
        return _close(lines)
    if partial:
        raise ValueError(f"{doc.format} records cannot declare a section-level successor")
    if site == "frontmatter":
        target = _local_id(successor_id, doc.format) if canonical_id(successor_id) else link
        _set_key(lines, cr, "status", _scalar(f"superseded by {target}"))
    elif site == "bullet":
        _set_bullet(lines, cr, "Status", f"superseded by {link}")
    else:
        text = f"{_spelling(raw, 'Superceded by', 'Superseded by')} {link}"
        heading, _, paragraphs = _nygard_section(lines, cr)
        chosen, full, plain = _pick_status(lines, paragraphs)
        if full:
            _insert_paragraph(lines, paragraphs[full[-1]][1], text, cr)
        elif plain:
            _replace_paragraph(lines, paragraphs[plain[0]], text, cr)
        else:
            _insert_paragraph(lines, heading, text, cr)
    _update_date(lines, cr, doc, site, today)
    return _close(lines)


def add_supersedes(raw: bytes, doc: AdrDoc, predecessor_id: str, predecessor_link: str = "") -> bytes:
    """The reciprocal declaration in the new record: `supersedes:` entry or a "Supersedes [..](..)" line."""
    lines, cr = _open(raw, doc)
    link = predecessor_link or predecessor_id
    if doc.format in ("majordomus", "agentways", "agentways-v1"):
        _ensure_front_matter(lines, cr)
        local = _local_id(predecessor_id, doc.format)
        if local not in [_text(item) for item in _as_list(doc.frontmatter.get("supersedes"))]:
            _append_to_list(lines, cr, "supersedes", local, after=("tags", "date", "status"))
        return _close(lines)
    if doc.format == "nygard":
        text = f"{_spelling(raw, 'Supercedes', 'Supersedes')} {link}"
        heading, _, paragraphs = _nygard_section(lines, cr)
        _insert_paragraph(lines, paragraphs[-1][1] if paragraphs else heading, text, cr)
        return _close(lines)
    _add_links_bullet(lines, cr, f"Supersedes {link}")
    return _close(lines)


# --------------------------------------------------------------------------------------------- new records


def next_number(existing_numbers: list[int]) -> int:
    """Above the high-water mark: gaps are never refilled, duplicates never repeated (majordomus ADR 0053)."""
    return max((n for n in existing_numbers if isinstance(n, int) and not isinstance(n, bool)), default=0) + 1


def _slugify(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60].rstrip("-") or "decision"


def _front(pairs: list[tuple[str, str]]) -> str:
    return "---\n" + "".join(f"{key}: {value}\n" for key, value in pairs) + "---\n\n"


def _provenance_section(refs: list[str]) -> str:
    return ("\n## Provenance\n\n" + "".join(f"- {ref}\n" for ref in refs)) if refs else ""


def new_record(format: str, *, number: int, title: str, context: str,  # noqa: A002 - the brief's name
               decision: str, consequences: str, provenance_refs: list[str], today: str,
               width: int = 4) -> tuple[str, bytes]:
    """(file name, content) of a new record. Always proposed (Log4brains: draft): a person accepts it."""
    title = " ".join(str(title).split()) or "Untitled decision"
    context, decision, consequences = (str(part).strip() for part in (context, decision, consequences))
    refs = [str(ref) for ref in provenance_refs]
    padded = f"{number:0{width}d}"
    slug = _slugify(title)
    if format == "majordomus":
        head = [("schema", "adr/v1"), ("id", f"adr-{padded}"), ("kind", "adr"), ("title", _scalar(title)),
                ("status", "proposed"), ("date", _scalar(today)), ("tags", "[]"), ("supersedes", "[]"),
                ("related", "[]")]
        text = _front(head)[:-5]
        text += "provenance:\n" + f"  origin: {'extracted' if refs else 'authored'}\n"
        derived = "".join(f"\n    - {_scalar(ref)}" for ref in refs) if refs else " []"
        text += f"  derived_from:{derived}\n"
        text += "---\n\n"
        text += f"# Context\n\n{context}\n\n# Decision\n\n{decision}\n\n# Consequences\n\n{consequences}\n"
        return f"{padded}-{slug}.md", text.encode()
    body = f"## Context\n\n{context}\n\n## Decision\n\n{decision}\n\n## Consequences\n\n{consequences}\n"
    if format == "nygard":
        text = f"# {number}. {title}\n\nDate: {today}\n\n## Status\n\nProposed\n\n{body}"
        return f"{padded}-{slug}.md", (text + _provenance_section(refs)).encode()
    madr_body = (f"## Context and Problem Statement\n\n{context}\n\n## Decision Outcome\n\n{decision}\n\n"
                 f"### Consequences\n\n{consequences}\n")
    if format == "madr":
        text = _front([("status", "proposed"), ("date", _scalar(today))]) + f"# {title}\n\n{madr_body}"
        return f"{padded}-{slug}.md", (text + _provenance_section(refs)).encode()
    if format == "madr2":
        text = f"# {title}\n\n* Status: proposed\n* Date: {today}\n\n{madr_body}"
        return f"{padded}-{slug}.md", (text + _provenance_section(refs)).encode()
    if format == "log4brains":
        text = f"# {title}\n\n- Status: draft\n- Date: {today}\n\n{madr_body}"
        return f"{today.replace('-', '')}-{slug}.md", (text + _provenance_section(refs)).encode()
    if format == "agentways":
        text = _front([("status", "Proposed"), ("date", _scalar(today))])
        text += f"# ADR-{padded}: {title}\n\n{body}"
        return f"ADR-{padded}-{slug}.md", (text + _provenance_section(refs)).encode()
    if format == "agentways-v1":
        basis = "".join(f"\n  - evidence: {_scalar(ref)}" for ref in refs) or " []"
        text = (_front([("contract", "adr/v1"), ("kind", "decision"), ("status", "proposed"),
                        ("date", _scalar(today))])[:-5] + f"basis:{basis}\n---\n\n")
        text += f"# ADR-{padded}: {title}\n\n{body}"
        return f"ADR-{padded}-{slug}.md", text.encode()
    raise ValueError(f"cannot write a new record in format {format!r}")
