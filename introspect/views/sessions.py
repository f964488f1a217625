"""Introspection pages: the session list, a session's turns and events, the import status."""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlencode

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe
from django_htmx.http import reswap, retarget

from introspect import services
from introspect.forms import SessionPageForm, SubagentPageForm
from introspect.models import Session, Subagent
from introspect.queries import conversation, decision_scans, entry_cards, session_links, subagents
from introspect.queries import session_events as event_queries
from introspect.queries import session_list as list_queries
from introspect.queries import session_page as session_page_queries
from introspect.views.secrets import can_reveal
from lib import viewers
from lib.converters import dom_id
from lib.htmx import HtmxHttpRequest, render_page, wants_fragment
from lib.params import date_param, int_param, parse_int

MAX_TURNS = 2**31 - 1  # SeenMark.turns is a 32-bit column on PostgreSQL


# Read views take GET and HEAD (require_safe, where STYLE.md §0 says require_GET): a HEAD is a GET
# without its body, and monitors, link checkers and `curl -I` send it.
@require_safe
def session_list(request: HtmxHttpRequest) -> HttpResponse:
    filters = list_queries.SessionFilters(
        project=int_param(request, "project"),
        q=request.GET.get("q", "").strip()[:200],
        sort=request.GET.get("sort", "newest"),
        since=date_param(request, "since"),
        until=date_param(request, "until"),
        model=request.GET.get("model", "").strip()[:100],
        transcript=request.GET.get("transcript", ""),
        live=request.GET.get("live") == "1",
    )
    list_import = list_queries.session_list_import()
    if wants_fragment(request) and list_import.importing and request.GET.get("after") == list_import.cursor:
        # The poller's question, and nothing changed: a fresh poller in its own place, not the rows.
        response = render(
            request, "introspect/session_list.html#session-poller", {"list_import": list_import}
        )
        return retarget(reswap(response, "outerHTML"), "#session-poller")
    page = list_queries.session_list_page(
        filters, page=int_param(request, "page", 1) or 1, viewer=viewers.viewer_of(request)
    )
    context = {
        "page": page,
        "filters": filters,
        "list_import": list_import,
        "projects": list_queries.projects_for_filter(),
        "models": list_queries.models_for_filter(),
        "sorts": list(list_queries.SORTS),
        "nav": "sessions",
    }
    return render_page(request, "introspect/session_list.html", context, fragment="session-rows")


@require_safe
def session_detail(request: HtmxHttpRequest, session_id: str) -> HttpResponse:
    """The conversation page by page (`turn`, `part`), a permalink to one entry (`u`), a fire turn
    (`from`, redirected to the page that shows it) or the fire-turn list (`view=fires`)."""
    session = Session.objects.select_related("project", "transcript").filter(sid=session_id).first()
    if session is None:
        return short_id(request, session_id, "introspect:session-detail")
    ask = SessionPageForm.read(request)
    if wants_fragment(request) and (tail := old_poller(session, ask)):
        # A page opened before the tails had URLs of their own polls the page's: sent on (htmx
        # follows the redirect with its headers, so it gets the fragment).
        return redirect(tail)
    url = reverse("introspect:session-detail", args=[session.sid])
    return jump(session, url, ask) or session_page(request, session, ask)


def old_poller(session: Session, ask: dict) -> str | None:
    """The live tail an old poller's query (`live_after`; `after` and `fire`) asks for, if it is one."""
    if ask["live_after"] is not None:
        return session_links.turns_poller(session, ask["live_after"])
    if ask["after"] is not None:
        offset, index = ask["after"]
        return session_links.conversation_poller(session, f"{offset}.{index}", ask["fire"])
    return None


def jump(session: Session, url: str, ask: dict) -> HttpResponse | None:
    """A permalink to an entry, or a fire turn of a session with a conversation: a redirect to the
    page of the conversation that shows it; None when there is no such place."""
    if ask["u"] and (entry := conversation.entry_by_uuid(session, ask["u"])):
        turn, part = conversation.turn_of_entry(session, entry)
        # From a search hit: the page says which entry to open whole (`hit`) and the words to mark.
        hit = {"hit": ask["u"], **ask["search"]} if ask["search"] else {}
        return redirect(page_url(url, turn, part, seen=ask["seen"], extra=hit) + f"#u-{dom_id(ask['u'])}")
    epoch = ask["from"]
    if epoch is not None and not ask["fires_view"] and session.transcript_id is not None:
        place = conversation.turn_of_fire(session, epoch)
        if place is not None:
            return redirect(page_url(url, *place, extra=ask["search"]) + f"#turn-{epoch}")
    return None


def session_page(request: HtmxHttpRequest, session: Session, ask: dict) -> HttpResponse:
    """A page of the conversation, or of the fire-turn list (a session without a transcript, or
    `view=fires`, from fire turn `from`); a whole page moves the viewer's seen mark."""
    turn = ask["turn"]
    part = conversation.last_part_of(session, turn) if ask["last_part"] else ask["part"]
    fires_from = max(ask["from"] or 1, 1) if ask["fires_view"] or session.transcript_id is None else None
    # A whole page counts from the viewer's mark; a later page of it (infinite scroll, the jump
    # link) from the mark the first page was drawn with, carried in `seen` / `seen_turns`, since
    # opening the first page has already moved the mark past it.
    viewer = viewers.viewer_of(request)
    whole = not wants_fragment(request)
    mark = session_page_queries.seen_mark(session, viewer) if whole else None
    since = ask["seen"] if ask["seen"] is not None else (mark.position if mark else None)
    since_turns = ask["seen_turns"]
    if since_turns is None and mark is not None:
        since_turns = mark.turns
    page = session_page_queries.session_detail_page(
        session, turn=turn, part=part, fires_from=fires_from, since=since, since_turns=since_turns
    )
    context = {
        "session": session,
        **page,
        "nav": "sessions",
        "tools_collapsed": tools_collapsed(request),
        "open_uuid": ask["hit"],
        "reveal": can_reveal(request),
    }
    # The decision log: its section atop a whole page, and on every page of the conversation (a later
    # one loaded in place too) each prompt's decision turn.
    decisions = decision_scans.session_decisions(session) if whole or page["mode"] != "fires" else None
    if whole:
        context["decisions"] = decisions
    if page["mode"] != "fires":
        context["page"] = replace(page["page"], items=decision_scans.place_on(page["page"].items, decisions))
    if page["mode"] == "fires":
        context["turn_poller"] = session_links.turns_poller(session, page["fire_cursor"])
    else:
        context["conversation_poller"] = session_links.conversation_poller(
            session, page["page"].cursor, page["fire_cursor"]
        )
    opening = whole and request.method == "GET"
    if opening and not viewer.known:
        # A browser that brought no viewer cookie gets one and no mark: a client that keeps no
        # cookies (a script, a crawler) would add a row on every request. The page asks for this
        # visit's mark once the browser holds the cookie (session_seen).
        context["first_look"] = {"at": conversation.newest_position(session), "turns": session.turn_count}
    fragment = "turn-page" if page["mode"] == "fires" else "conversation-page"
    response = render_page(request, "introspect/session_detail.html", context, fragment=fragment)
    if opening:
        if viewer.known:
            # After rendering, so this visit's divider is drawn from where the last one stopped.
            newest = conversation.newest_position(session)
            services.seen_mark_move(
                session=session, viewer=viewer, position=newest, turns=session.turn_count, current=mark
            )
        viewers.remember(request, response, viewer)
    return response


# The reader's choice of tool calls collapsed to one line each, set by static/js/tools.js: read here so
# a page, its next pages and its live entries arrive drawn that way (no script needed to draw them).
TOOLS_COOKIE = "waysweb-tools"


def tools_collapsed(request: HtmxHttpRequest) -> bool:
    return request.COOKIES.get(TOOLS_COOKIE) == "collapsed"


@require_POST
def session_seen(request: HtmxHttpRequest, session_id: str) -> HttpResponse:
    """A first visit's mark, asked for by its page on load: written only when the browser came back
    with the viewer cookie that visit set, and only if it has no mark on the session yet (a later
    visit moves it). Nothing to show: 204."""
    session = get_object_or_404(Session, sid=session_id)
    viewer = viewers.viewer_of(request)
    position = conversation.parse_position(request.POST.get("at", ""))
    turns = parse_int(request.POST.get("turns"), low=0, high=MAX_TURNS)
    wanted = viewer.known and position is not None and turns is not None
    if wanted and session_page_queries.seen_mark(session, viewer) is None:
        services.seen_mark_move(session=session, viewer=viewer, current=None, position=position, turns=turns)
    return HttpResponse(status=204)


def short_id(request: HtmxHttpRequest, prefix: str, route: str) -> HttpResponse:
    """An id that is no session's, read as the start of one (the list shows 8 characters): the one
    session it starts is a redirect to its page (query string kept), several a page listing them,
    none the 404."""
    matches = list_queries.sessions_by_prefix(prefix)
    if not matches:
        raise Http404("no such session")
    if len(matches) == 1:
        url = reverse(route, args=[matches[0].sid])
        query = request.GET.urlencode()
        return redirect(f"{url}?{query}" if query else url)
    context = {"prefix": prefix, "matches": matches, "route": route, "nav": "sessions"}
    return render(request, "introspect/session_prefix.html", context)


def page_url(
    url: str,
    turn: int,
    part: int,
    *,
    seen: tuple[int, int] | None = None,
    extra: dict[str, str] | None = None,
) -> str:
    params = {**({"turn": turn} if turn or part else {}), **({"part": part} if part else {})}
    if seen is not None:
        params["seen"] = f"{seen[0]}.{seen[1]}"
    params |= extra or {}
    return f"{url}?{urlencode(params)}" if params else url


@require_safe
def session_events(request: HtmxHttpRequest, session_id: str) -> HttpResponse:
    session = Session.objects.select_related("project").filter(sid=session_id).first()
    if session is None:
        return short_id(request, session_id, "introspect:session-events")
    after = int_param(request, "after")
    if after is not None:
        events = event_queries.events_after(session, after)
        context = {
            "session": session,
            "new_events": events,
            "turn_links": turn_links(session, events),
            "events_poller": session_links.events_poller(session, events[-1].pk if events else after),
        }
        return render_page(request, "introspect/session_events.html", context, fragment="event-tail")
    events = event_queries.events_for_session(session, page=int_param(request, "page", 1) or 1)
    context = {
        "session": session,
        "events": events,
        "turn_links": turn_links(session, events.object_list),
        "events_poller": session_links.events_poller(session, event_queries.last_event_id(session)),
        "nav": "sessions",
    }
    return render_page(request, "introspect/session_events.html", context, fragment="event-log")


def turn_links(session: Session, events) -> dict[int, str]:
    """The link of each fire turn the events sit in (or after, by time), by epoch."""
    return session_links.fire_turn_links(
        session, (epoch for event in events for epoch in (event.fired_turn, event.after_turn))
    )


@require_safe
def entry_code(request: HtmxHttpRequest, session_id: str, entry_id: int, slot: str) -> HttpResponse:
    """One code box of an entry, coloured: the page drew it plain past its highlighting budget and
    its script swaps this in when the box comes into view (static/js/app.js)."""
    session = get_object_or_404(Session, sid=session_id)
    box = entry_cards.entry_code(session, entry_id, slot)
    if box is None:
        raise Http404("no such code box")
    return render(request, "introspect/partials/entry.html#code-box", {"box": box})


@require_safe
def subagent_detail(request: HtmxHttpRequest, session_id: str, agent_id: str) -> HttpResponse:
    agent = get_object_or_404(
        Subagent.objects.select_related("session", "spawn_entry", "source"),
        session__sid=session_id,
        agent_id=agent_id,
    )
    ask = SubagentPageForm.read(request)
    items, next_part = subagents.subagent_conversation(agent, part=ask["part"])
    context = {
        "session": agent.session,
        "agent": agent,
        "items": items,
        "next_part": next_part,
        "more_link": session_links.subagent_part(agent, next_part) if next_part else "",
        "summary": subagents.subagent_summary(agent),
        "subagents": {},
        "nav": "sessions",
        "tools_collapsed": tools_collapsed(request),
        "open_uuid": ask["hit"],
        "reveal": can_reveal(request),
    }
    return render_page(request, "introspect/subagent_detail.html", context, fragment="subagent-conversation")
