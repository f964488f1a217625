"""The session page's fixed links, built in Python so the template prints them
(introspect/queries/session_links.py)."""

from __future__ import annotations

from types import SimpleNamespace

from introspect.queries import session_links


def test_it_links_the_projects_sessions_the_matched_documents_and_the_fire_list():
    links = session_links.session_links(SimpleNamespace(sid="s-1", project_id=7))

    assert links.project_sessions == "/?project=7"
    assert links.dump == "/api/sessions/s-1/dump.json?matched=1"
    assert links.replay == "/api/sessions/s-1/replay.json?matched=1"
    assert links.replay_window == "/api/sessions/s-1/replay.json?matched=1&window="  # + the window's number
    assert links.fire_list == "?view=fires"


def test_a_session_without_a_project_links_no_project():
    assert session_links.session_links(SimpleNamespace(sid="s", project_id=None)).project_sessions == ""


def test_the_live_pollers_ask_the_tails_own_urls_from_where_the_page_stops():
    session = SimpleNamespace(sid="s-1")
    assert session_links.turns_poller(session, 4) == "/sessions/s-1/live/turns/?after=4"
    tail = "/sessions/s-1/live/conversation/"
    assert session_links.conversation_poller(session, "120.3", 4) == f"{tail}?after=120.3&fire=4"
    # A page that shows no entry follows from the top.
    assert session_links.conversation_poller(session, "", 0) == f"{tail}?after=-1.0&fire=0"


def test_the_event_log_links_each_fire_turn_once_and_follows_from_its_last_row():
    session = SimpleNamespace(sid="s-1")
    links = session_links.fire_turn_links(session, [3, None, 3, 5, 0])
    assert links == {3: "/sessions/s-1/?from=3#turn-3", 5: "/sessions/s-1/?from=5#turn-5"}
    assert session_links.events_poller(session, 42) == "/sessions/s-1/events/?after=42"


def test_a_subagents_later_part_is_its_page_with_the_part():
    agent = SimpleNamespace(session=SimpleNamespace(sid="s-1"), agent_id="a9")
    assert session_links.subagent_part(agent, 2) == "/sessions/s-1/agents/a9/?part=2"
