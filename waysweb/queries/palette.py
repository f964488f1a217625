"""What the command palette offers for a typed text: pages, sessions, ways and decision records.

It spans both apps (sessions and ways are introspect's, decision records the ledger's), so it lives
in the project package, above them. At most three queries, each with a LIMIT, whatever is typed.
"""

from __future__ import annotations

from django.db.models import Case, IntegerField, Q, Value, When
from django.urls import reverse

from introspect.models import Session, Way
from ledger.models import AdrRecord
from waysweb.documents.palette import PaletteDocument, PaletteItem

SESSIONS = 8
WAYS = 5
DECISIONS = 5
# Longer text matches nothing a person types to jump somewhere; the cap keeps the LIKEs short.
MAX_QUERY = 200

# (label, URL name, other words it is found by)
PAGES = (
    ("Sessions", "introspect:session-list", "home conversations transcripts"),
    ("Ways", "introspect:way-list", "guidance fired"),
    ("Ledger", "ledger:ledger-index", "entries notes handoff"),
    ("Knowledge", "ledger:candidate-list", "review queue candidates promote"),
    ("Decisions", "ledger:record-list", "adr records"),
    ("Search", "introspect:search-results", "find"),
    ("Import status", "introspect:import-status", "importer files problems"),
)


def palette_document(text: str) -> PaletteDocument:
    """Pages first (no query), then sessions (id prefix, title, project; an id prefix ranks first,
    then newest), ways (id), and decision records (id, title). An empty text lists every page and
    the newest sessions, so the palette is useful before the first key."""
    text = text.strip()[:MAX_QUERY]
    items = pages(text) + sessions(text)
    if text:
        items += ways(text) + decisions(text)
    return PaletteDocument(query=text, items=items)


def pages(text: str) -> list[PaletteItem]:
    wanted = text.lower()
    return [
        PaletteItem(kind="page", label=label, url=reverse(name))
        for label, name, words in PAGES
        if wanted in f"{label} {words}".lower()
    ]


def sessions(text: str) -> list[PaletteItem]:
    rows = Session.objects.select_related("project").only(
        "sid", "title", "first_prompt", "started_at", "project__name", "project__path"
    )
    if text:
        rows = rows.filter(
            Q(sid__istartswith=text) | Q(title__icontains=text) | Q(project__path__icontains=text)
        ).annotate(
            by_id=Case(
                When(sid__istartswith=text, then=Value(0)), default=Value(1), output_field=IntegerField()
            )
        )
        rows = rows.order_by("by_id", "-started_at", "sid")
    else:
        rows = rows.order_by("-started_at", "sid")
    return [
        PaletteItem(
            kind="session",
            label=session.title or session.first_prompt[:120] or session.sid,
            detail=" · ".join(part for part in (session.sid[:8], project_name(session)) if part),
            url=reverse("introspect:session-detail", args=[session.sid]),
        )
        for session in rows[:SESSIONS]
    ]


def project_name(session: Session) -> str:
    return session.project.name if session.project else ""


def ways(text: str) -> list[PaletteItem]:
    # A way found under several roots (project, user, core) is one way page.
    found = (
        Way.objects.filter(present=True, way_id__icontains=text)
        .values_list("way_id", flat=True)
        .distinct()
        .order_by("way_id")[:WAYS]
    )
    return [
        PaletteItem(kind="way", label=way_id, url=reverse("introspect:way-detail", args=[way_id]))
        for way_id in found
    ]


def decisions(text: str) -> list[PaletteItem]:
    found = (
        AdrRecord.objects.filter(present=True)
        .filter(Q(canonical_id__icontains=text) | Q(title__icontains=text))
        .only("pk", "canonical_id", "title", "repo")
        .order_by("repo", "canonical_id", "pk")[:DECISIONS]
    )
    return [
        PaletteItem(
            kind="decision",
            label=f"{record.canonical_id} {record.title}".strip(),
            detail=record.repo.rstrip("/").rpartition("/")[2],
            url=reverse("ledger:record-detail", args=[record.pk]),
        )
        for record in found
    ]
