"""What a search hands the page: its hits (`Hit`), grouped by session, one page of them with the
counts the pager prints (`SearchResults`), and the URL of the place each hit was found."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urlencode

from django.urls import reverse

from introspect.queries.search_filters import SearchFilters
from introspect.rules import entry_kinds, titles

TITLE_CHARS = 90


@dataclass(frozen=True)
class Hit:
    """One place a query matched: a transcript line, or a turn whose fired ways match."""

    session_sid: str
    kind: str  # prompt, reply, tool, result, thinking, context, way, …
    snippet: list[tuple[str, bool]]  # (text, is_match) pieces; the template marks matches
    url: str
    ts: datetime | None
    way_id: str = ""  # way hits: the first matching way id
    way_ids: tuple[str, ...] = ()  # way hits: every matching way id in the turn
    epoch: int | None = None  # the turn the hit is shown under, when known
    tool_name: str = ""
    uuid: str = ""
    project: str = ""
    title: str = ""
    subagent: str = ""  # hits in a subagent transcript: its agent id
    count: int = 1  # identical lines this hit stands for (the first is linked)
    last_ts: datetime | None = None  # the last of them, when there are several
    session_started: datetime | None = None

    @property
    def kind_label(self) -> str:
        return entry_kinds.kind_label(self.kind)


@dataclass(frozen=True)
class SessionGroup:
    """A page's hits from one session, in the page's order of its first hit."""

    sid: str
    project: str
    title: str  # cut at a word boundary for the heading
    full_title: str
    started: datetime | None
    url: str
    hits: list[Hit]


@dataclass
class SearchResults:
    hits: list[Hit]
    total: int | None  # None: no search was made (empty query)
    query: str
    limit: int = 50
    offset: int = 0
    capped: bool = False  # total stopped counting: there are at least this many
    filters: SearchFilters = field(default_factory=SearchFilters)
    groups: list[SessionGroup] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        by_sid: dict[str, list[Hit]] = {}
        for hit in self.hits:
            by_sid.setdefault(hit.session_sid, []).append(hit)
        self.groups = [
            SessionGroup(
                sid=sid,
                project=hits[0].project,
                title=titles.cut_title(hits[0].title, TITLE_CHARS),
                full_title=hits[0].title,
                started=hits[0].session_started,
                url=reverse("introspect:session-detail", args=[sid]),
                hits=hits,
            )
            for sid, hits in by_sid.items()
        ]

    @property
    def total_label(self) -> str:
        return f"{self.total or 0:,}"

    @property
    def count_label(self) -> str:
        """The total as a person reads it: "1,204", or "10,000+" when counting stopped at a cap."""
        return self.total_label + ("+" if self.capped else "")

    @property
    def page(self) -> int:
        return self.offset // self.limit + 1

    @property
    def num_pages(self) -> int:
        return max(1, -(-(self.total or 0) // self.limit))

    @property
    def has_previous(self) -> bool:
        return self.offset > 0

    @property
    def has_next(self) -> bool:
        return self.total is not None and self.offset + self.limit < self.total

    @property
    def previous_page(self) -> int:
        return max(self.page - 1, 1)

    @property
    def next_page(self) -> int:
        return self.page + 1


def session_url(
    sid: str, epoch: int | None, anchor: str, *, uuid: str = "", terms: list[str] | tuple[str, ...] = ()
) -> str:
    """The session page that holds the hit, scrolled to `anchor`: a conversation entry by its
    permalink (`?u=`, answered with the page of its turn), a fire turn by `?from=` (the page of
    the prompt it is tied to). `q` carries the search words: the page opens the hit's card whole
    and marks them in it (static/js/match.js)."""
    url = reverse("introspect:session-detail", args=[sid])
    params: dict[str, str | int] = {"u": uuid} if uuid else ({"from": epoch} if epoch else {})
    if terms:
        params["q"] = " ".join(terms)
    if params:
        url += "?" + urlencode(params)
    return url + (f"#{anchor}" if anchor else "")
