"""The session page as a plain Claude Code user reads it (issue 25): a compact header, agent-ways
words only where there are agent-ways data, one numbering of turns, interruptions as marks,
thinking as collapsed Markdown, tool calls as one-line <details>, one meaning of "tokens"."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command

from introspect.models import TranscriptEntry
from introspect.views import sessions as views
from tests.conftest import append, line
from tests.introspect import plain_session

pytestmark = pytest.mark.django_db


def page(client, sid: str = plain_session.SID, **cookies) -> str:
    for name, value in cookies.items():
        client.cookies[name] = value
    return client.get(f"/sessions/{sid}/").content.decode()


def head_of(body: str) -> str:
    return body[body.index('<section class="page-head session-head">') : body.index("</section>")]


def text_of(markup: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", markup).split())


def test_a_plain_session_says_nothing_of_agent_ways(client, home):
    plain_session.plain_session(home)

    body = page(client)

    main = body[body.index("<main>") : body.index("</main>")]
    for word in plain_session.AGENT_WAYS_WORDS:
        assert word not in text_of(main), word
    assert 'class="tabs"' not in main and "Export" in head_of(body)


def test_the_header_is_the_title_and_one_bar_with_the_rest_under_more(client, home):
    session = plain_session.plain_session(home)

    head = head_of(page(client))

    title = head[head.index("<h1") : head.index("</h1>")]
    assert plain_session.TITLE in title and session.sid not in title
    bar = head[head.index('<div class="session-bar">') : head.index('<details class="session-more">')]
    total = session.input_tokens + session.output_tokens
    total += session.cache_read_input_tokens + session.cache_creation_input_tokens
    for fact in (session.sid[:8], "3 turns", plain_session.MODEL, f"{total / 1000:.1f}K tokens", "$0."):
        assert fact in text_of(bar), fact
    # The peak context of the one window the session ran with (claude-opus-4-6: 1000K).
    assert f"{session.peak_context_tokens / 1000:.1f}K of 1000K context" in text_of(bar)
    more = head[head.index('<details class="session-more">') :]
    assert '<details class="session-more">' in more and " open" not in more.split(">")[0]
    for label in ("Session", "Project", "Started (UTC)", "Peak context", "Context window", "Tokens", "Cost"):
        assert f"<dt>{label}</dt>" in more, label
    assert session.sid in more


def test_the_header_names_one_window_where_claude_code_compacted_below_the_models(client, home):
    session = plain_session.plain_session(home)
    session.compaction_marks = [{"ts": "", "trigger": "auto", "pre_tokens": 160_000}]
    session.save()

    head = head_of(page(client))

    assert "of 200K context" in text_of(head) and "of 1000K" not in text_of(head)
    assert "200K (auto-compacted; the model allows 1000K)" in text_of(head)


def test_an_interruption_is_a_mark_and_what_was_typed_is_the_next_turns_prompt(client, home):
    plain_session.plain_session(home)

    body = page(client)

    mark = body[body.index('class="entry entry--interrupt"') :]
    assert "Interrupted by the user" in text_of(mark[: mark.index("</p>")])
    assert body.index('class="entry entry--interrupt"') < body.index('id="t-2"')
    turn_2 = body[body.index('id="t-2"') :]
    prompt = turn_2[turn_2.index("<blockquote") : turn_2.index("</blockquote>")]
    assert (
        "prompt--queued" in prompt
        and plain_session.TYPED in prompt
        and "typed while the agent worked" in prompt
    )
    prompts = re.findall(r"<blockquote[^>]*data-prompt[^>]*>(.*?)</blockquote>", body, re.S)
    assert len(prompts) == 3 and not any("[Request interrupted" in text for text in prompts)
    assert "entry--queued" not in body  # no queue rows: their words are the prompt, or there were none


def test_thinking_is_collapsed_markdown_with_one_timestamp(client, home):
    plain_session.plain_session(home)

    body = page(client)

    thinking = body[body.index('<details hx-disable class="entry entry--thinking"') :]
    thinking = thinking[: thinking.index("</details>")]
    summary = thinking[: thinking.index("</summary>")]
    assert "Look at parser.py first" in summary and "`" not in summary  # its first words, plain
    assert "<code>parser.py</code>" in thinking and "<strong>torn</strong>" in thinking
    assert "<pre" not in thinking and thinking.count("<time") == 1


def test_tool_calls_are_details_open_unless_the_reader_collapsed_them(client, home):
    plain_session.plain_session(home)

    opened = page(client)
    collapsed = page(client, **{views.TOOLS_COOKIE: "collapsed"})

    cards = re.findall(r"<details class=\"entry tool-card[^>]*>", opened)
    assert len(cards) == 4 and all(" open" in card for card in cards)
    assert not any(
        " open" in card for card in re.findall(r"<details class=\"entry tool-card[^>]*>", collapsed)
    )
    # A call's message usage is inside its card (it folds away with it), before the call's result.
    card = opened[opened.index('<details class="entry tool-card') :]
    assert card.index("message-usage") < card.index("tool-result-head")
    assert "data-tools-toggle" in opened and "collapse all tool calls" in opened
    assert "expand all tool calls" in collapsed


def test_a_tool_calls_one_line_says_its_name_what_and_how_it_ended(client, home):
    plain_session.plain_session(home)

    body = page(client)

    heads = [
        text_of(summary)
        for summary in re.findall(r'<summary class="tool-head" hx-disable>(.*?)</summary>', body, re.S)
    ]
    assert heads[0].startswith("Bash Run the parser tests ✓")
    assert heads[1].startswith(f"Read {plain_session.PROJECT}/parser.py ✓")
    assert heads[2].startswith("Bash Run every test rejected")
    assert heads[3].startswith("Task [Explore] Find the torn-line test ✓")


def test_a_subagent_reads_in_tokens_as_everything_else_does(client, home):
    plain_session.plain_session(home)

    body = text_of(page(client))

    # Its run (its own file: 6 in, 520 out, 70,000 cache read, 2,200 cache write) and Claude Code's
    # count of its last call, each named for what it adds up.
    assert "72.7K tokens in all ( 6 in · 520 out · 70.0K cache read · 2.2K cache write )" in body
    assert f"{plain_session.AGENT_TOTAL / 1000:.1f}K tokens in its last call" in body


def test_the_reading_changes_cost_no_query(client, home, django_assert_max_num_queries):
    plain_session.plain_session(home)
    page(client)  # the viewer's first visit writes its mark
    # 18, as before the header and the cards changed (measured on the commit before them), and one
    # for the decision log's section (empty here: one query says so), one for the outcome signals
    # of the turns the page shows (queries/turn_outcomes.py).
    with django_assert_max_num_queries(20):
        client.get(f"/sessions/{plain_session.SID}/")


def test_a_fire_turn_is_named_by_its_conversation_turn_and_its_epoch_is_a_detail(client, home):
    sid = "fire-0000-1111-2222-333344445555"
    append(
        home.live,
        line(ts="2026-03-05T10:00:00Z", event="session_start", session=sid, project="/p"),
        line(ts="2026-03-05T10:00:21Z", event="way_fired", way="d/a", trigger="keyword", session=sid),
    )

    def prompt(uuid: str, second: int, text: str) -> dict:
        stamp = f"2026-03-05T10:00:{second:02d}.000Z"
        return {
            "type": "user",
            "uuid": uuid,
            "sessionId": sid,
            "timestamp": stamp,
            "message": {"content": text},
        }

    home.transcript("/p", sid, prompt("u1", 1, "first"), prompt("u2", 20, "second"))
    call_command("ingest", stdout=StringIO())

    body = client.get(f"/sessions/{sid}/").content.decode()

    fire = body[body.index('id="turn-1"') :]
    header = text_of(fire[fire.index("<header>") : fire.index("</header>")])
    assert header.startswith("ways at turn 2") and "epoch 1" in header and "ways turn" not in header
    assert body.index('id="t-2"') < body.index('id="turn-1"')
    assert 'class="tabs"' in body and "Event log (2)" in body  # agent-ways data: its views are there
    listed = client.get(f"/sessions/{sid}/", {"view": "fires"}).content.decode()
    assert "fire turn 1</a>" in listed  # the fire-turn list is agent-ways' own: its numbering
    # Live follow redraws the last fire turn (it may grow): under the same name.
    u2 = TranscriptEntry.objects.get(session__sid=sid, uuid="u2")
    tail = client.get(
        f"/sessions/{sid}/live/conversation/",
        {"after": f"{u2.offset}.{u2.index}", "fire": 1},
        headers={"HX-Request": "true"},
    ).content.decode()
    assert 'hx-swap-oob="outerHTML:#turn-1"' in tail and "ways at turn 2</a>" in tail


def test_the_list_counts_tokens_as_the_session_page_does(client, home):
    session = plain_session.plain_session(home)
    total = session.input_tokens + session.output_tokens
    total += session.cache_read_input_tokens + session.cache_creation_input_tokens

    listed = client.get("/").content.decode()

    row = listed[listed.index(f'href="/sessions/{session.sid}/"') :]
    assert f">{total / 1000:.1f}K</td>" in row[: row.index("</tr>")]
    assert f"{total / 1000:.1f}K tokens" in text_of(head_of(page(client)))
