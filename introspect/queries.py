"""Reads for the introspection pages: each returns exactly what a template may show."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.paginator import Page, Paginator
from django.db.models import Count, F, Prefetch, Q, QuerySet

from introspect.models import Project, Quarantine, Session, SourceFile, Turn, TurnWay, Way, WaysEvent
from introspect.rebuild import EVENT_ORDER

SESSIONS_PER_PAGE = 50
EVENTS_PER_PAGE = 500


@dataclass(frozen=True)
class SessionFilters:
    project: int | None = None
    q: str = ""
    sort: str = "newest"


SORTS = {
    "newest": (F("started_at").desc(nulls_last=True), "-pk"),
    "oldest": (F("started_at").asc(nulls_last=True), "pk"),
    "fires": ("-total_fires", "-pk"),
    "turns": ("-turn_count", "-pk"),
    "duration": ("-duration_secs", "-pk"),
}


def session_list(filters: SessionFilters, *, page: int) -> Page:
    """Sessions newest first (by origin), filtered by project and a text match on id or project."""
    sessions = Session.objects.select_related("project")
    if filters.project:
        sessions = sessions.filter(project_id=filters.project)
    if filters.q:
        sessions = sessions.filter(Q(sid__icontains=filters.q) | Q(project__path__icontains=filters.q))
    sessions = sessions.order_by(*SORTS.get(filters.sort, SORTS["newest"]))
    return Paginator(sessions, SESSIONS_PER_PAGE).get_page(page)


def projects_for_filter() -> QuerySet[Project]:
    return Project.objects.annotate(session_count=Count("sessions")).filter(session_count__gt=0).order_by("name")


def turns_for_session(session: Session) -> list[Turn]:
    """Every turn with its rows in order, and each row's event (one query per level)."""
    rows = TurnWay.objects.select_related("event", "judge_event").order_by("position")
    return list(session.turns.order_by("epoch").prefetch_related(Prefetch("ways", queryset=rows)))


def events_for_session(session: Session, *, page: int = 1) -> Page:
    """Every event of the session in event order (the log, not only turn material)."""
    return Paginator(WaysEvent.objects.filter(session=session).order_by(*EVENT_ORDER), EVENTS_PER_PAGE).get_page(page)


def events_after(session: Session, after: int) -> list[WaysEvent]:
    """Events imported after the row `after` (live follow: one indexed id > cursor lookup)."""
    return list(WaysEvent.objects.filter(session=session, pk__gt=after).order_by("pk"))


def last_event_id(session: Session) -> int:
    return WaysEvent.objects.filter(session=session).order_by("-pk").values_list("pk", flat=True).first() or 0


def ways_by_id(way_ids: set[str], project: Project | None) -> dict[str, Way]:
    """The way file that resolves each id today: project root first, then user, then core."""
    rank = {Way.RootKind.PROJECT: 0, Way.RootKind.USER: 1, Way.RootKind.CORE: 2}
    found: dict[str, Way] = {}
    candidates = Way.objects.filter(way_id__in=way_ids, present=True).filter(
        Q(project__isnull=True) | Q(project=project)
    )
    for way in sorted(candidates, key=lambda w: rank[w.root_kind]):
        found.setdefault(way.way_id, way)
    return found


def import_status() -> dict:
    """Per-source counters and quarantine counts for the status page."""
    return {
        "sources": SourceFile.objects.order_by("kind", "root", "rel_path", "generation"),
        "quarantine_by_reason": Quarantine.objects.values("reason").annotate(n=Count("pk")).order_by("-n"),
        "quarantine": Quarantine.objects.select_related("source").order_by("-pk")[:50],
    }
