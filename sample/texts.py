"""The sample's prose, kept as files under sample/texts/ so that it reads (and diffs) as text, not as Python.

    texts/ways/{core,user}/…      way and check files, as agent-ways reads them
    texts/ledger/NN-<session>-<phase>.md   the body of each ADR-112 session-ledger entry (sample/ledger.py)
    texts/knowledge/              majordomus knowledge: the candidates README, the policy, record sections
    texts/memory/                 Claude Code's auto-memory files
    texts/adr/<repository>/<dir>/ ADR bodies; the numbers, dates and statuses sit in sample/adrs.py

A sectioned text is Markdown whose `## Heading` lines, each followed by a blank line, start its sections; a
`## ` line with no blank line after it stays inside the section above (MADR's and agent-ways' own headings).
"""

from __future__ import annotations

import re
from pathlib import Path

TEXTS = Path(__file__).resolve().parent / "texts"
SECTION = re.compile(r"^## (.+)\n\n", re.M)


def text(rel: str) -> str:
    return (TEXTS / rel).read_text(encoding="utf-8")


def sections(rel: str) -> list[tuple[str, str]]:
    """(heading, body) of each `## ` section of a sectioned text."""
    parts = SECTION.split(text(rel))
    assert parts[0] == "", f"{rel}: text before the first section"
    return [(parts[i], parts[i + 1].strip()) for i in range(1, len(parts), 2)]


def tree(rel: str) -> dict[str, str]:
    """Every file under texts/<rel>, by its path below it."""
    root = TEXTS / rel
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }
