"""ADR ids and references as every format writes them (knowledge-and-records.md §10, §12): the canonical
id of a number, a link or a mention (`ADR-0086`, `ADR-0304.1`, `ADR-0167#4`), one `related`/`supersedes`
entry normalised, and the references in running text. No Django."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

_LINK = re.compile(r"\[([^\]\n]*)\]\(\s*<?([^)>\s]*)>?(?:\s+\"[^\"\n]*\")?\s*\)")
_BARE_ID = re.compile(r"(?<![\w/.-])ADR[-\s_]?\d{1,5}(?:\.\d{1,3})?(?:#[\w.-]+)?(?![\w])", re.I)
_REF_IN_TEXT = re.compile(f"{_LINK.pattern}|{_BARE_ID.pattern}", re.I)
_NUMBER = re.compile(r"^\s*(?:adr[\s:_-]*)?0*(\d{1,5})(\.\d{1,3})?(?![0-9A-Za-z])(#[\w.-]+)?", re.I)
_DATE_PREFIX = re.compile(r"^\s*(?:\d{4}-\d{2}-\d{2}|\d{6,})")
_FILE_NUMBER = re.compile(r"^(?:adr[-_ ]?)?(\d{1,5}(?:\.\d{1,3})?)(?=[-_ .])", re.I)
_TYPED = re.compile(r"^([A-Za-z]+):(?!//)\s*(.+)$")
_CITED = re.compile(r"^(RUL|SPEC)-(\S+)$", re.I)


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
        return canonical_id(link.group(1)) or canonical_id(basename(link.group(2)))
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
        found = canonical_id(link.group(1)) or canonical_id(basename(link.group(2)))
        if found:
            return found
        target = link.group(2)
        if target and "://" not in target:
            path, _, anchor = target.partition("#")
            return stem(basename(path)) + (f"#{anchor}" if anchor else "")
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
    return dedupe(found)


def basename(target: str) -> str:
    return PurePosixPath(target.replace("\\", "/")).name if target else ""


def stem(name: str) -> str:
    return name[:-3] if name.lower().endswith(".md") else name


def dedupe(items: list[str]) -> list[str]:
    seen, out = set(), []
    for item in items:
        if item and item not in seen:
            seen.add(item)
            out.append(item)
    return out


def number_of(canonical: str) -> str | None:
    match = re.match(r"^ADR-(\d+)(\.\d+)?", canonical)
    return f"{int(match.group(1))}{match.group(2) or ''}" if match else None


def number_in_file_name(name: str) -> str | None:
    if _DATE_PREFIX.match(name):
        return None
    match = _FILE_NUMBER.match(name)
    return match.group(1) if match else None
