"""The session list and session page: full pages, htmx fragments, bounded queries."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from io import StringIO

import pytest
from django.core.management import call_command
from django.template.loader import render_to_string
from django.test import Client
from django.urls import resolve, reverse
from django.utils import timezone

from introspect.models import Session, TranscriptEntry
from introspect.rules import highlight, usage
from introspect.views import sessions as views
from introspect.views import status as status_views
from tests.conftest import append, line
from tests.faults import conftest as faults
from tests.introspect.usage_session import SID as USAGE_SID
from tests.introspect.usage_session import write_session

pytestmark = pytest.mark.django_db


def imported(home, sessions: int = 3) -> None:
    for n in range(sessions):
        sid = f"sess-{n:04d}-aaaa-bbbb"
        append(
            home.live,
            line(
                ts=f"2026-11-0{n + 1}T10:00:00Z",
                event="session_start",
                project=f"/src/proj{n % 2}",
                session=sid,
            ),
            line(
                ts=f"2026-11-0{n + 1}T10:00:05Z",
                event="way_fired",
                way="d/a",
                trigger="keyword",
                matched_span="commit",
                session=sid,
                token_position="1500",
            ),
            line(
                ts=f"2026-11-0{n + 1}T10:00:06Z",
                event="way_fired",
                way="d/s",
                trigger="semantic:embedding:en",
                fire_score="0.6220",
                surface="<script>alert(1)</script>",
                session=sid,
            ),
            line(
                ts=f"2026-11-0{n + 1}T10:00:06Z",
                event="way_suppressed",
                way="d/b",
                trigger="bash",
                reason="context_cap",
                session=sid,
            ),
            line(
                ts=f"2026-11-0{n + 1}T10:30:00Z",
                event="session_start",
                project=f"/src/proj{n % 2}",
                session=sid,
            ),
            line(
                ts=f"2026-11-0{n + 1}T10:30:10Z",
                event="way_redisclosed",
                way="d/a",
                trigger="keyword",
                session=sid,
            ),
        )
    home.way(home.core_ways, "d/a", "pattern: commit\nscope: agent")
    call_command("ingest", stdout=StringIO())


def test_it_routes_names_both_ways():
    assert reverse("introspect:session-list") == "/"
    assert reverse("introspect:session-detail", args=["abc"]) == "/sessions/abc/"
    assert reverse("introspect:import-status") == "/status/"
    assert reverse("introspect:session-events", args=["abc"]) == "/sessions/abc/events/"
    assert reverse("introspect:subagent-detail", args=["abc", "a1"]) == "/sessions/abc/agents/a1/"
    assert reverse("introspect:api-session-dump", args=["abc"]) == "/api/sessions/abc/dump.json"
    assert resolve("/sessions/abc/").func is views.session_detail
    assert resolve("/status/").func is status_views.import_status


def test_it_lists_sessions_newest_first_with_their_counts(client, home):
    imported(home)
    response = client.get("/")
    assert response.status_code == 200
    assert response.templates[0].name == "introspect/session_list.html"
    body = response.content.decode()
    positions = [body.index(f'href="/sessions/sess-000{n}-aaaa-bbbb/"') for n in (2, 1, 0)]
    assert positions == sorted(positions)
    page = response.context["page"]
    assert [s.sid for s in page.object_list] == [
        "sess-0002-aaaa-bbbb",
        "sess-0001-aaaa-bbbb",
        "sess-0000-aaaa-bbbb",
    ]
    first = page.object_list[0]
    assert (first.turn_count, first.total_fires, first.compactions, first.duration_secs) == (2, 2, 1, 1810)


def test_it_filters_by_project_and_search(client, home):
    imported(home)
    project = Session.objects.get(sid="sess-0001-aaaa-bbbb").project
    response = client.get("/", {"project": project.pk})
    assert [s.sid for s in response.context["page"].object_list] == ["sess-0001-aaaa-bbbb"]
    response = client.get("/", {"q": "0002"})
    assert [s.sid for s in response.context["page"].object_list] == ["sess-0002-aaaa-bbbb"]
    assert "No session matches" in client.get("/", {"q": "nothing-like-this"}).content.decode()


def test_it_answers_an_htmx_swap_with_the_rows_fragment_only(client, home):
    imported(home)
    response = client.get("/", {"q": "sess"}, headers={"HX-Request": "true"})
    body = response.content.decode()
    assert "<html" not in body and body.lstrip().startswith('<div id="session-rows">')
    boosted = client.get("/", headers={"HX-Request": "true", "HX-Boosted": "true"})
    assert "<html" in boosted.content.decode()
    restore = client.get("/", headers={"HX-Request": "true", "HX-History-Restore-Request": "true"})
    assert "<html" in restore.content.decode()


def test_it_shows_an_empty_state_before_anything_is_imported(client):
    body = client.get("/").content.decode()
    assert "No sessions yet" in body and "manage.py ingest" in body


def test_it_paginates_the_list(client, home, monkeypatch):
    monkeypatch.setattr("introspect.queries.session_list.SESSIONS_PER_PAGE", 2)
    imported(home)
    response = client.get("/", {"page": 2})
    assert [s.sid for s in response.context["page"].object_list] == ["sess-0000-aaaa-bbbb"]
    assert "page 2 of 2" in response.content.decode()


def test_it_shows_a_sessions_turns_with_channel_score_and_span(client, home):
    imported(home, sessions=1)
    response = client.get("/sessions/sess-0000-aaaa-bbbb/")
    assert response.status_code == 200
    body = response.content.decode()
    assert 'id="turn-1"' in body and 'id="turn-2"' in body
    assert "compaction · window 2" in body
    assert "embed:en" in body and "p 0.622" in body and "“commit”" in body
    assert "withheld: 10,000-char hook budget full" in body
    assert "re-disclosed" in body
    assert "heuristic: no transcript" in body and ">keyed<" not in body
    assert "current criteria" in body.lower() and "not necessarily as fired" in body
    assert "No way file with this id exists today" in body  # d/s has no file: criteria not invented


def test_the_session_page_fetches_no_replay_frames_until_the_panel_is_opened(client, home):
    imported(home, sessions=1)
    body = client.get("/sessions/sess-0000-aaaa-bbbb/").content.decode()
    replay_urls = [
        (tag, name, value)
        for tag, attrs in elements(body)
        for name, value in attrs
        if value and "replay.json" in value
    ]
    # The export link (followed only when clicked) and the window endpoint the panel's script reads
    # when opened; no `src`, no `hx-get`/`hx-trigger="load"`, no whole-document URL for a script.
    assert replay_urls == [
        ("a", "href", "/api/sessions/sess-0000-aaaa-bbbb/replay.json?matched=1"),
        (
            "section",
            "data-replay-window-url",
            "/api/sessions/sess-0000-aaaa-bbbb/replay.json?matched=1&window=",
        ),
    ]
    assert '<details data-replay="panel">' in body  # closed: opening it is what loads window 1
    first = client.get(replay_urls[1][2] + "1").json()
    assert first["windows"] == [
        {"window": 1, "frames": 2, "offset": 0},
        {"window": 2, "frames": 2, "offset": 2},
    ]
    assert len(first["frames"]) == 2 and first["frames_total"] == 4


def test_it_repeats_a_ways_current_file_under_each_of_its_rows(client, home):
    imported(home, sessions=1)
    body = client.get("/sessions/sess-0000-aaaa-bbbb/").content.decode()
    # d/a fired in turn 1 and was re-disclosed in turn 2: its file is shown under both rows (the
    # second from the first's HTML); d/s and d/b have no file, each says so under its own row.
    assert body.count('<a href="/ways/d/a/">way page</a>') == 2
    assert body.count("No way file with this id exists today") == 2
    assert 'id="turn-2-way-1" data-way="d/a"' in body
    assert "1.5K of 200K context" in body  # the header's peak context, of the window the session ran with


def test_it_shows_spilled_output_under_the_line_that_names_it(client, home):
    stub = (
        "<persisted-output>\nOutput too large (24.4KB). Full output saved to: "
        "~/.claude/projects/-p/s1/tool-results/{name}\n\nPreview (first 2KB):\n# Way\n</persisted-output>"
    )
    path = home.transcript(
        "/p",
        "s1",
        *(
            {
                "type": "user",
                "uuid": f"m{n}",
                "isMeta": True,
                "sessionId": "s1",
                "message": {"role": "user", "content": stub.format(name=name)},
            }
            for n, name in enumerate(["kept.txt", "lost.txt"])
        ),
    )
    (path.with_suffix("") / "tool-results").mkdir(parents=True)
    (path.with_suffix("") / "tool-results" / "kept.txt").write_text("# Way\nthe whole body")
    call_command("ingest", stdout=StringIO())

    body = client.get("/sessions/s1/").content.decode()

    assert body.count("Full output behind the stub") == 1
    assert "<code>tool-results/kept.txt</code>" in body and "the whole body" in body
    assert (
        'output spilled to <code>tool-results/lost.txt</code>, <span class="badge badge--warn">not found</span>'
        in body
    )


def test_it_marks_a_missing_spill_inside_the_card_of_the_tool_result_it_belongs_to(client, home):
    call = faults.entry("s1", 0, kind="assistant") | {
        "message": {
            "id": "m1",
            "role": "assistant",
            "model": "claude-opus-4-6",
            "content": [
                {"type": "tool_use", "id": "toolu-s1-1", "name": "Bash", "input": {"command": "make"}}
            ],
        }
    }
    home.transcript("/p", "s1", call, faults.spill_stub("s1", 1, "make-output.txt"))
    call_command("ingest", stdout=StringIO())

    body = client.get("/sessions/s1/").content.decode()

    card = body[body.index('<div class="tool-result') :]
    card = card[: card.index('<p class="entry entry--spill">') + 400]
    assert card.count('<div class="tool-result') == 1  # the mark sits in the result's own card
    text = html.unescape(re.sub(r"<[^>]+>", "", card))
    assert "output spilled to tool-results/make-output.txt, not found · looked for 1 time, last at" in text
    assert "Full output behind the stub" not in body


def test_it_escapes_agent_text(client, home):
    imported(home, sessions=1)
    body = client.get("/sessions/sess-0000-aaaa-bbbb/").content.decode()
    assert "<script>alert(1)</script>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body


def test_it_returns_404_for_an_unknown_session(client):
    assert client.get("/sessions/nope/").status_code == 404


def test_it_returns_only_new_events_after_a_cursor(client, home):
    imported(home, sessions=1)
    session = Session.objects.get()
    cursor = session.events.order_by("-pk").first().pk
    append(
        home.live,
        line(ts="2026-11-01T10:40:00Z", event="way_fired", way="d/new", trigger="bash", session=session.sid),
    )
    call_command("ingest", stdout=StringIO())
    response = client.get(
        f"/sessions/{session.sid}/events/", {"after": cursor}, headers={"HX-Request": "true"}
    )
    body = response.content.decode()
    assert "d/new" in body and "d/a" not in body and "<html" not in body


def test_it_bounds_the_queries_per_page(client, home, django_assert_max_num_queries):
    imported(home, sessions=3)
    with django_assert_max_num_queries(6):
        client.get("/")
    with django_assert_max_num_queries(
        15
    ):  # 13, the memory it wrote (ledger provider), the viewer's mark written
        client.get("/sessions/sess-0000-aaaa-bbbb/")
    with django_assert_max_num_queries(6):
        client.get("/sessions/sess-0000-aaaa-bbbb/events/")
    with django_assert_max_num_queries(9):  # its own bound: tests/introspect/views/test_status.py
        client.get("/status/")


def test_it_keeps_queries_flat_as_sessions_grow(client, home, django_assert_max_num_queries):
    imported(home, sessions=8)
    with django_assert_max_num_queries(6):
        client.get("/")


def test_it_sends_a_content_security_policy_with_a_nonce_on_scripts(client):
    response = client.get("/")
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self' 'nonce-" in policy
    nonce = policy.split("'nonce-")[1].split("'")[0]
    assert f'nonce="{nonce}"' in response.content.decode()
    assert response.headers["X-Frame-Options"] == "DENY"


def test_it_refuses_writes_on_read_only_pages():
    assert Client().post("/").status_code == 405


def test_it_explains_a_gated_row_with_its_probability_and_floor(client, home):
    append(
        home.live,
        line(ts="2026-11-01T10:00:00Z", event="session_start", session="g1", project="/p"),
        line(
            ts="2026-11-01T10:00:01Z",
            event="way_keyword_gated",
            way="d/g",
            matched_span="remember",
            prob_en="0.0759",
            prob_multi="",
            floor="0.1500",
            trigger="prompt",
            session="g1",
        ),
    )
    call_command("ingest", stdout=StringIO())
    body = client.get("/sessions/g1/").content.decode()
    assert "keyword matched, vetoed: probability 0.076 below floor 0.15" in body


def long_session(home, turns: int, sid: str = "long") -> None:
    lines = [line(ts="2026-11-01T00:00:00Z", event="session_start", session=sid, project="/p")]
    prompts = []
    for n in range(turns):
        second = 10 * (n + 1)
        stamp = f"2026-11-01T{second // 3600:02d}:{second % 3600 // 60:02d}:{second % 60:02d}"
        lines.append(
            line(
                ts=stamp + "Z",
                event="way_fired",
                way=f"d/w{n % 7}",
                trigger="keyword",
                matched_span="commit",
                session=sid,
                token_position=str(1000 * n),
            )
        )
        lines.append(
            line(
                ts=stamp + "Z",
                event="way_nearmiss",
                way="d/near",
                prob_en="0.47",
                tau_s="0.5",
                margin="0.03",
                session=sid,
            )
        )
        prompts += [
            {
                "type": "user",
                "uuid": f"u{n}",
                "parentUuid": f"a{n - 1}" if n else None,
                "sessionId": sid,
                "timestamp": stamp + ".000Z",
                "message": {"role": "user", "content": f"please commit part {n}"},
            },
            {
                "type": "attachment",
                "uuid": f"i{n}",
                "parentUuid": f"u{n}",
                "sessionId": sid,
                "timestamp": stamp + ".400Z",
                "attachment": {
                    "type": "hook_additional_context",
                    "hookEvent": "UserPromptSubmit",
                    "content": ["w"],
                },
            },
            {
                "type": "assistant",
                "uuid": f"a{n}",
                "parentUuid": f"i{n}",
                "sessionId": sid,
                "timestamp": stamp + ".900Z",
                "requestId": f"r{n}",
                "message": {
                    "id": f"m{n}",
                    "role": "assistant",
                    "model": "claude-opus-4-6",
                    "content": [{"type": "text", "text": f"**done** {n}"}],
                },
            },
        ]
    append(home.live, *lines)
    home.transcript("/p", sid, *prompts)
    call_command("ingest", stdout=StringIO())


def test_it_pages_the_conversation_by_whole_turns_and_keeps_queries_flat_as_the_session_grows(
    client, home, django_assert_max_num_queries
):
    long_session(home, 120, sid="big")  # 3 entries a turn: prompt, hook context, reply
    long_session(home, 5, sid="small")
    # 20, and one for the memory the session wrote (ledger's provider, ledger/queries/memory.py), one
    # for the outcome signals of the turns shown (queries/turn_outcomes.py: one however many turns).
    with django_assert_max_num_queries(22) as small:
        client.get("/sessions/small/")
    with django_assert_max_num_queries(22) as big:
        # A browser of its own, as the first: a first visit writes its viewer's mark, a later one reads it too.
        response = Client().get("/sessions/big/")
    assert len(big.captured_queries) == len(small.captured_queries)
    body = response.content.decode()
    # 200 entries a page, cut at the last turn that fits: turns 1-66 (198 entries).
    assert 'id="t-66"' in body and 'id="t-67"' not in body
    assert 'id="turn-66"' in body and 'id="turn-67"' not in body  # fire turns ride on their prompts
    assert 'href="?turn=67"' in body and 'hx-trigger="revealed"' in body
    page = client.get("/sessions/big/", {"turn": 67}, headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in page and 'id="t-67"' in page and 'id="t-120"' in page and 'id="t-66"' not in page
    assert "?after=" in page  # the last page follows the transcript
    full = client.get("/sessions/big/", {"turn": 67}).content.decode()  # the same URL without JavaScript
    assert "<html" in full and 'id="t-120"' in full and 'href="?turn=66&amp;part=last"' in full


def test_it_sends_a_fire_turn_link_to_the_page_of_its_prompt(client, home):
    long_session(home, 120, sid="big")
    response = client.get("/sessions/big/", {"from": 101})
    assert response.status_code == 302 and response["Location"] == "/sessions/big/?turn=101#turn-101"
    listed = client.get("/sessions/big/", {"view": "fires", "from": 101}).content.decode()
    assert 'id="turn-120"' in listed and "turns 81–100" in listed  # the fire-turn list pages as before


def test_it_lands_a_permalink_on_the_page_that_holds_the_entry(client, home):
    long_session(home, 120, sid="big")
    response = client.get("/sessions/big/", {"u": "a100"})
    # a100 answers u100, the 101st prompt: turn 101.
    assert response.status_code == 302 and response["Location"] == "/sessions/big/?turn=101#u-a100"
    assert 'id="u-a100"' in client.get(response["Location"]).content.decode()


def test_it_marks_the_matched_span_in_a_keyed_prompt_and_lists_near_misses(client, home):
    long_session(home, 2)
    body = client.get("/sessions/long/").content.decode()
    assert '<mark title="matched span recorded when the way fired">commit</mark> part 0' in body
    assert "nearly fired: 0.47 vs τ 0.5" in body and "margin 0.03" in body
    assert "<strong>done</strong> 0" in body  # replies render as sanitised markdown


def test_it_follows_a_live_session_turn_by_turn(client, home, monkeypatch):
    long_session(home, 3)
    monkeypatch.setattr(Session, "is_live", property(lambda self: True))
    first = client.get("/sessions/long/", {"view": "fires"}).content.decode()
    assert 'hx-get="/sessions/long/live/turns/?after=3"' in first
    append(
        home.live,
        line(ts="2026-11-01T00:10:00Z", event="way_fired", way="d/late", trigger="bash", session="long"),
    )
    call_command("ingest", stdout=StringIO())
    live = client.get(
        "/sessions/long/live/turns/", {"after": 3}, headers={"HX-Request": "true"}
    ).content.decode()
    assert 'id="turn-4"' in live and "d/late" in live
    assert 'hx-swap-oob="outerHTML:#turn-3"' in live  # the last known turn is refreshed in place
    assert 'hx-get="/sessions/long/live/turns/?after=4"' in live
    assert timezone.now()


def test_it_follows_the_conversation_as_the_transcript_grows(client, home, monkeypatch):
    long_session(home, 3)
    monkeypatch.setattr(Session, "is_live", property(lambda self: True))
    first = client.get("/sessions/long/").content.decode()
    poll = (
        re.search(r'hx-get="(/sessions/long/live/conversation/\?after=[^"]+)"', first)
        .group(1)
        .replace("&amp;", "&")
    )
    assert "fire=3" in poll
    session = Session.objects.get(sid="long")
    home.transcript(  # appends, as Claude Code does
        "/p",
        "long",
        {
            "type": "user",
            "uuid": "late-prompt",
            "sessionId": "long",
            "timestamp": "2026-11-01T00:20:00.000Z",
            "message": {"role": "user", "content": "and now the docs"},
        },
    )
    call_command("ingest", stdout=StringIO())
    live = client.get(poll, headers={"HX-Request": "true"}).content.decode()
    assert 'id="u-late-prompt"' in live and "and now the docs" in live and 'id="t-4"' in live
    assert "<html" not in live and "/live/conversation/?after=" in live  # and the next poller
    assert session.pk == Session.objects.get(sid="long").pk


def test_it_loads_a_subagent_conversation_on_demand(client, home):
    sid = "with-agent"
    home.transcript(
        "/p",
        sid,
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": sid,
            "timestamp": "2026-11-01T00:00:01.000Z",
            "message": {"role": "user", "content": "explore"},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "sessionId": sid,
            "timestamp": "2026-11-01T00:00:02.000Z",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "Agent",
                        "input": {"description": "find routes", "subagent_type": "Explore", "prompt": "go"},
                    }
                ],
            },
        },
    )
    agent_file = home.root / ".claude" / "projects" / "-p" / sid / "subagents" / "agent-abc.jsonl"
    append(
        agent_file,
        b'{"type":"user","uuid":"s1","isSidechain":true,"agentId":"abc","sessionId":"with-agent",'
        b'"message":{"role":"user","content":"go"}}\n',
    )
    append(
        agent_file,
        b'{"type":"assistant","uuid":"s2","parentUuid":"s1","isSidechain":true,"agentId":"abc",'
        b'"sessionId":"with-agent","timestamp":"2026-11-01T00:00:03.000Z","requestId":"rq",'
        b'"message":{"id":"ms","role":"assistant","model":"claude-haiku-4-5-20251001","content":['
        b'{"type":"tool_use","id":"toolu_s","name":"Grep","input":{"pattern":"route"}}],'
        b'"usage":{"input_tokens":7,"output_tokens":50,"cache_read_input_tokens":0}}}\n',
        b'{"type":"assistant","uuid":"s3","parentUuid":"s2","isSidechain":true,"agentId":"abc",'
        b'"sessionId":"with-agent","timestamp":"2026-11-01T00:00:41.000Z","requestId":"rq2",'
        b'"message":{"id":"ms2","role":"assistant","model":"claude-haiku-4-5-20251001","content":['
        b'{"type":"text","text":"found"}],"usage":{"input_tokens":3,"output_tokens":20,"cache_read_input_tokens":0}}}\n',
    )
    (agent_file.parent / "agent-abc.meta.json").write_text('{"agentType":"Explore","toolUseId":"toolu_1"}')
    call_command("ingest", stdout=StringIO())
    page = client.get(f"/sessions/{sid}/").content.decode()
    assert 'hx-get="/sessions/with-agent/agents/abc/"' in page and "subagent abc · Explore" in page
    # The card under the call says what the run was: model, tokens (named as everywhere), tool calls, duration.
    facts = re.sub(r"<[^>]+>", "", page[page.index('class="muted subagent-facts"') :].split("</p>")[0])
    run = "claude-haiku-4-5-20251001 · 80 tokens in all (10 in · 70 out) · $0.0004 · 1 tool call · 38 s"
    assert facts.endswith(run)
    fragment = client.get(f"/sessions/{sid}/agents/abc/", headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in fragment and "go" in fragment
    assert "<html" in client.get(f"/sessions/{sid}/agents/abc/").content.decode()


def test_it_filters_by_date_model_transcript_and_liveness(client, home):
    imported(home)
    assert [
        s.sid for s in client.get("/", {"since": "2026-11-02", "until": "2026-11-02"}).context["page"]
    ] == ["sess-0001-aaaa-bbbb"]
    assert list(client.get("/", {"transcript": "yes"}).context["page"]) == []
    assert len(client.get("/", {"transcript": "none"}).context["page"]) == 3
    assert list(client.get("/", {"live": "1"}).context["page"]) == []
    assert "No session matches" in client.get("/", {"model": "claude-nothing"}).content.decode()
    assert client.get("/", {"since": "not-a-date"}).status_code == 200


def test_it_renders_hostile_transcript_content_inert(client, home):
    hostile = (
        "<script>alert(1)</script> <img src=x onerror=alert(2)> [click](javascript:alert(3)) "
        '<a href="/x" hx-post="/ledger/x">go</a> <div hx-get="/">raw</div> ![p](http://evil.example/p.png)'
    )
    home.transcript(
        "/p",
        "hostile",
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": "hostile",
            "timestamp": "2026-11-01T00:00:01.000Z",
            "message": {"role": "user", "content": hostile},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "sessionId": "hostile",
            "timestamp": "2026-11-01T00:00:02.000Z",
            "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": hostile}]},
        },
        {
            "type": "assistant",
            "uuid": "a2",
            "parentUuid": "a1",
            "sessionId": "hostile",
            "timestamp": "2026-11-01T00:00:03.000Z",
            "message": {
                "id": "m2",
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": hostile}}
                ],
            },
        },
        {
            "type": "user",
            "uuid": "r1",
            "parentUuid": "a2",
            "sessionId": "hostile",
            "timestamp": "2026-11-01T00:00:04.000Z",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": hostile}],
            },
        },
    )
    call_command("ingest", stdout=StringIO())
    body = client.get("/sessions/hostile/").content.decode()
    conversation = body[body.index('id="conversation"') :]
    tags = elements(conversation)
    assert not [t for t, _ in tags if t in ("script", "img", "iframe", "object", "embed", "style")]
    attributes = [(t, name, value) for t, attrs in tags for name, value in attrs]
    assert not [a for a in attributes if a[1].startswith("on")]
    assert not [a for a in attributes if a[1].startswith(("hx-", "data-hx")) and "/ledger/" in (a[2] or "")]
    assert not [a for a in attributes if a[1] == "hx-get" and a[2] == "/"]
    assert not [
        a
        for a in attributes
        if a[1] in ("href", "src") and (a[2] or "").lower().startswith(("javascript:", "data:"))
    ]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in conversation  # shown as text, never run


def elements(html: str) -> list[tuple[str, list[tuple[str, str | None]]]]:

    found = []

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.append((tag, attrs))

    Collect().feed(html)
    return found


CC_SID = "cc000000-0000-4000-8000-000000000001"


def claude_code_only(home) -> Session:
    def at(second: int) -> str:
        return f"2026-11-29T10:00:{second:02d}.000Z"

    common = {"sessionId": CC_SID, "version": "2.1.180", "cwd": "/home/dev/app"}
    home.transcript(
        "/home/dev/app",
        CC_SID,
        {
            **common,
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "timestamp": at(1),
            "message": {"role": "user", "content": "Why does the <b>parser</b> drop torn lines?"},
        },
        {
            **common,
            "type": "system",
            "subtype": "compact_boundary",
            "uuid": "c1",
            "parentUuid": None,
            "timestamp": at(30),
            "compactMetadata": {"trigger": "auto", "preTokens": 160_000},
        },
        {
            **common,
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "c1",
            "timestamp": at(40),
            "requestId": "r1",
            "message": {
                "id": "m1",
                "role": "assistant",
                "model": "claude-opus-4-6",
                "content": [],
                "usage": {"input_tokens": 3, "output_tokens": 9, "cache_read_input_tokens": 20_000},
            },
        },
        {"type": "ai-title", "aiTitle": "Torn lines in the parser", "sessionId": CC_SID},
    )
    call_command("ingest", stdout=StringIO())
    return Session.objects.get(sid=CC_SID)


def test_it_lists_a_claude_code_sessions_title_and_first_prompt_under_it(client, home):
    claude_code_only(home)
    body = client.get("/").content.decode()
    title, prompt = (
        body.index("Torn lines in the parser"),
        body.index("Why does the &lt;b&gt;parser&lt;/b&gt;"),
    )
    assert title < prompt and "<b>parser" not in body
    row = client.get("/", {"q": "torn lines"}).context["page"].object_list
    assert [s.sid for s in row] == [CC_SID] and row[0].compactions == 1


def test_the_session_facts_partial_says_what_the_transcript_says(home):
    session = claude_code_only(home)
    html = render_to_string("introspect/partials/session_facts.html", {"session": session})
    facts = dict(re.findall(r"<dt>(.*?)</dt><dd[^>]*>(.*?)</dd>", " ".join(html.split())))
    assert facts["First prompt"] == "Why does the &lt;b&gt;parser&lt;/b&gt; drop torn lines?"
    assert facts["Compactions"].startswith("1 ") and "auto at 160" in facts["Compactions"]
    # One window figure: the one the session ran with (compacted automatically at 160K: a 200K
    # window), not the 1000K of its model's table beside a "Context window 200K".
    assert session.window_k == 1000 and session.context_window_k == 200
    assert facts["Peak context"].startswith("20") and "of 200K" in facts["Peak context"]
    assert "Duration from" not in facts


def test_the_list_shows_each_sessions_cost_and_a_dash_when_nothing_is_priced(client, home):
    write_session(home)
    imported(home, sessions=1)  # events only: no message, no cost
    body = client.get("/").content.decode()
    costly = Session.objects.get(sid=USAGE_SID)
    assert costly.unpriced_messages == 1 and costly.cost_usd is not None
    assert f"${costly.cost_usd:.4f}" in body and "1 message of a model with no list price left out" in body
    row = body[body.index('href="/sessions/sess-0000-aaaa-bbbb/"') :]
    row = row[: row.index("</tr>")]
    assert '<span class="muted">—</span></td>' in row


def test_the_session_usage_items_show_tokens_cost_and_what_was_not_priced(home):
    write_session(home)
    session = Session.objects.get(sid=USAGE_SID)
    html = render_to_string("introspect/partials/session_usage.html", {"session": session})
    for label in ("Tokens", "In", "Out", "Cache read", "Cache write", "Cost"):
        assert f"<dt>{label}</dt>" in html
    assert html.count("<div><dt>") == 6 and "<dl" not in html  # items for the header's own <dl>
    total = session.input_tokens + session.output_tokens
    total += session.cache_read_input_tokens + session.cache_creation_input_tokens
    assert f'<dt>Tokens</dt><dd title="in + out + cache read + cache write">{total / 1000:.1f}K</dd>' in html
    assert f"${session.cost_usd:.4f}" in html and "+ 1 unpriced message" in html
    session.cost_usd, session.unpriced_messages = None, 0
    html = render_to_string("introspect/partials/session_usage.html", {"session": session})
    cost = html[html.index("<dt>Cost</dt>") :]
    assert cost[: cost.index("</dd>")].endswith('<span class="muted">—</span>')


def test_a_messages_usage_shows_its_model_tokens_and_cost():
    [priced, unknown] = usage.messages(
        [
            ("m1", "r1", "claude-sonnet-4-6", 1200, 480, 0, 250_000, None, None, None),
            ("m2", "r2", "mystery-model", 1, 2, 0, 0, None, None, None),
        ]
    )
    html = render_to_string("introspect/partials/message_usage.html", {"usage": priced})
    assert "claude-sonnet-4-6" in html and "1.2K in · 480 out · 250.0K cache read</span>" in html
    assert "$0.0858" in html  # 1200·3 + 480·15 + 250,000·0.30 per MTok
    assert "no list price for this model" in render_to_string(
        "introspect/partials/message_usage.html", {"usage": unknown}
    )
    assert render_to_string("introspect/partials/message_usage.html", {"usage": None}).strip() == ""


def test_the_subagent_page_shows_its_models_tokens_tool_calls_and_duration(client, home):
    write_session(home)
    body = client.get(f"/sessions/{USAGE_SID}/agents/x1/").content.decode()
    assert "<dt>Model</dt><dd>claude-haiku-4-5-20251001</dd>" in body
    assert "<dt>Tool calls</dt><dd>2</dd>" in body
    assert "40 s</dd>" in body
    assert 'title="170 output tokens' in body and "$0.0174" in body
    fragment = client.get(
        f"/sessions/{USAGE_SID}/agents/x1/", headers={"HX-Request": "true"}
    ).content.decode()
    assert "<dt>Tool calls</dt>" not in fragment  # the summary is the page's header, not the fragment's


def test_it_pages_a_long_subagent_run_so_every_line_is_reachable(client, home):
    sid = "long-agent"
    home.transcript(
        "/p",
        sid,
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": sid,
            "timestamp": "2026-11-01T00:00:01.000Z",
            "message": {"role": "user", "content": "explore"},
        },
    )
    agent_file = home.root / ".claude" / "projects" / "-p" / sid / "subagents" / "agent-big.jsonl"
    append(
        agent_file,
        *(
            b'{"type":"user","uuid":"s%d","isSidechain":true,"agentId":"big","sessionId":"long-agent",'
            b'"message":{"role":"user","content":"step %d"}}\n' % (n, n)
            for n in range(450)
        ),
    )
    call_command("ingest", stdout=StringIO())
    url, seen = f"/sessions/{sid}/agents/big/", set()
    while url:
        body = client.get(url).content.decode()
        seen |= set(re.findall(r'id="u-(s\d+)"', body))
        found = re.search(r'href="(/sessions/long-agent/agents/big/\?part=\d+)"', body)
        url = found.group(1) if found else None
    assert seen == {f"s{n}" for n in range(450)}


# --- code boxes past the page's highlighting budget ------------------------------------------------

CODE_SID = "code0000-0000-4000-8000-000000000001"


def code_session(home) -> None:
    """A conversation whose cards hold every kind of code box: a command, a Read, an Edit's patch,
    a Write's content, and each call's raw input."""
    entries = [{"type": "user", "uuid": "p1", "message": {"role": "user", "content": "change the code"}}]
    calls = [
        ("Bash", {"command": "ls -la && echo '<b>'"}, "file\n<b>", {"stdout": "file\n<b>", "stderr": ""}),
        (
            "Read",
            {"file_path": "/r/m.py"},
            "1→import os",
            {
                "type": "text",
                "file": {"filePath": "/r/m.py", "content": "import os\n# <i>\n", "startLine": 3},
            },
        ),
        (
            "Edit",
            {"file_path": "/r/m.py", "old_string": "import os", "new_string": "import sys"},
            "ok",
            {
                "filePath": "/r/m.py",
                "oldString": "import os",
                "newString": "import sys",
                "structuredPatch": [
                    {
                        "oldStart": 3,
                        "oldLines": 1,
                        "newStart": 3,
                        "newLines": 1,
                        "lines": ["-import os", "+import sys"],
                    }
                ],
            },
        ),
        (
            "Write",
            {"file_path": "/r/n.py", "content": "def f():\n    return '<x>'\n"},
            "ok",
            {"type": "create"},
        ),
    ]
    for n, (name, tool_input, text, extra) in enumerate(calls):
        block = {"type": "tool_use", "id": f"toolu_{n}", "name": name, "input": tool_input}
        entries.append({"type": "assistant", "uuid": f"c{n}", "message": {"id": f"m{n}", "content": [block]}})
        entries.append(
            {
                "type": "user",
                "uuid": f"r{n}",
                "message": {
                    "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": text}]
                },
                "toolUseResult": extra,
            }
        )
    for n, entry in enumerate(entries):
        entry.update(sessionId=CODE_SID, timestamp=f"2026-11-01T00:00:{n:02d}.000Z")
    home.transcript("/p", CODE_SID, *entries)
    call_command("ingest", stdout=StringIO())


BOX = re.compile(r'<div class="(?:code|diff-box)[^"]*"[^>]*? data-colour-url="([^"]+)"[^>]*>.*?</div>', re.S)


def nonce_free(html: str) -> str:
    return re.sub(r'(nonce="|"x-csrftoken": ")[^"]+', r"\1…", html)


def test_it_serves_each_box_a_page_drew_plain_and_the_page_then_reads_as_if_all_were_coloured(
    client, home, monkeypatch
):
    code_session(home)
    url = f"/sessions/{CODE_SID}/"
    monkeypatch.setattr(highlight, "HIGHLIGHT_PAGE_BUDGET", 0)
    client.get(url)  # a returning browser: a first visit also asks for its seen mark, the next do not
    plain = client.get(url).content.decode()
    highlight.clear_caches()
    monkeypatch.setattr(highlight, "HIGHLIGHT_PAGE_BUDGET", 1 << 30)
    coloured = client.get(url).content.decode()

    fetched = []

    def swap(match: re.Match) -> str:
        response = client.get(html.unescape(match[1]))
        assert response.status_code == 200 and "<html" not in response.content.decode()
        fetched.append(match[1].rsplit("/", 2)[-2])
        return response.content.decode().strip()  # what static/js/app.js puts in the box's place

    assert "data-colour-url" not in coloured
    assert nonce_free(BOX.sub(swap, plain)) == nonce_free(coloured)
    # Every kind of box was deferred and served: command, Read content, patch, Write content, inputs.
    assert sorted(set(fetched)) == ["command", "content", "diff", "input"] and len(fetched) == 8


def test_it_serves_no_box_for_an_unknown_slot_entry_or_session(client, home):
    code_session(home)
    call = TranscriptEntry.objects.get(uuid="c0")
    prompt = TranscriptEntry.objects.get(uuid="p1")
    home.transcript(
        "/p", "other", {"type": "user", "uuid": "o1", "sessionId": "other", "message": {"content": "x"}}
    )
    call_command("ingest", stdout=StringIO())

    assert client.get(f"/sessions/{CODE_SID}/entries/{call.pk}/code/command/").status_code == 200
    assert client.get(f"/sessions/{CODE_SID}/entries/{call.pk}/code/stdout/").status_code == 404
    assert client.get(f"/sessions/{CODE_SID}/entries/{prompt.pk}/code/input/").status_code == 404
    assert client.get(f"/sessions/other/entries/{call.pk}/code/command/").status_code == 404
    assert client.get(f"/sessions/{CODE_SID}/entries/999999/code/command/").status_code == 404


def test_it_reads_a_box_in_two_queries(client, home, django_assert_max_num_queries):
    code_session(home)
    call = TranscriptEntry.objects.get(uuid="c1")
    with django_assert_max_num_queries(2):
        assert client.get(f"/sessions/{CODE_SID}/entries/{call.pk}/code/input/").status_code == 200


def test_it_routes_a_code_box_both_ways():
    assert reverse("introspect:entry-code", args=["abc", 7, "input"]) == "/sessions/abc/entries/7/code/input/"
    assert resolve("/sessions/abc/entries/7/code/input/").func is views.entry_code


def turn_links(body: str) -> list[tuple[str, str]]:
    """The event log's links to turns: (href, text)."""
    return [
        (html.unescape(href), text)
        for href, text in re.findall(r'<a class="turn-link[^"]*" href="([^"]+)"[^>]*>([^<]+)</a>', body)
    ]


def test_each_event_log_row_links_to_its_turn_on_the_session_page(client, home):
    imported(home, sessions=1)
    session = Session.objects.get()
    body = client.get(f"/sessions/{session.sid}/events/").content.decode()
    url = f"/sessions/{session.sid}/"
    rows = re.findall(r"<tr class=\"ev [^\"]*\">(.*?)</tr>", body, re.S)
    turn = {n: (f"{url}?from={n}#turn-{n}", f"turn {n}") for n in (1, 2)}
    assert [turn_links(row) for row in rows] == [
        [],  # the session start at 10:00:00, before any turn
        [turn[1]],  # the two fires and the withheld candidate are rows of turn 1
        [turn[1]],
        [turn[1]],
        [(f"{url}?from=1#turn-1", "by time: turn 1")],  # the second session start: placed by time only
        [turn[2]],  # the re-disclosure after it
    ]
    assert "by time only" not in rows[1]


def test_an_event_that_is_no_row_of_a_turn_links_to_the_turn_before_it_by_time_saying_so(client, home):
    imported(home, sessions=1)
    session = Session.objects.get()
    append(
        home.live,
        line(
            ts="2026-11-01T10:05:00Z", event="way_nearmiss", way="d/c", fire_score="0.4", session=session.sid
        ),
    )
    call_command("ingest", stdout=StringIO())
    body = client.get(f"/sessions/{session.sid}/events/").content.decode()
    row = next(r for r in re.findall(r"<tr class=\"ev [^\"]*\">(.*?)</tr>", body, re.S) if "d/c" in r)
    assert turn_links(row) == [(f"/sessions/{session.sid}/?from=1#turn-1", "by time: turn 1")]
    assert "by time only" in row
    landed = client.get(f"/sessions/{session.sid}/?from=1", follow=True).content.decode()
    assert '<article id="turn-1"' in landed  # the anchor the link names is on the page it opens


def test_the_judges_verdict_on_a_fire_links_to_the_fires_turn_as_keyed(client, home):
    sid = "judged-0000-aaaa"
    append(
        home.live,
        line(ts="2026-11-01T10:00:00Z", event="session_start", project="/src/p", session=sid),
        line(ts="2026-11-01T10:05:00Z", event="way_fired", way="d/a", trigger="bash", session=sid),
        line(
            ts="2026-11-01T10:09:59Z", event="way_judged", way="d/s", verdict="pass", p_yes=0.8, session=sid
        ),
        line(
            ts="2026-11-01T10:10:00Z",
            event="way_fired",
            way="d/s",
            trigger="semantic:embedding:en",
            fire_score="0.6",
            session=sid,
        ),
    )
    call_command("ingest", stdout=StringIO())
    body = client.get(f"/sessions/{sid}/events/").content.decode()
    row = next(r for r in re.findall(r"<tr class=\"ev [^\"]*\">(.*?)</tr>", body, re.S) if "way_judged" in r)
    assert turn_links(row) == [(f"/sessions/{sid}/?from=2#turn-2", "turn 2")]  # not "by time: turn 1"
