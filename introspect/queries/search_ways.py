"""Way-id hits: turns whose fired way ids contain every term (a substring scan, newest first), each
turn one hit with its matching way ids marked."""

from __future__ import annotations

import re

from django.db.models import Q

from introspect.models import Turn, TurnWay
from introspect.queries.search_filters import SearchFilters
from introspect.queries.search_results import Hit, session_url


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
