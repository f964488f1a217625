"""The session page's fixed links: its project's sessions, agent-ways' documents of the session, the
fire-turn list, the URLs its two live pollers ask, and the links of its event log and subagent
pages. Built here so the template prints them (the list page builds its own with `{% querystring %}`);
the paging links are conversation.page_query and conversation.fires_query."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlencode

from django.urls import reverse

from introspect.models import Session, Subagent

# The documents as the page offers them: only the ways that matched (agent-ways' `--matched`).
MATCHED = {"matched": 1}


@dataclass(frozen=True)
class SessionLinks:
    project_sessions: str  # the session list filtered to the session's project; "" without one
    dump: str
    replay: str
    replay_window: str  # the replay of one compaction window: replay.js appends the window's number
    fire_list: str  # the page's own fire-turn list, relative to the page


def session_links(session: Session) -> SessionLinks:
    dump = reverse("introspect:api-session-dump", args=[session.sid])
    replay = reverse("introspect:api-session-replay", args=[session.sid])
    project = ""
    if session.project_id is not None:
        project = f"{reverse('introspect:session-list')}?{urlencode({'project': session.project_id})}"
    return SessionLinks(
        project_sessions=project,
        dump=f"{dump}?{urlencode(MATCHED)}",
        replay=f"{replay}?{urlencode(MATCHED)}",
        replay_window=f"{replay}?{urlencode(MATCHED | {'window': ''})}",
        fire_list=f"?{urlencode({'view': 'fires'})}",
    )


def turns_poller(session: Session, after: int) -> str:
    """Live follow of the fire-turn list: the turns after fire turn `after` (views/session_live.py)."""
    url = reverse("introspect:session-turns-live", args=[session.sid])
    return f"{url}?{urlencode({'after': after})}"


def conversation_poller(session: Session, cursor: str, fire: int) -> str:
    """Live follow of the conversation: the entries after `cursor` ("offset.index"; a page that
    shows none follows from the top) and the fire turns after `fire`."""
    url = reverse("introspect:session-conversation-live", args=[session.sid])
    return f"{url}?{urlencode({'after': cursor or '-1.0', 'fire': fire})}"


def fire_turn_links(session: Session, epochs: Iterable[int | None]) -> dict[int, str]:
    """The event log's link to each of these fire turns, by epoch: the session page `from` the turn,
    which lands on the page of the conversation that shows it."""
    url = reverse("introspect:session-detail", args=[session.sid])
    return {epoch: f"{url}?{urlencode({'from': epoch})}#turn-{epoch}" for epoch in set(epochs) if epoch}


def events_poller(session: Session, cursor: int) -> str:
    """Live follow of the event log: the events imported after row `cursor`."""
    url = reverse("introspect:session-events", args=[session.sid])
    return f"{url}?{urlencode({'after': cursor})}"


def subagent_part(agent: Subagent, part: int) -> str:
    """A part of a subagent's run, past the first."""
    url = reverse("introspect:subagent-detail", args=[agent.session.sid, agent.agent_id])
    return f"{url}?{urlencode({'part': part})}"
