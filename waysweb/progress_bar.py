"""The bar a long `ingest` pass draws on a terminal: one line, redrawn in place at each report.

Drawn here rather than by rich's Progress: `ingest` imports whatever could draw its bar on every
start, and importing rich cost 0.08-0.10 CPU s of every run, a no-op's too (which draws nothing);
a line of text redrawn once a second needs none of it. No Django here.
"""

from __future__ import annotations

import shutil
from typing import TextIO

WIDEST_BAR = 40
CLEAR_LINE = "\r\x1b[2K"  # back to the line's start, the line erased


class Bar:
    """`label` [━━━━━━━━──────] `columns`…, on `out`; text said while it is shown goes above it."""

    def __init__(self, out: TextIO, label: str):
        self.out, self.label = out, label
        self.line = ""

    def update(self, fraction: float, *columns: str) -> None:
        width = shutil.get_terminal_size().columns
        tail = " ".join(column for column in columns if column)
        room = max(0, min(WIDEST_BAR, width - len(self.label) - len(tail) - 3))
        done = round(room * max(0.0, min(1.0, fraction)))
        self.line = f"{self.label} {'━' * done}{'─' * (room - done)} {tail}"[: max(1, width - 1)]
        self.out.write(CLEAR_LINE + self.line)
        self.out.flush()

    def say(self, text: str) -> None:
        """A line of output above the bar, the bar drawn again below it."""
        self.out.write(CLEAR_LINE + text + "\n" + self.line)
        self.out.flush()

    def stop(self) -> None:
        """The bar left as it was last drawn, the cursor on the next line."""
        if self.line:
            self.out.write("\n")
            self.out.flush()
        self.line = ""


def mib(count: float) -> str:
    return f"{count / 2**20:,.1f}"


def clock(seconds: float | None) -> str:
    """Time left as h:mm:ss ("-:--:--" while it cannot be told)."""
    if seconds is None:
        return "-:--:--"
    whole = int(seconds)
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"
