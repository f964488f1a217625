"""Transcript-text matches in the database's own full-text index (FTS5 on SQLite, a `simple` tsvector
on PostgreSQL): the person's terms as quoted phrases, the filters as SQL, identical lines of a
session grouped (`TextGroup`), counted and paged, and the engine's snippets cut into pieces."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from django.db import connection

from introspect.models import Session, TranscriptEntry
from introspect.queries.search_filters import KIND_SQL, SearchFilters

FTS_TABLE = "introspect_transcriptentry_fts"  # created by migration 0005_search
# Counting every match of a common word costs a join per match: count this far, then say "more".
TEXT_COUNT_CAP = 10_000
SNIPPET_TOKENS = 24
# Private-use code points: they never reach the page, the pieces do.
OPEN, CLOSE = "\ue000", "\ue001"
ELLIPSIS = "…"
# Lines that are "the same hit": one session (and subagent), one kind of line, the same text.
SAME_HIT = "e.session_id, e.agent_id, e.type, e.subtype, e.is_prompt, e.tool_name, e.text"


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
