"""Conversation turns and the pages of a session (issue 14: the conversation is the spine).

A conversation turn is one real user prompt and every trunk entry up to the next one; the entries
before the first prompt are turn 0. A page starts at a turn (or at a part of a turn longer than a
page) and holds whole turns while they fit in `size` entries, so every entry is on exactly one
page of a forward walk and a permalink can name the page that holds an entry: (turn, part).
"""

from __future__ import annotations

from dataclasses import dataclass

PAGE_ENTRIES = 200


@dataclass(frozen=True)
class Extent:
    """How much of the fetched run a page shows, and where the next page starts."""

    count: int  # entries of the fetched run on this page
    next_turn: int | None  # None: the page ends the conversation
    next_part: int = 0


def extent(starts: list[int], fetched: int, size: int, *, turn: int, part: int) -> Extent:
    """The page of a run of `fetched` entries (at most size + 1) beginning at (turn, part).

    `starts` are the run's indexes (> 0) at which a new turn begins. A turn that does not fit
    continues on the next page as its next part; otherwise the page ends at the last turn start
    that fits, and the next page is the first turn not shown.
    """
    if fetched <= size:
        return Extent(count=fetched, next_turn=None)
    inside = [start for start in starts if 0 < start <= size]
    if not inside:
        return Extent(count=size, next_turn=turn, next_part=part + 1)
    cut = inside[-1]
    return Extent(count=cut, next_turn=turn + len(inside), next_part=0)


def last_part(entries_in_turn: int, size: int) -> int:
    """The number of a turn's last part: where "previous page" lands from the turn after it."""
    return max(entries_in_turn - 1, 0) // size


def part_of(position_in_turn: int, size: int) -> int:
    """The part of its turn an entry is in, from its 0-based position inside the turn."""
    return max(position_in_turn, 0) // size
