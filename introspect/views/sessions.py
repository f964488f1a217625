"""Introspection pages: the session list, a session's turns and events, the import status."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_safe

from introspect.queries import sessions as queries
from introspect.models import Session, Subagent
from ledger import adr_queries
from ledger import queries as ledger_queries
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


def turn_context(session: Session, turns: list) -> dict:
    """Everything a page of turns shows: rows with evidence, exchanges, near-misses, subagents."""
    way_ids = {row.way_id for turn in turns for row in turn.ways.all()}
    ways = queries.ways_by_id(way_ids, session.project)
    queries.attach_evidence(turns, ways, session)
    exchanges = queries.conversation_by_turn(session, turns)
    misses = queries.near_misses_by_turn(session, turns)
    reflections = ledger_queries.entries_by_turn(session, turns)
    for turn in turns:
        turn.ledger_entries = reflections.get(turn.pk, [])
        turn.exchange = exchanges.get(turn.pk)
        turn.near_misses = misses.get(turn.pk, [])
        # Spans are marked in the prompt only where the turn is keyed to that prompt.
        turn.prompt_spans = [row.matched_span for row in turn.ways.all()
                             if row.trigger_channel == "keyword" and row.matched_span] \
            if turn.join_confidence == "keyed" else []
    return {"turns": turns, "ways": ways, "subagents": queries.subagents_by_tool_use(session)}


@require_safe
def session_detail(request: HtmxHttpRequest, session_id: str) -> HttpResponse:
    session = get_object_or_404(Session.objects.select_related("project", "transcript"), sid=session_id)
    live_after = int_param(request, "live_after")
    if live_after is not None:
        # Live follow: turns after the cursor, the last known turn again (it may have grown),
        # and a fresh poller. Turn numbers are stable, so the cursor is an epoch.
        turns = queries.turns_page(session, after=max(live_after - 1, 0))
        context = {"session": session, **turn_context(session, turns), "live_after": live_after,
                   "cursor": turns[-1].epoch if turns else live_after}
        return render_page(request, "introspect/session_detail.html", context, fragment="turn-live")
    start = max(int_param(request, "from", 1) or 1, 1)
    turns = queries.turns_page(session, start=start)
    windows = queries.window_spans(session)
    context = {
        "session": session,
        **turn_context(session, turns),
        "start": start,
        "next_start": turns[-1].epoch + 1 if turns and turns[-1].epoch < session.turn_count else None,
        "prev_start": max(start - queries.TURNS_PER_PAGE, 1) if start > 1 else None,
        "windows": windows,
        "peak_context": queries.peak_context(windows),
        "decisions": adr_queries.records_mentioned(*ledger_queries.entry_texts(session), session.title),
        "conversation": [] if session.turn_count else queries.conversation(session),
        "cursor": turns[-1].epoch if turns else 0,
        "nav": "sessions",
    }
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
    agent = get_object_or_404(Subagent.objects.select_related("session", "spawn_entry"),
                              session__sid=session_id, agent_id=agent_id)
    context = {"session": agent.session, "agent": agent, "entries": queries.subagent_conversation(agent),
               "subagents": {}, "nav": "sessions"}
    return render_page(request, "introspect/subagent_detail.html", context, fragment="subagent-conversation")
