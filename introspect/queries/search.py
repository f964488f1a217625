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
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from urllib.parse import urlencode

from django.db import connection
from django.db.models import OuterRef, Q, Subquery
from django.urls import reverse
from django.utils import timezone

from introspect.models import Session, SourceFile, TranscriptEntry, Turn, TurnWay
from introspect.rules import entry_kinds, titles
from lib import converters

FTS_TABLE = "introspect_transcriptentry_fts"  # created by migration 0005_search
QUERY_CHARS = 200
MAX_TERMS = 12
MAX_LIMIT = 200
# Way ids are matched with a substring scan: count and page at most this many turns.
WAY_TURN_CAP = 500
# Counting every match of a common word costs a join per match: count this far, then say "more".
TEXT_COUNT_CAP = 10_000
SNIPPET_TOKENS = 24
# Private-use code points: they never reach the page, the pieces do.
OPEN, CLOSE = "\ue000", "\ue001"
ELLIPSIS = "…"
TITLE_CHARS = 90
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
# Lines that are "the same hit": one session (and subagent), one kind of line, the same text.
SAME_HIT = "e.session_id, e.agent_id, e.type, e.subtype, e.is_prompt, e.tool_name, e.text"


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
    text_total = min(text_matches, TEXT_COUNT_CAP)
    capped = way_matches > WAY_TURN_CAP or text_matches > TEXT_COUNT_CAP
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


# Way ids -----------------------------------------------------------------------------------------


def way_condition(terms: list[str]) -> Q:
    condition = Q()
    for term in terms:
        condition &= Q(way_id__icontains=term)  # Django escapes % and _ for LIKE
    return condition


def way_turns(terms: list[str], filters: SearchFilters):
    """Turns with a fired way id containing every term, within the project and days, newest first."""
    matching = TurnWay.objects.filter(way_condition(terms)).values("turn_id")
    turns = Turn.objects.filter(pk__in=matching)
    if filters.project is not None:
        turns = turns.filter(session__project_id=filters.project)
    start, end = filters.bounds()
    if start:
        turns = turns.filter(ts__gte=start)
    if end:
        turns = turns.filter(ts__lt=end)
    return turns.order_by("-ts", "-pk")


def way_hits(terms: list[str], pks: list[int]) -> dict[int, Hit]:
    """Turn pk → its hit: the turn's matching way ids, linked to the turn."""
    if not pks:
        return {}
    page = list(Turn.objects.filter(pk__in=pks).select_related("session__project"))
    found: dict[int, list[str]] = {}
    rows = (
        TurnWay.objects.filter(way_condition(terms), turn__in=pks)
        .order_by("turn_id", "position")
        .values_list("turn_id", "way_id")
    )
    for turn_id, way_id in rows:
        if way_id not in found.setdefault(turn_id, []):
            found[turn_id].append(way_id)
    hits = {}
    for turn in page:
        way_ids = tuple(found.get(turn.pk, ()))
        session = turn.session
        hits[turn.pk] = Hit(
            session_sid=session.sid,
            kind="way",
            snippet=mark_terms(", ".join(way_ids), terms),
            url=session_url(session.sid, turn.epoch, f"turn-{turn.epoch}", terms=terms),
            ts=turn.ts,
            way_id=way_ids[0] if way_ids else "",
            way_ids=way_ids,
            epoch=turn.epoch,
            project=session.project.name if session.project else "",
            title=session.title,
            session_started=session.started_at,
        )
    return hits


def mark_terms(text: str, terms: list[str]) -> list[tuple[str, bool]]:
    """`text` in pieces, each case-insensitive occurrence of a term marked."""
    if not text:
        return []
    pattern = re.compile(
        "|".join(re.escape(term) for term in sorted(terms, key=len, reverse=True)), re.IGNORECASE
    )
    pieces, at = [], 0
    for match in pattern.finditer(text):
        if match.start() > at:
            pieces.append((text[at : match.start()], False))
        pieces.append((match.group(), True))
        at = match.end()
    if at < len(text):
        pieces.append((text[at:], False))
    return pieces


# Transcript text ---------------------------------------------------------------------------------


def fts5_expression(terms: list[str]) -> str:
    """A MATCH expression in which every term is a quoted phrase; the last is a prefix (typing)."""
    phrases = ['"' + term.replace('"', '""') + '"' for term in terms]
    phrases[-1] += "*"
    # The type column is indexed for filters, not for free text ("user" would match every prompt).
    return "{text tool_name} : (" + " ".join(phrases) + ")"


def tsquery_sql(terms: list[str]) -> tuple[str, list[str]]:
    """A tsquery expression and its parameters; user text only ever travels as a parameter."""
    parts, params = [], []
    for n, term in enumerate(terms):
        if n == len(terms) - 1 and re.fullmatch(r"[^\W_]+", term):
            # A bare word: quoted lexeme with a prefix flag; it holds no quote or backslash.
            parts.append("to_tsquery('simple'::regconfig, %s)")
            params.append(f"'{term.lower()}':*")
        else:
            parts.append("phraseto_tsquery('simple'::regconfig, %s)")
            params.append(term)
    return " && ".join(parts), params


def entry_table() -> str:
    return connection.ops.quote_name(TranscriptEntry._meta.db_table)


@dataclass(frozen=True)
class TextGroup:
    """Identical matching lines of one session: the first one's id, how many, the time of the last."""

    entry_id: int
    count: int
    last_ts: datetime | None


def filter_sql(filters: SearchFilters) -> tuple[str, list]:
    """` AND …` conditions on the entry row `e` for the kinds, project and days; parameters apart."""
    parts, params = [], []
    kinds = [KIND_SQL[kind] for kind in filters.kinds if kind in KIND_SQL]
    if kinds:
        parts.append("(" + " OR ".join(kinds) + ")")
    if filters.project is not None:
        session = connection.ops.quote_name(Session._meta.db_table)
        parts.append(f"e.session_id IN (SELECT s.id FROM {session} s WHERE s.project_id = %s)")
        params.append(filters.project)
    start, end = filters.bounds()
    if start:
        parts.append("e.ts >= %s")
        params.append(connection.ops.adapt_datetimefield_value(start))
    if end:
        parts.append("e.ts < %s")
        params.append(connection.ops.adapt_datetimefield_value(end))
    return "".join(f" AND {part}" for part in parts), params


def matches_sql(terms: list[str], filters: SearchFilters) -> tuple[str, str, list]:
    """(FROM … WHERE …, the rank expression, parameters): the matching, searchable, filtered lines."""
    entry = entry_table()
    conditions, params = filter_sql(filters)
    if connection.vendor == "postgresql":
        expression, terms_params = tsquery_sql(terms)
        vector = "to_tsvector('simple'::regconfig, coalesce(e.text, ''))"
        source = (
            f"FROM {entry} e, (SELECT ({expression}) AS q) q WHERE {vector} @@ q.q "
            f"AND NOT e.inert AND NOT e.is_copy AND e.session_id IS NOT NULL{conditions}"
        )
        # ts_rank grows with relevance; negated so that both engines rank best first ascending.
        return source, f"-ts_rank({vector}, q.q)", [*terms_params, *params]
    source = (
        f"FROM {FTS_TABLE} JOIN {entry} e ON e.id = {FTS_TABLE}.rowid WHERE {FTS_TABLE} MATCH %s "
        f"AND e.inert = 0 AND e.is_copy = 0 AND e.session_id IS NOT NULL{conditions}"
    )
    return source, f"{FTS_TABLE}.rank", [fts5_expression(terms), *params]


def text_count(terms: list[str], filters: SearchFilters | None = None) -> int:
    """Distinct hits (identical lines of a session counted once), counted up to one past TEXT_COUNT_CAP."""
    if connection.vendor not in ("postgresql", "sqlite"):
        return 0
    source, _, params = matches_sql(terms, filters or SearchFilters())
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT count(*) FROM (SELECT 1 {source} GROUP BY {SAME_HIT} LIMIT %s) capped",
            [*params, TEXT_COUNT_CAP + 1],
        )
        return cursor.fetchone()[0]


def text_groups(terms: list[str], filters: SearchFilters, *, limit: int, offset: int) -> list[TextGroup]:
    """A page of distinct hits, best rank first (then newest) or newest first, as `filters.sort` says."""
    if connection.vendor not in ("postgresql", "sqlite") or limit <= 0:
        return []
    source, rank, params = matches_sql(terms, filters)
    last = "MAX(e.ts)"
    newest = f"{last} IS NULL, {last} DESC, MIN(e.id) DESC"  # NULL last on both engines
    order = newest if filters.sort == "newest" else f"MIN({rank}), {newest}"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT MIN(e.id), count(*), {last} {source} GROUP BY {SAME_HIT} ORDER BY {order} LIMIT %s OFFSET %s",
            [*params, limit, offset],
        )
        return [TextGroup(pk, n, as_datetime(ts)) for pk, n, ts in cursor.fetchall()]


def as_datetime(value) -> datetime | None:
    """A MAX(ts) as the driver hands it back: a datetime on PostgreSQL, stored text on SQLite (UTC)."""
    if value is None or isinstance(value, datetime):
        return value
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def snippets(terms: list[str], ids: list[int]) -> dict[int, str]:
    """Entry id → the engine's snippet of its text around the matches, marked with OPEN/CLOSE."""
    if not ids or connection.vendor not in ("postgresql", "sqlite"):
        return {}
    marks = ", ".join(["%s"] * len(ids))
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            expression, params = tsquery_sql(terms)
            options = (
                f"StartSel={OPEN}, StopSel={CLOSE}, MaxWords={SNIPPET_TOKENS}, MinWords=8, "
                f'MaxFragments=2, FragmentDelimiter=" {ELLIPSIS} "'
            )
            cursor.execute(
                f"SELECT e.id, ts_headline('simple'::regconfig, e.text, ({expression}), %s) "
                f"FROM {entry_table()} e WHERE e.id IN ({marks})",
                [*params, options, *ids],
            )
        else:
            cursor.execute(
                f"SELECT rowid, snippet({FTS_TABLE}, -1, %s, %s, %s, %s) FROM {FTS_TABLE} "
                f"WHERE {FTS_TABLE} MATCH %s AND rowid IN ({marks})",
                [OPEN, CLOSE, ELLIPSIS, SNIPPET_TOKENS, fts5_expression(terms), *ids],
            )
        return {pk: marked or "" for pk, marked in cursor.fetchall()}


def text_hits(terms: list[str], groups: list[TextGroup]) -> dict[int, Hit]:
    """Entry id → the hit for each group's first line (a line deleted since the ranking is left out)."""
    if not groups:
        return {}
    ids = [group.entry_id for group in groups]
    marked = snippets(terms, ids)
    entries = {entry.pk: entry for entry in page_entries(ids)}
    hits = {}
    for group in groups:
        entry = entries.get(group.entry_id)
        if entry is None:
            continue
        session = entry.session
        agent = entry.source.agent_key if entry.source.kind == SourceFile.Kind.SUBAGENT_TRANSCRIPT else ""
        anchor = (
            f"u-{converters.dom_id(entry.uuid)}"
            if entry.uuid
            else (f"turn-{entry.turn_epoch}" if entry.turn_epoch else "")
        )
        if agent:
            url = reverse("introspect:subagent-detail", args=[session.sid, agent])
            url += "?" + urlencode({**({"hit": entry.uuid} if entry.uuid else {}), "q": " ".join(terms)})
            url += f"#{anchor}" if anchor else ""
        else:
            url = session_url(session.sid, entry.turn_epoch, anchor, uuid=entry.uuid or "", terms=terms)
        hits[entry.pk] = Hit(
            session_sid=session.sid,
            kind=entry_kinds.search_kind(entry),
            snippet=pieces(marked.get(entry.pk, "")),
            url=url,
            ts=entry.ts,
            epoch=None if agent else entry.turn_epoch,
            tool_name=entry.tool_name or "",
            uuid=entry.uuid or "",
            project=session.project.name if session.project else "",
            title=session.title,
            subagent=agent,
            count=group.count,
            last_ts=group.last_ts if group.count > 1 else None,
            session_started=session.started_at,
        )
    return hits


def page_entries(ids: list[int]) -> list[TranscriptEntry]:
    """The page's entries with their session, source and the turn each is shown under (`turn_epoch`).

    The session page lists turns in pages of queries.TURNS_PER_PAGE and shows a line inside the
    exchange of the prompt before it, under the turn keyed to that prompt (else the first turn
    near it): so a hit needs that turn's epoch to land on the right page. Two reads, each bounded
    by the page: the entries with the prompt before each (`anchor`), then the turns of those
    prompts by their indexed foreign keys. (One statement with the turn as a correlated subquery
    scanned every turn of the session per hit: ~5 ms a hit in a 5,000-turn session.)
    """
    anchor = (
        TranscriptEntry.objects.filter(
            source_id=OuterRef("source_id"), is_prompt=True, is_copy=False, offset__lte=OuterRef("offset")
        )
        .order_by("-offset", "-index")
        .values("pk")[:1]
    )
    entries = list(
        TranscriptEntry.objects.filter(pk__in=ids)
        .select_related("session__project", "source")
        .annotate(anchor=Subquery(anchor))
        .only(
            "id",
            "type",
            "subtype",
            "uuid",
            "ts",
            "is_prompt",
            "is_meta",
            "is_compact_summary",
            "tool_use_id",
            "tool_result_id",
            "tool_name",
            "hook_event",
            "offset",
            "source_id",
            "session__sid",
            "session__title",
            "session__started_at",
            "session__project__name",
            "source__kind",
            "source__agent_key",
        )
    )
    epochs = turn_epochs({entry.anchor for entry in entries} - {None})
    for entry in entries:
        entry.turn_epoch = epochs.get((entry.session_id, entry.anchor))
    return entries


def turn_epochs(anchors: set[int]) -> dict[tuple[int, int], int]:
    """(session id, prompt id) → the epoch of the turn keyed to that prompt, else the first turn near it."""
    if not anchors:
        return {}
    turns = Turn.objects.filter(
        Q(prompt_entry_id__in=anchors) | Q(nearest_prompt_id__in=anchors)
    ).values_list("session_id", "prompt_entry_id", "nearest_prompt_id", "join_confidence", "epoch")
    best: dict[tuple[int, int], tuple[bool, int]] = {}
    for session_id, keyed_to, near, confidence, epoch in turns:
        for prompt in {keyed_to, near} & anchors:
            rank = (confidence != Turn.Join.KEYED, epoch)
            key = (session_id, prompt)
            if key not in best or rank < best[key]:
                best[key] = rank
    return {key: epoch for key, (_, epoch) in best.items()}


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


def pieces(marked: str) -> list[tuple[str, bool]]:
    """Split an engine snippet on the private-use delimiters into (text, is_match) pieces."""
    out: list[tuple[str, bool]] = []
    for part in re.split(f"({OPEN}[^{CLOSE}]*{CLOSE})", marked):
        if not part:
            continue
        if part.startswith(OPEN) and part.endswith(CLOSE):
            out.append((part[1:-1], True))
        else:
            out.append((part.replace(OPEN, "").replace(CLOSE, ""), False))
    return out
