"""Search across prompts, replies, tool calls and way ids.

Transcript text is matched by the database's own full-text index (migration 0005_search): FTS5 on
the embedded SQLite, a `to_tsvector('simple', …)` GIN index on PostgreSQL. Way ids are matched by
substring on the turns they fired in. Every hit carries the URL of the exact place it was found.

The person's query is never handed to either engine as syntax: it is split on whitespace and each
term becomes a quoted phrase (FTS5) or a `phraseto_tsquery` (PostgreSQL), so `"`, `*`, `NEAR(`,
`-`, `OR` and friends are plain text. Snippets come back as (text, is_match) pieces for the
template to wrap in `<mark>` with autoescaping on; the engine's own highlighting is asked to use
private-use characters as delimiters, never HTML.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urlencode

from django.db import connection
from django.db.models import OuterRef, Q, Subquery
from django.urls import reverse

from introspect.models import SourceFile, TranscriptEntry, Turn, TurnWay
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


@dataclass(frozen=True)
class SessionGroup:
    """A page's hits from one session, in rank order of its best hit."""

    sid: str
    project: str
    title: str
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
    groups: list[SessionGroup] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        by_sid: dict[str, list[Hit]] = {}
        for hit in self.hits:
            by_sid.setdefault(hit.session_sid, []).append(hit)
        self.groups = [
            SessionGroup(
                sid=sid,
                project=hits[0].project,
                title=hits[0].title,
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


def search(query: str, *, limit: int = 50, offset: int = 0) -> SearchResults:
    """Hits for `query`: turns whose way ids match first (newest first), then transcript lines by rank.

    An empty query is no search (`total` None); a query with nothing searchable in it (only
    punctuation) has no results. Never raises on what a person types.
    """
    query = " ".join(query.split())[:QUERY_CHARS]
    limit = min(max(limit, 1), MAX_LIMIT)
    offset = max(offset, 0)
    if not query:
        return SearchResults(hits=[], total=None, query="", limit=limit, offset=offset)
    terms = search_terms(query)
    if not terms:
        return SearchResults(hits=[], total=0, query=query, limit=limit, offset=offset)
    # One ranked list, paged across both sources: the bounded way hits, then the text hits.
    ways = way_turns(terms)
    # Each count reads one past its cap, so "capped" means there are more, not "exactly the cap".
    way_matches = ways[: WAY_TURN_CAP + 1].count()
    way_total = min(way_matches, WAY_TURN_CAP)
    hits = []
    if offset < way_total:
        hits = way_hits(terms, ways, start=offset, stop=min(offset + limit, way_total))
    text_matches = text_count(terms)
    text_total = min(text_matches, TEXT_COUNT_CAP)
    room = min(limit - len(hits), way_total + text_total - offset)  # the pages end at the counted total
    if room > 0:
        hits += text_hits(terms, limit=room, offset=max(offset - way_total, 0))
    capped = way_matches > WAY_TURN_CAP or text_matches > TEXT_COUNT_CAP
    return SearchResults(
        hits=hits, total=way_total + text_total, query=query, limit=limit, offset=offset, capped=capped
    )


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


def way_turns(terms: list[str]):
    matching = TurnWay.objects.filter(way_condition(terms)).values("turn_id")
    return Turn.objects.filter(pk__in=matching).order_by("-ts", "-pk")


def way_hits(terms: list[str], turns, *, start: int, stop: int) -> list[Hit]:
    page = list(turns.select_related("session__project")[start:stop])
    found: dict[int, list[str]] = {}
    rows = (
        TurnWay.objects.filter(way_condition(terms), turn__in=[turn.pk for turn in page])
        .order_by("turn_id", "position")
        .values_list("turn_id", "way_id")
    )
    for turn_id, way_id in rows:
        if way_id not in found.setdefault(turn_id, []):
            found[turn_id].append(way_id)
    hits = []
    for turn in page:
        way_ids = tuple(found.get(turn.pk, ()))
        session = turn.session
        hits.append(
            Hit(
                session_sid=session.sid,
                kind="way",
                snippet=mark_terms(", ".join(way_ids), terms),
                url=session_url(session.sid, turn.epoch, f"turn-{turn.epoch}"),
                ts=turn.ts,
                way_id=way_ids[0] if way_ids else "",
                way_ids=way_ids,
                epoch=turn.epoch,
                project=session.project.name if session.project else "",
                title=session.title,
            )
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


def text_count(terms: list[str]) -> int:
    """Lines matching every term, counted up to one past TEXT_COUNT_CAP."""
    entry = entry_table()
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            expression, params = tsquery_sql(terms)
            cursor.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM {entry} e "
                f"WHERE to_tsvector('simple'::regconfig, coalesce(e.text, '')) @@ ({expression}) "
                f"AND NOT e.inert AND NOT e.is_copy AND e.session_id IS NOT NULL LIMIT %s) capped",
                [*params, TEXT_COUNT_CAP + 1],
            )
        elif connection.vendor == "sqlite":
            cursor.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM {FTS_TABLE} JOIN {entry} e ON e.id = {FTS_TABLE}.rowid "
                f"WHERE {FTS_TABLE} MATCH %s AND e.inert = 0 AND e.is_copy = 0 AND e.session_id IS NOT NULL "
                f"LIMIT %s)",
                [fts5_expression(terms), TEXT_COUNT_CAP + 1],
            )
        else:
            return 0
        return cursor.fetchone()[0]


def ranked_ids(terms: list[str], *, limit: int, offset: int) -> list[tuple[int, str]]:
    """(entry id, marked snippet) in rank order, then newest."""
    entry = entry_table()
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            expression, params = tsquery_sql(terms)
            options = (
                f"StartSel={OPEN}, StopSel={CLOSE}, MaxWords={SNIPPET_TOKENS}, MinWords=8, "
                f'MaxFragments=2, FragmentDelimiter=" {ELLIPSIS} "'
            )
            # Rank and page first, then headline only the page: ts_headline re-parses each text.
            cursor.execute(
                f"""WITH q AS (SELECT ({expression}) AS q)
                SELECT hit.id, ts_headline('simple'::regconfig, hit.text, q.q, %s)
                FROM (
                    SELECT e.id, e.text, e.ts,
                           ts_rank(to_tsvector('simple'::regconfig, coalesce(e.text, '')), q.q) AS rank
                    FROM {entry} e, q
                    WHERE to_tsvector('simple'::regconfig, coalesce(e.text, '')) @@ q.q
                      AND NOT e.inert AND NOT e.is_copy AND e.session_id IS NOT NULL
                    ORDER BY rank DESC, e.ts DESC NULLS LAST, e.id DESC
                    LIMIT %s OFFSET %s
                ) hit, q
                ORDER BY hit.rank DESC, hit.ts DESC NULLS LAST, hit.id DESC""",
                [*params, options, limit, offset],
            )
        elif connection.vendor == "sqlite":
            cursor.execute(
                f"""SELECT e.id, snippet({FTS_TABLE}, -1, %s, %s, %s, %s)
                FROM {FTS_TABLE} JOIN {entry} e ON e.id = {FTS_TABLE}.rowid
                WHERE {FTS_TABLE} MATCH %s AND e.inert = 0 AND e.is_copy = 0 AND e.session_id IS NOT NULL
                ORDER BY {FTS_TABLE}.rank, e.ts DESC, e.id DESC
                LIMIT %s OFFSET %s""",
                [OPEN, CLOSE, ELLIPSIS, SNIPPET_TOKENS, fts5_expression(terms), limit, offset],
            )
        else:
            return []
        return [(row[0], row[1] or "") for row in cursor.fetchall()]


def text_hits(terms: list[str], *, limit: int, offset: int) -> list[Hit]:
    ranked = ranked_ids(terms, limit=limit, offset=offset)
    entries = {entry.pk: entry for entry in page_entries([pk for pk, _ in ranked])}
    hits = []
    for pk, marked in ranked:
        entry = entries.get(pk)
        if entry is None:  # deleted between the two reads
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
            url += f"#{anchor}" if anchor else ""
        else:
            url = session_url(session.sid, entry.turn_epoch, anchor, uuid=entry.uuid or "")
        hits.append(
            Hit(
                session_sid=session.sid,
                kind=kind_of(entry),
                snippet=pieces(marked),
                url=url,
                ts=entry.ts,
                epoch=None if agent else entry.turn_epoch,
                tool_name=entry.tool_name or "",
                uuid=entry.uuid or "",
                project=session.project.name if session.project else "",
                title=session.title,
                subagent=agent,
            )
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


def session_url(sid: str, epoch: int | None, anchor: str, *, uuid: str = "") -> str:
    """The session page that holds the hit, scrolled to `anchor`: a conversation entry by its
    permalink (`?u=`, answered with the page of its turn), a fire turn by `?from=` (the page of
    the prompt it is tied to)."""
    url = reverse("introspect:session-detail", args=[sid])
    if uuid:
        url += "?" + urlencode({"u": uuid})
    elif epoch:
        url += f"?from={epoch}"
    return url + (f"#{anchor}" if anchor else "")


def kind_of(entry: TranscriptEntry) -> str:
    """What a line is, as a person would name it; mirrors the session page's transcript-entry partial."""
    if entry.type == "user":
        if entry.is_prompt:
            return "prompt"
        if entry.is_compact_summary:
            return "summary"
        if entry.tool_result_id:
            return "result"
        return "injected" if entry.is_meta else "user"
    if entry.type == "assistant":
        if entry.tool_use_id:
            return "tool"
        return "thinking" if entry.subtype == "thinking" else "reply"
    if entry.type == "attachment":
        return "context" if entry.hook_event else "attachment"
    if entry.type in ("ai-title", "custom-title"):
        return "title"
    return entry.type or "line"


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
