"""New decision records in a directory's own format, always proposed: a person accepts them. No Django."""

from __future__ import annotations

import re

from ledger.records.edit import _scalar


def next_number(existing_numbers: list[int]) -> int:
    """Above the high-water mark: gaps are never refilled, duplicates never repeated (majordomus ADR 0053)."""
    return max((n for n in existing_numbers if isinstance(n, int) and not isinstance(n, bool)), default=0) + 1


SLUG_MAX = 60


def _slugify(title: str) -> str:
    """The title's words, as many whole ones as fit in SLUG_MAX characters: a file name never ends
    in half a word. A first word longer than that is cut, as nothing shorter would name it."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    if not words:
        return "decision"
    slug = words[0][:SLUG_MAX]
    for word in words[1:]:
        if len(slug) + 1 + len(word) > SLUG_MAX:
            break
        slug = f"{slug}-{word}"
    return slug


def _front(pairs: list[tuple[str, str]]) -> str:
    return "---\n" + "".join(f"{key}: {value}\n" for key, value in pairs) + "---\n\n"


def _provenance_section(refs: list[str]) -> str:
    return ("\n## Provenance\n\n" + "".join(f"- {ref}\n" for ref in refs)) if refs else ""


def new_record(
    format: str,
    *,
    number: int,
    title: str,
    context: str,
    decision: str,
    consequences: str,
    provenance_refs: list[str],
    today: str,
    width: int = 4,
) -> tuple[str, bytes]:
    """(file name, content) of a new record. Always proposed (Log4brains: draft): a person accepts it."""
    title = " ".join(str(title).split()) or "Untitled decision"
    context, decision, consequences = (str(part).strip() for part in (context, decision, consequences))
    refs = [str(ref) for ref in provenance_refs]
    padded = f"{number:0{width}d}"
    slug = _slugify(title)
    if format == "majordomus":
        head = [
            ("schema", "adr/v1"),
            ("id", f"adr-{padded}"),
            ("kind", "adr"),
            ("title", _scalar(title)),
            ("status", "proposed"),
            ("date", _scalar(today)),
            ("tags", "[]"),
            ("supersedes", "[]"),
            ("related", "[]"),
        ]
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
    madr_body = (
        f"## Context and Problem Statement\n\n{context}\n\n## Decision Outcome\n\n{decision}\n\n"
        f"### Consequences\n\n{consequences}\n"
    )
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
        text = (
            _front(
                [
                    ("contract", "adr/v1"),
                    ("kind", "decision"),
                    ("status", "proposed"),
                    ("date", _scalar(today)),
                ]
            )[:-5]
            + f"basis:{basis}\n---\n\n"
        )
        text += f"# ADR-{padded}: {title}\n\n{body}"
        return f"ADR-{padded}-{slug}.md", text.encode()
    raise ValueError(f"cannot write a new record in format {format!r}")
