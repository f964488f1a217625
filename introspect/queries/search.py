"""Search across prompts, replies, tool calls and way ids.

Transcript text is matched by the database's own full-text index (migration 0005_search): FTS5 on
the embedded SQLite, a `to_tsvector('simple', …)` GIN index on PostgreSQL. Way ids are matched by
substring on the turns they fired in. Every hit carries the URL of the exact place it was found.

The person's query is never handed to either engine as syntax: it is split on whitespace and each
term becomes a quoted phrase (FTS5) or a `phraseto_tsquery` (PostgreSQL), so `"`, `*`, `NEAR(`,
`-`, `OR` and friends are plain text. Snippets come back as (text, is_match) pieces for the
template to wrap in `<mark>` with autoescaping on; the engine's own highlighting is asked to use
private-use characters as delimiters, never HTML.

Identical lines in one session are one hit: the same file Read ten times, the same tool output,
the same reply repeated after a rewind are grouped by session, kind and exact text and shown once
with a count ("×10"), linked to the first of them. Hits are ranked by relevance (way hits first,
then text by the engine's rank) or by time (newest last occurrence first, way turns and lines
merged), and narrowed by kind, project and day range (SearchFilters).

The parts: `search_filters.py` (what a search is narrowed to), `search_results.py` (what the page
gets), `search_ways.py` (way-id hits), `search_text.py` (the full-text index) and
`search_text_hits.py` (text hits placed and linked). This module pages across them.
"""

from __future__ import annotations

import heapq

from introspect.queries import search_text
from introspect.queries.search_filters import SearchFilters
from introspect.queries.search_results import Hit, SearchResults
from introspect.queries.search_text import text_count, text_groups
from introspect.queries.search_text_hits import text_hits
from introspect.queries.search_ways import way_hits, way_turns

QUERY_CHARS = 200
MAX_TERMS = 12
MAX_LIMIT = 200
# Way ids are matched with a substring scan: count and page at most this many turns.
WAY_TURN_CAP = 500


def search(
    query: str, *, filters: SearchFilters | None = None, limit: int = 50, offset: int = 0
) -> SearchResults:
    """Hits for `query` narrowed by `filters`, ordered by relevance or time, one page of them.

    By relevance: turns whose way ids match first (newest first), then transcript lines by rank.
    By time: both merged, newest first. Identical lines of one session count as one hit.
    An empty query is no search (`total` None); a query with nothing searchable in it (only
    punctuation) has no results. Never raises on what a person types.
    """
    filters = filters or SearchFilters()
    query = " ".join(query.split())[:QUERY_CHARS]
    limit = min(max(limit, 1), MAX_LIMIT)
    offset = max(offset, 0)

    def results(hits: list[Hit], total: int | None, capped: bool = False) -> SearchResults:
        return SearchResults(
            hits=hits, total=total, query=query, limit=limit, offset=offset, capped=capped, filters=filters
        )

    if not query:
        return results([], None)
    terms = search_terms(query)
    if not terms:
        return results([], 0)
    ways = way_turns(terms, filters)
    # Each count reads one past its cap, so "capped" means there are more, not "exactly the cap".
    way_matches = ways[: WAY_TURN_CAP + 1].count() if filters.wants_ways else 0
    way_total = min(way_matches, WAY_TURN_CAP)
    text_matches = text_count(terms, filters) if filters.wants_text else 0
    text_total = min(text_matches, search_text.TEXT_COUNT_CAP)
    capped = way_matches > WAY_TURN_CAP or text_matches > search_text.TEXT_COUNT_CAP
    total = way_total + text_total
    if filters.sort == "newest":
        hits = newest_hits(terms, filters, ways, way_total, text_total, limit=limit, offset=offset)
        return results(hits, total, capped)
    # One ranked list, paged across both sources: the bounded way hits, then the text hits.
    hits = []
    if offset < way_total:
        pks = list(ways.values_list("pk", flat=True)[offset : min(offset + limit, way_total)])
        by_turn = way_hits(terms, pks)
        hits = [by_turn[pk] for pk in pks if pk in by_turn]
    text_offset = max(offset - way_total, 0)
    room = min(limit - len(hits), text_total - text_offset)  # the pages end at the counted total
    if room > 0:
        groups = text_groups(terms, filters, limit=room, offset=text_offset)
        by_entry = text_hits(terms, groups)
        hits += [by_entry[group.entry_id] for group in groups if group.entry_id in by_entry]
    return results(hits, total, capped)


def newest_hits(
    terms: list[str],
    filters: SearchFilters,
    ways,
    way_total: int,
    text_total: int,
    *,
    limit: int,
    offset: int,
) -> list[Hit]:
    """A page of way turns and text hits merged newest first.

    Both sources are already ordered by time, so the page is found by merging the first
    offset + limit of each (times only) and loading just the hits that land on it.
    """
    need = min(offset + limit, way_total + text_total)
    if need <= offset:
        return []
    turns = list(ways.values_list("pk", "ts")[: min(need, way_total)]) if way_total else []
    groups = text_groups(terms, filters, limit=min(need, text_total), offset=0) if text_total else []
    # Missing times sort last: the engines put NULL after every time when ordering newest first.
    merged = heapq.merge(
        [("way", pk, ts) for pk, ts in turns],
        [("text", group, group.last_ts) for group in groups],
        key=lambda item: (item[2] is None, -(item[2].timestamp() if item[2] else 0)),
    )
    page = list(merged)[offset:need]
    by_turn = way_hits(terms, [key for source, key, _ in page if source == "way"])
    by_entry = text_hits(terms, [key for source, key, _ in page if source == "text"])
    found = [by_turn.get(key) if source == "way" else by_entry.get(key.entry_id) for source, key, _ in page]
    return [hit for hit in found if hit is not None]  # a row deleted between the reads is left out


def search_terms(query: str) -> list[str]:
    """Whitespace-separated terms with at least one letter or digit, surrounding quotes dropped."""
    terms = (term.strip("\"'") for term in query.split())
    return [term for term in terms if any(ch.isalnum() for ch in term)][:MAX_TERMS]
