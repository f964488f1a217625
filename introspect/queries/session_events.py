"""A session's event log: every agent-ways event in event order, and those imported since a cursor."""

from __future__ import annotations

from django.core.paginator import Page, Paginator

from introspect.derive.session_inputs import EVENT_ORDER
from introspect.models import Session, WaysEvent
from introspect.queries import event_turns

EVENTS_PER_PAGE = 500


def events_for_session(session: Session, *, page: int = 1) -> Page:
    """Every event of the session in event order (the log, not only turn material)."""
    return Paginator(
        event_turns.with_turns(WaysEvent.objects.filter(session=session)).order_by(*EVENT_ORDER),
        EVENTS_PER_PAGE,
    ).get_page(page)


def events_after(session: Session, after: int) -> list[WaysEvent]:
    """Events imported after the row `after` (live follow: one indexed id > cursor lookup)."""
    return list(
        event_turns.with_turns(WaysEvent.objects.filter(session=session, pk__gt=after)).order_by("pk")
    )


def last_event_id(session: Session) -> int:
    return WaysEvent.objects.filter(session=session).order_by("-pk").values_list("pk", flat=True).first() or 0
