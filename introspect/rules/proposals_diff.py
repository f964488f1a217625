"""The unified diff a proposal shows: what the file would become, to read or to copy by hand."""

from __future__ import annotations

import difflib


def unified(before: str, after: str, path: str) -> str:
    """`diff -u` of the two texts, `path` named on both sides (git's a/ b/ prefixes)."""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{path.lstrip('/')}" if before else "/dev/null",
        tofile=f"b/{path.lstrip('/')}",
        n=2,
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def changed_lines(before: str, after: str) -> int:
    """How many lines differ: a line replaced or a line added counts 1 (what "one line written" checks)."""
    # splitlines: a newline added after a last line that had none is part of adding the next one.
    ops = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(), autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")
