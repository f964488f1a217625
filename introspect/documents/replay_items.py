"""The replay's inputs: each event as an `Item` with its raw line parsed once, and the transcript's
token timeline read at a frame's second (introspection.md §8 step 2). No Django."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import orjson

from introspect.rules.timestamps import utc_second


@dataclass(frozen=True)
class Item:
    """One occurrence of an event, with its raw line parsed (shared by every occurrence)."""

    event: object
    data: dict

    @property
    def kind(self) -> str:
        return self.event.event or ""

    @property
    def way(self) -> str:
        return self.event.way or ""

    @property
    def agent_id(self) -> str:
        return self.event.agent_id or ""

    def text(self, key: str) -> str:
        """Upstream reads these fields with `as_str()`: anything but a JSON string reads as ""."""
        value = self.data.get(key)
        return value if isinstance(value, str) else ""


def items_of(events: Sequence) -> list[Item]:
    """Each event as many times as its line occurred (like `turns.expand`), raw parsed once."""
    out: list[Item] = []
    for event in events:
        item = Item(event=event, data=parse_raw(event.raw))
        out.extend([item] * max(getattr(event, "occurrences", 1), 1))
    return out


def parse_raw(raw: str | bytes | None) -> dict:
    try:
        data = orjson.loads(raw or b"{}")
    except orjson.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def timed_timeline(token_timeline: Sequence[tuple[str, int]]) -> list[tuple[datetime, int]]:
    """The token timeline in file order; an entry whose stamp is not UTC Z is skipped (§3.2)."""
    return [(second, k) for ts, k in token_timeline if (second := utc_second(ts)) is not None]


def token_k_at(timeline: list[tuple[datetime, int]], second: datetime) -> int:
    """introspection.md §8 step 2: the last entry not later than `second`, stopping at the first later."""
    found = 0
    for entry_second, k in timeline:
        if entry_second > second:
            break
        found = k
    return found


@dataclass(frozen=True)
class Timeline:
    """`token_k_at` for many frames at once: the walk stops at the first entry later than the
    frame, which is the first whose running maximum is later, found by bisection (the running
    maximum never decreases, even where the timeline itself goes back in time)."""

    entries: list[tuple[datetime, int]]
    running_max: list[datetime]

    @classmethod
    def of(cls, entries: list[tuple[datetime, int]]) -> Timeline:
        running, latest = [], None
        for second, _ in entries:
            latest = second if latest is None or second > latest else latest
            running.append(latest)
        return cls(entries, running)

    def k_at(self, second: datetime) -> int:
        stop = bisect.bisect_right(self.running_max, second)
        return self.entries[stop - 1][1] if stop else 0
