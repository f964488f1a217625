"""Decision records read in every format waysweb meets (knowledge-and-records.md §10–§13). No Django.

Formats are told apart by keys and shape, never by a label: majordomus writes `schema: adr/v1`, agent-ways
writes `contract: adr/v1`, and they are different formats. A record's identity is its id (front-matter
`id`, then the number in the H1, then the number prefix of the file name, then the slug), never its path.

`parse_adr` never raises: a document that cannot be read comes back with a quarantine reason and as much
identity as its path gives. The lines it reads are found by scan.py (headings outside fences, the front
matter block, the status section), which the writers (edit.py, questions.py) share; ids and references
are read by refs.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date as Date
from pathlib import PurePosixPath

from ledger.records import scan
from ledger.records.refs import (
    canonical_id,
    dedupe,
    normalise_ref,
    number_in_file_name,
    number_of,
    refs_in,
    stem,
)
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
_H1_ADR = re.compile(r"^ADR[-\s_]?(\d{1,5}(?:\.\d{1,3})?)(?!\d)\s*(?:[:.)\-–—]\s*|\s+|$)(.*)$", re.I)
_H1_BARE = re.compile(r"^(\d{1,5}(?:\.\d{1,3})?)(?:[.:)]\s+|\s+[-–—:]\s+)(.*)$")
_BULLET = re.compile(
    r"^\s*([*+-])\s+(status|date|deciders|decision-makers|tags|technical story|consulted"
    r"|informed)\s*:\s*(.*?)\s*$",
    re.I,
)
_NYGARD_DATE = re.compile(r"^\s*date\s*:\s*(.+?)\s*$", re.I)
_BANNER_SUPERSEDED = re.compile(r"super[sc]eded\s+by\s*:?\s*(.*)$", re.I)
_DATE = re.compile(r"^\s*(\d{4}-\d{2}-\d{2})")


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


# --------------------------------------------------------------------------------------------- status


def normalise_status(raw: str, *, archived_path: bool = False) -> str:
    """The §11 enum for a raw status; a file under `archive/` is archived whatever it says."""
    if archived_path:
        return "archived"
    text = scan.COMMENT.sub("", raw if isinstance(raw, str) else str(raw or "")).strip().lower()
    if "|" in text:  # an unfilled template: "[proposed | rejected | accepted]"
        return "unknown"
    word = re.match(r"[\W_]*([a-z]+)", text)
    return _STATUS_WORDS.get(word.group(1), "unknown") if word else "unknown"


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
    text = scan.COMMENT.sub("", text).strip().strip("[]")
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
    doc.slug = stem(path.name)
    archived = "archive" in path.parts[:-1]
    file_number = number_in_file_name(path.name)
    text = _decode(raw, doc)
    if text is None:
        _identify(doc, None, None, file_number)
        return
    # Comments vanish but keep their line breaks, so line numbers still match the file.
    lines = scan.COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text).split("\n")
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
    fenced = scan.front_matter_range(lines)
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
    heads = scan.headings(lines, body_start)
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
        status_section=scan.status_section(lines, body_start),
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
        end = scan.section_end(heads, position, level, len(lines))
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
        doc.raw_status = scan.COMMENT.sub("", bullets["status"]).strip()
    elif status_section is not None:
        chosen = scan.pick_status(lines, status_section[2])[0]
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
    doc.deciders = dedupe(doc.deciders)
    doc.tags = dedupe(
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
    doc.number = number_of(doc.id)


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
    status_decl = _BANNER_SUPERSEDED.match(scan.COMMENT.sub("", doc.raw_status).strip())
    if status_decl:
        edges["superseded_by"].extend(refs_in(status_decl.group(1)))
    for _, line in scan.unfenced(lines, body_start):
        declared = scan.declaration(line)
        if declared:
            edges[declared[0]].extend(declared[1])
        elif line.lstrip().startswith(">"):
            banner = _BANNER_SUPERSEDED.search(line)
            if banner:
                edges["superseded_by"].extend(refs_in(banner.group(1)))
    own = {doc.id}
    for key, refs in edges.items():
        setattr(doc, key, [ref for ref in dedupe(refs) if ref.split("#")[0] not in own or "#" in ref])
    doc.related = dedupe(related)


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
