"""Durable writes into a repository: a temp file in the target directory, fsync, rename
(knowledge-and-records.md §5.2), only ever through real directories inside the repository
(lib/safefs.py) and keeping the replaced file's mode.

A promotion writes text a person accepted into a file; if `.ai/repo/knowledge/curated` were a
link to `~/.claude/commands`, following it would plant that text as a command. Such a write is
refused with the reason, and nothing is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from django.conf import settings

from lib import safefs

KNOWLEDGE_PARTS = (".ai", "repo", "knowledge")
# A record a person edits is read whole (its every other byte is written back); one this large is
# not a decision record or a knowledge file, and is refused rather than read into memory.
EDIT_CAP = 16 << 20


class Unsafe(ValueError):
    """A write or read that would leave the repository: refused, nothing changed."""


def knowledge_root(directory: Path) -> Path:
    """The root a knowledge directory is written inside: its repository for `<repo>/.ai/repo/knowledge`,
    else the directory itself (waysweb's own, in the data directory)."""
    if directory.parts[-3:] == KNOWLEDGE_PARTS and directory != settings.WAYSWEB_LOCATIONS.knowledge_dir:
        return directory.parent.parent.parent
    return directory


def unsafe(refused: safefs.Refused) -> Unsafe:
    problem = refused.problem
    return Unsafe(
        f"waysweb did not touch {problem.path}: {problem.label}"
        + (f" ({problem.detail})" if problem.detail else "")
    )


def write_atomic(root: Path, path: Path, data: bytes) -> None:
    """Replace `path` inside `root` with `data` so that a reader sees the old file or the new one."""
    try:
        safefs.write_atomic(root, path, data)
    except safefs.Refused as refused:
        raise unsafe(refused) from None


def write_many(
    root: Path, writes: Sequence[tuple[Path, bytes]], seen: dict[int, tuple[int, int]] | None = None
) -> dict[int, OSError]:
    """`write_atomic` of each (path, data) inside `root`, the disk flushed once for all of them; the
    writes not made by their index: `Unsafe` for a refused one, else the OSError. `seen` gets the
    (size, mtime_ns) of each file written (safefs.write_many)."""
    failed = safefs.write_many(root, writes, seen)
    return {index: unsafe(exc) if isinstance(exc, safefs.Refused) else exc for index, exc in failed.items()}


def remove(root: Path, path: Path) -> None:
    try:
        safefs.remove(root, path)
    except safefs.Refused as refused:
        raise unsafe(refused) from None


def read(root: Path, path: Path) -> bytes:
    """The bytes of a file about to be changed, read the way it will be written; FileNotFoundError when
    gone."""
    try:
        data = safefs.read_for_edit(root, path, EDIT_CAP)
    except safefs.Refused as refused:
        raise unsafe(refused) from None
    if len(data) > EDIT_CAP:
        raise Unsafe(f"waysweb did not touch {path}: larger than {EDIT_CAP >> 20} MiB")
    return data
