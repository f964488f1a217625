"""Markdown documents with front matter, as the entry, knowledge and memory importers read them. No Django.

A document is read capped inside its root (lib/safefs.py); splitting it into front matter and body
is the format's (ledger/records/document.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ledger.records.document import MAX_DOCUMENT_BYTES
from lib import safefs


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
