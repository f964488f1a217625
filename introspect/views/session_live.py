"""The session page's two live tails, each on its own URL: what was written after the page's last
fire turn, or after its last entry. An htmx poller asks them; anyone else (a person opening the URL,
a page without JavaScript) is sent to the session page at the place the tail would follow from."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_safe

from introspect import services
from introspect.forms import ConversationTailForm, TurnTailForm
from introspect.models import Session
from introspect.queries import conversation, decision_scans, session_links
from introspect.queries import session_page as session_page_queries
from introspect.views.secrets import can_reveal
from introspect.views.sessions import page_url, tools_collapsed
from lib import viewers
from lib.converters import dom_id
from lib.htmx import HtmxHttpRequest, render_page, wants_fragment

TEMPLATE = "introspect/session_detail.html"


@require_safe
def session_turns_live(request: HtmxHttpRequest, session_id: str) -> HttpResponse:
    """The fire turns after `after`, the last one again (it may have grown), and the next poller."""
    session = get_object_or_404(Session.objects.select_related("project", "transcript"), sid=session_id)
    after = TurnTailForm.read(request)["after"] or 0
    if not wants_fragment(request):
        return not_a_poller(fires_place(session, after))
    tail = session_page_queries.session_live_tail(session, after=after)
    context = {
        "session": session,
        **tail,
        "turn_poller": session_links.turns_poller(session, tail["fire_cursor"]),
    }
    viewer = viewers.viewer_of(request)
    if tail["turns"] and viewer.known:
        # What the open page follows, it has seen: the list shows no badge for it.
        mark = session_page_queries.seen_mark(session, viewer)
        services.seen_mark_move(session=session, viewer=viewer, current=mark, turns=tail["fire_cursor"])
    return render_page(request, TEMPLATE, context, fragment="turn-live")


@require_safe
def session_conversation_live(request: HtmxHttpRequest, session_id: str) -> HttpResponse:
    """The entries after `after` and the fire turns after `fire`, and the next poller."""
    session = get_object_or_404(Session.objects.select_related("project", "transcript"), sid=session_id)
    ask = ConversationTailForm.read(request)
    after = ask["after"] or (-1, 0)
    if not wants_fragment(request):
        return not_a_poller(conversation_place(session, after))
    tail = session_page_queries.session_conversation_tail(session, after=after, fire_after=ask["fire"])
    if any(item.entry is not None and item.entry.is_prompt for item in tail["items"]):
        # A new prompt gets its decision turn as a page does (queries paid only when one arrives);
        # a scan logged after its prompt was drawn shows on the next load of the page.
        tail["items"] = decision_scans.place_on(tail["items"], decision_scans.session_decisions(session))
    context = {
        "session": session,
        **tail,
        "tools_collapsed": tools_collapsed(request),
        "conversation_poller": session_links.conversation_poller(
            session, tail["cursor"], tail["fire_cursor"]
        ),
        "reveal": can_reveal(request),
    }
    viewer = viewers.viewer_of(request)
    if tail["items"] and viewer.known:
        services.seen_mark_move(
            session=session,
            viewer=viewer,
            current=session_page_queries.seen_mark(session, viewer),
            position=conversation.parse_position(tail["cursor"]),
            turns=session.turn_count,
        )
    return render_page(request, TEMPLATE, context, fragment="conversation-live")


def not_a_poller(place: str) -> HttpResponse:
    # The same URL answers a poller with a fragment: a cache must keep the two apart.
    response = redirect(place)
    response["Vary"] = "HX-Request"
    return response


def fires_place(session: Session, after: int) -> str:
    """The fire-turn list from the turn the tail follows from, at that turn."""
    url = reverse("introspect:session-detail", args=[session.sid])
    if after < 1:
        return url + conversation.fires_query(1)
    return f"{url}{conversation.fires_query(after)}#turn-{after}"


def conversation_place(session: Session, after: tuple[int, int]) -> str:
    """The page of the conversation that shows the entry the tail follows from, at that entry; the
    session page itself when it follows from the top."""
    url = reverse("introspect:session-detail", args=[session.sid])
    entry = conversation.entry_at_or_before(session, after)
    if entry is None:
        return url
    return page_url(url, *conversation.turn_of_entry(session, entry)) + f"#u-{dom_id(entry.uuid)}"
