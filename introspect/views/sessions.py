"""Introspection pages: the session list, a session's turns and events, the import status."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_safe

from introspect.models import Session, Subagent
from introspect.queries import sessions as queries
from lib.htmx import HtmxHttpRequest, render_page
from lib.params import date_param, int_param


# Read views take GET and HEAD (require_safe, where STYLE.md §0 says require_GET): a HEAD is a GET
# without its body, and monitors, link checkers and `curl -I` send it.
@require_safe
def session_list(request: HtmxHttpRequest) -> HttpResponse:
    filters = queries.SessionFilters(
        project=int_param(request, "project"),
        q=request.GET.get("q", "").strip()[:200],
        sort=request.GET.get("sort", "newest"),
        since=date_param(request, "since"),
        until=date_param(request, "until"),
        model=request.GET.get("model", "").strip()[:100],
        transcript=request.GET.get("transcript", ""),
        live=request.GET.get("live") == "1",
    )
    page = queries.session_list_page(filters, page=int_param(request, "page", 1) or 1)
    context = {
        "page": page,
        "filters": filters,
        "projects": queries.projects_for_filter(),
        "models": queries.models_for_filter(),
        "sorts": list(queries.SORTS),
        "nav": "sessions",
    }
    return render_page(request, "introspect/session_list.html", context, fragment="session-rows")


@require_safe
def session_detail(request: HtmxHttpRequest, session_id: str) -> HttpResponse:
    session = get_object_or_404(Session.objects.select_related("project", "transcript"), sid=session_id)
    live_after = int_param(request, "live_after")
    if live_after is not None:
        context = {"session": session, **queries.session_live_tail(session, after=live_after)}
        return render_page(request, "introspect/session_detail.html", context, fragment="turn-live")
    start = max(int_param(request, "from", 1) or 1, 1)
    context = {"session": session, **queries.session_detail_page(session, start=start), "nav": "sessions"}
    return render_page(request, "introspect/session_detail.html", context, fragment="turn-page")


@require_safe
def session_events(request: HtmxHttpRequest, session_id: str) -> HttpResponse:
    session = get_object_or_404(Session.objects.select_related("project"), sid=session_id)
    after = int_param(request, "after")
    if after is not None:
        events = queries.events_after(session, after)
        context = {"session": session, "new_events": events, "cursor": events[-1].pk if events else after}
        return render_page(request, "introspect/session_events.html", context, fragment="event-tail")
    context = {
        "session": session,
        "events": queries.events_for_session(session, page=int_param(request, "page", 1) or 1),
        "cursor": queries.last_event_id(session),
        "nav": "sessions",
    }
    return render_page(request, "introspect/session_events.html", context, fragment="event-log")


@require_safe
def subagent_detail(request: HtmxHttpRequest, session_id: str, agent_id: str) -> HttpResponse:
    agent = get_object_or_404(
        Subagent.objects.select_related("session", "spawn_entry"), session__sid=session_id, agent_id=agent_id
    )
    context = {
        "session": agent.session,
        "agent": agent,
        "entries": queries.subagent_conversation(agent),
        "summary": queries.subagent_summary(agent),
        "subagents": {},
        "nav": "sessions",
    }
    return render_page(request, "introspect/subagent_detail.html", context, fragment="subagent-conversation")
