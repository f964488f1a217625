"""Markdown documents with front matter, as the entry and the knowledge importers both read them. No Django.

A document is read capped inside its root (lib/safefs.py) and split into front matter and body; one
that does not check out comes back with a quarantine reason, never guessed at
(knowledge-and-records.md §2.4, §4.1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lib import frontmatter, safefs

MAX_DOCUMENT_BYTES = 1 << 20


@dataclass
class DocumentResult:
    files: int = 0
    added: int = 0
    changed: int = 0
    quarantined: int = 0
    gone: int = 0
    sessions: set[str] = field(default_factory=set)
    problems: list[safefs.Problem] = field(default_factory=list)

    def add(self, other: DocumentResult) -> None:
        """Another root's result counted in (a pass over several roots reports one total)."""
        for name in ("files", "added", "changed", "quarantined", "gone"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.sessions |= other.sessions
        self.problems += other.problems


def markdown(name: str) -> bool:
    """Whether a file name is a Markdown document."""
    return name.endswith(".md")


def read_document(root: Path, path: Path, result: DocumentResult) -> bytes | None:
    """The first MAX_DOCUMENT_BYTES + 1 bytes of a document inside `root`; None when it is gone or
    refused (the refusal goes to `result.problems`)."""
    try:
        return safefs.read_capped(root, path, MAX_DOCUMENT_BYTES)
    except FileNotFoundError:
        return None
    except safefs.Refused as refused:
        result.problems.append(refused.problem)
    except OSError as exc:
        result.problems.append(safefs.Problem(str(path), safefs.UNREADABLE, exc.strerror or str(exc)))
    return None


def split_document(raw: bytes) -> tuple[dict | None, str, tuple[str, str] | None]:
    """(front matter, body, quarantine) of a Markdown document."""
    if len(raw) > MAX_DOCUMENT_BYTES:
        return None, "", ("document_too_large", f"{len(raw)} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, "", ("invalid_utf8", str(exc))
    block, body = frontmatter.split(text)
    if block is None:
        return None, text, ("frontmatter_missing", "the first line is not ---")
    try:
        data = frontmatter.load(block)
    except ValueError as exc:
        reason = "yaml_too_large" if "larger than" in str(exc) else "yaml_invalid"
        return None, body, (reason, str(exc))
    if not isinstance(data, dict):
        return None, body, ("yaml_invalid", "front matter is not a mapping")
    return data, body, None
