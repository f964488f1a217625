"""agent-ways `decisions::Records`: the decision log's lines, in source order, as records in a window.

Sources come archives first (`decisions-YYYY-MM-DD.jsonl.gz`, oldest day first), then the live
`decisions.jsonl`, each in file order (`sources_in`); which files exist and how they are read is the
caller's (the importer's) job, and `source_order` only orders their names. A blank line is passed over
uncounted; a line that is no record is counted in `skipped` (upstream's only count) and, here, by
reason; a record outside the window is neither returned nor counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from introspect.rules.agent_fmt_when import parse_utc_iso
from introspect.rules.decision_records import Pull, Record, Rejected, Scan, parse_line

LIVE_NAME = "decisions.jsonl"
ARCHIVE_PREFIX = "decisions-"
ARCHIVE_SUFFIX = ".jsonl.gz"


@dataclass(frozen=True, slots=True)
class Window:
    """A ts range, both ends inclusive, compared as text (`YYYY-MM-DDThh:mm:ssZ` sorts as it reads)."""

    since: str | None = None
    until: str | None = None

    def contains(self, ts: str) -> bool:
        return (self.since is None or ts >= self.since) and (self.until is None or ts <= self.until)


def archive_day(name: str) -> int | None:
    """`event_archive::archive_day` for the decision stream: the Unix second of the day an archive's
    name carries, or None for any other name (only an exact `YYYY-MM-DD` counts)."""
    if not (name.startswith(ARCHIVE_PREFIX) and name.endswith(ARCHIVE_SUFFIX)):
        return None
    date = name[len(ARCHIVE_PREFIX) : len(name) - len(ARCHIVE_SUFFIX)]
    shaped = len(date) == 10 and all(
        char == "-" if index in (4, 7) else "0" <= char <= "9" for index, char in enumerate(date)
    )
    return parse_utc_iso(f"{date}T00:00:00Z") if shaped else None


def source_order(names: Iterable[str]) -> list[str]:
    """`sources_in`: the archives among `names`, oldest day first (ties by name), then the live file."""
    names = list(names)
    archives = sorted((day, name) for name in names if (day := archive_day(name)) is not None)
    ordered = [name for _, name in archives]
    return [*ordered, LIVE_NAME] if LIVE_NAME in names else ordered


class Records:
    """The records of `lines` (every source's lines, in source order) that fall in `window`."""

    def __init__(self, lines: Iterable[bytes | str | Record], window: Window | None = None) -> None:
        self._lines = iter(lines)
        self.window = window or Window()
        self.skipped = 0
        self.rejected: Counter[str] = Counter()
        self.read = 0  # records returned

    def __iter__(self) -> Iterator[Record]:
        return self

    def __next__(self) -> Record:
        for line in self._lines:
            # A record the caller typed already (from the imported columns) is taken as it is.
            parsed = line if isinstance(line, Scan | Pull) else parse_line(line)
            if parsed is None:
                continue
            if isinstance(parsed, Rejected):
                self.skipped += 1
                self.rejected[parsed.reason] += 1
                continue
            if self.window.contains(parsed.ts):
                self.read += 1
                return parsed
        raise StopIteration
