"""Decision records rewritten by a person's act: the status lines change, every other byte stays. No Django.

adr-tools forks that re-rendered whole files lost status lines (joshrotenberg/adrs #53): each writer
here changes the one field it is asked to change, in the place and the spelling the file already
uses (front matter, a MADR bullet, a Nygard `## Status` paragraph), and keeps line endings and comments.
The lines are found with the parser's own scanning helpers (records/parse.py).
"""

from __future__ import annotations

import json
import re

from ledger.records import scan
from ledger.records.parse import _BULLET, FRONT_MATTER_FORMATS, STATUSES, AdrDoc, _as_list, _text
from ledger.records.refs import canonical_id
from lib import frontmatter

_FM_KEY = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:(.*)$")


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
    except Exception:
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


def _set_key(
    lines: list[str], cr: str, key: str, rendered: str, *, after: tuple[str, ...] = (), insert: bool = True
) -> None:
    start, end = scan.front_matter_range(lines)
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
    start, end = scan.front_matter_range(lines)
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
    fenced = scan.front_matter_range(lines)
    if fenced and "status" in _fm_keys(lines, *fenced):
        return "frontmatter"
    if "status" in doc.header:
        return "bullet"
    body_start = fenced[1] + 1 if fenced else 0
    if scan.status_section(lines, body_start) is not None:
        return "section"
    if doc.format in FRONT_MATTER_FORMATS:
        return "frontmatter"
    return "bullet" if doc.format in ("madr2", "log4brains") else "section"


def _ensure_front_matter(lines: list[str], cr: str) -> None:
    if scan.front_matter_range(lines) is None:
        lines[0:0] = [f"---{cr}", f"---{cr}", cr]


def _bullet_zone(lines: list[str]) -> tuple[int, int]:
    fenced = scan.front_matter_range(lines)
    heads = scan.headings(lines, fenced[1] + 1 if fenced else 0)
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
    lines[first : last + 1] = [f"{text}{cr}"]


def _insert_paragraph(lines: list[str], after: int, text: str, cr: str) -> None:
    """A new block after line `after`, separated by one blank line on each side."""
    new = [cr, f"{text}{cr}"]
    following = lines[after + 1] if after + 1 < len(lines) else None
    if following is not None and following.strip():
        new.append(cr)
    lines[after + 1 : after + 1] = new


def _nygard_section(lines: list[str], cr: str):
    fenced = scan.front_matter_range(lines)
    body_start = fenced[1] + 1 if fenced else 0
    found = scan.status_section(lines, body_start)
    if found is not None:
        return found
    heads = scan.headings(lines, body_start)
    at = next((index for level, _, index in heads if level == 2), None)
    block = [f"## Status{cr}", cr]
    if at is None:
        if lines and lines[-1] == "":
            lines[len(lines) - 1 : len(lines) - 1] = [cr, *block[:1]]
        else:
            lines.extend([cr, *block[:1]])
    else:
        lines[at:at] = block
    return scan.status_section(lines, body_start)


def _set_section_status(lines: list[str], cr: str, text: str) -> None:
    heading, _, paragraphs = _nygard_section(lines, cr)
    chosen = scan.pick_status(lines, paragraphs)[0]
    if chosen is None:
        _insert_paragraph(lines, heading, text, cr)
    else:
        _replace_paragraph(lines, paragraphs[chosen], text, cr)


def _add_links_bullet(lines: list[str], cr: str, text: str) -> None:
    """`* Supersedes [..](..)` in the `## Links` section (MADR 2 / Log4brains), created if missing."""
    fenced = scan.front_matter_range(lines)
    heads = scan.headings(lines, fenced[1] + 1 if fenced else 0)
    start, end = _bullet_zone(lines)
    marks = [m.group(1) for i in range(start, end) if (m := _BULLET.match(lines[i].rstrip("\r")))]
    mark = marks[0] if marks else "*"
    for position, (level, heading, index) in enumerate(heads):
        if level == 2 and heading.lower() == "links":
            stop = scan.section_end(heads, position, 2, len(lines))
            last = max((i for i in range(index + 1, stop) if lines[i].strip()), default=None)
            if last is None:
                _insert_paragraph(lines, index, f"{mark} {text}", cr)
            else:
                lines.insert(last + 1, f"{mark} {text}{cr}")
            return
    block = [cr, f"## Links{cr}", cr, f"{mark} {text}{cr}"]
    if lines and lines[-1] == "":
        lines[len(lines) - 1 : len(lines) - 1] = block
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


def add_superseded_by(
    raw: bytes, doc: AdrDoc, successor_id: str, successor_link: str = "", *, today: str | None = None
) -> bytes:
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
            _set_key(
                lines, cr, "superseded_by", _scalar(local), after=("supersedes", "tags", "date", "status")
            )
        elif local not in _as_list(existing):
            _append_to_list(lines, cr, "superseded_by", local, after=("supersedes", "date", "status"))
        if not partial:
            _set_key(
                lines,
                cr,
                "status",
                _scalar(_status_word(doc, "frontmatter", "superseded")),
                after=("title", "kind", "id", "schema", "contract"),
            )
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
        _chosen, full, plain = scan.pick_status(lines, paragraphs)
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
