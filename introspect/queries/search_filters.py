"""What a search is narrowed to (kinds, project, days) and how it is ordered: `SearchFilters`, read
from the GET parameters, and each kind as a condition on the entry row."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.utils import timezone

from introspect.rules import entry_kinds

SORTS = ("relevance", "newest")

# Each kind a search can be narrowed to, as a condition on the entry row (alias `e`). These mirror
# rules/entry_kinds.search_kind flag for flag (tests/introspect/queries/test_search.py holds them
# to it); SQL because the count and the ranking are raw statements on both engines.
KIND_SQL = {
    "prompt": "(e.is_prompt)",
    "result": (
        "(e.type = 'user' AND NOT e.is_prompt AND NOT e.is_compact_summary "
        "AND coalesce(e.tool_result_id, '') <> '')"
    ),
    "thinking": "(e.type = 'assistant' AND e.subtype = 'thinking')",
    "tool": "(e.type = 'assistant' AND e.subtype <> 'thinking' AND coalesce(e.tool_use_id, '') <> '')",
    "reply": "(e.type = 'assistant' AND e.subtype <> 'thinking' AND coalesce(e.tool_use_id, '') = '')",
}


@dataclass(frozen=True)
class SearchFilters:
    """What a search is narrowed to and how it is ordered; every field is a GET parameter."""

    kinds: tuple[str, ...] = ()  # entry_kinds.FILTER_KINDS keys; empty: every kind
    project: int | None = None  # Project pk
    since: date | None = None  # first day, in the current time zone
    until: date | None = None  # last day, included
    sort: str = "relevance"  # one of SORTS

    def __post_init__(self) -> None:
        kinds = tuple(kind for kind in entry_kinds.FILTER_KINDS if kind in self.kinds)
        object.__setattr__(self, "kinds", kinds)
        if self.sort not in SORTS:
            object.__setattr__(self, "sort", SORTS[0])

    @property
    def wants_ways(self) -> bool:
        return not self.kinds or "way" in self.kinds

    @property
    def wants_text(self) -> bool:
        return not self.kinds or any(kind in KIND_SQL for kind in self.kinds)

    @property
    def active(self) -> bool:
        return bool(self.kinds or self.project is not None or self.since or self.until)

    def bounds(self) -> tuple[datetime | None, datetime | None]:
        """The day range as [start, end) instants: midnight of `since`, midnight after `until`."""
        start = midnight(self.since) if self.since else None
        end = midnight(self.until + timedelta(days=1)) if self.until else None
        return start, end


def midnight(day: date) -> datetime:
    """The instant `day` begins in the current time zone (the one the page shows times in)."""
    return timezone.make_aware(datetime.combine(day, time.min))
