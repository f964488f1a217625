"""Introspection pages: the session list, a session's turns and events, the import status."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from introspect import queries
from introspect.models import Session
from waysweb.htmx import HtmxHttpRequest, render_page
from waysweb.params import int_param


@require_GET
def session_list(request: HtmxHttpRequest) -> HttpResponse:
    filters = queries.SessionFilters(
        project=int_param(request, "project"),
        q=request.GET.get("q", "").strip()[:200],
        sort=request.GET.get("sort", "newest"),
    )
    page = queries.session_list(filters, page=int_param(request, "page", 1) or 1)
    context = {
        "page": page,
        "filters": filters,
        "projects": queries.projects_for_filter(),
        "sorts": list(queries.SORTS),
        "nav": "sessions",
    }
    return render_page(request, "introspect/session_list.html", context, fragment="session-rows")


@require_GET
def session_detail(request: HtmxHttpRequest, session_id: str) -> HttpResponse:
    session = get_object_or_404(Session.objects.select_related("project"), sid=session_id)
    after = int_param(request, "after")
    if after is not None:
        # Live follow: only what was imported after the cursor, plus a fresh poller.
        events = queries.events_after(session, after)
        context = {"session": session, "new_events": events,
                   "cursor": events[-1].pk if events else after}
        return render_page(request, "introspect/session_detail.html", context, fragment="event-tail")
    turns = queries.turns_for_session(session)
    way_ids = {row.way_id for turn in turns for row in turn.ways.all()}
    ways = queries.ways_by_id(way_ids, session.project)
    queries.attach_evidence(turns, ways, session)
    exchanges = queries.conversation_by_turn(session, turns)
    for turn in turns:
        turn.exchange = exchanges.get(turn.pk)
    context = {
        "session": session,
        "turns": turns,
        "conversation": [] if turns else queries.conversation(session),
        "subagents": queries.subagents_by_tool_use(session),
        "ways": ways,
        "events": queries.events_for_session(session, page=int_param(request, "page", 1) or 1),
        "cursor": queries.last_event_id(session),
    }
    return render_page(request, "introspect/session_detail.html", context, fragment="event-log")


@require_GET
def import_status(request: HtmxHttpRequest) -> HttpResponse:
    context = {**queries.import_status(), "nav": "status"}
    return render_page(request, "introspect/import_status.html", context, fragment="source-table")


