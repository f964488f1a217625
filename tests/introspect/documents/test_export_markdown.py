"""The Markdown export: the conversation turn by turn, tools fenced, the ways each turn injected."""

from __future__ import annotations

import pytest

from introspect.documents import export_markdown
from introspect.queries import export as queries
from tests.introspect import plain_session
from tests.introspect.export_session import COMMAND, OUTPUT, REPLY, export_session

pytestmark = pytest.mark.django_db


def exported(session) -> str:
    return "".join(export_markdown.markdown_export(session, queries.export_chunks(session)))


def test_it_writes_each_turn_under_its_heading_in_order(home):
    text = exported(export_session(home))
    assert text.startswith("# Session `exp00000-1111-4222-8333-444455556666`")
    first, second = text.index("## Turn 1"), text.index("## Turn 2")
    assert first < text.index("> please cut the release") < text.index(REPLY) < second
    assert second < text.index("Tests pass.")


def test_it_fences_tool_calls_and_results_so_nothing_inside_closes_the_fence(home):
    text = exported(export_session(home))
    assert "**Tool call: Bash**" in text and f"```bash\n{COMMAND}\n```\n" in text
    # The output holds ``` lines of its own: its fence is one backtick longer.
    assert f"Result:\n\n````\n{OUTPUT.rstrip()}\n````\n" in text
    assert "*Thinking*" in text and "```\nconsider the tags\n```" in text


def test_it_lists_the_ways_each_turn_injected_and_those_withheld(home):
    text = exported(export_session(home))
    turn_one = text[text.index("## Turn 1") : text.index("## Turn 2")]
    assert "> **Ways injected** at turn 1 (agent-ways epoch 1)" in turn_one
    assert "> - `delivery/release` · keyword · matched “release”" in turn_one
    assert "> - `delivery/changelog` · keyword · withheld: context_cap" in turn_one
    assert "`softwaredev/testing` · embed:en · score 0.7100" in text[text.index("## Turn 2") :]


def test_it_keeps_agent_html_and_images_inert(home):
    text = exported(export_session(home))
    assert "<script>" not in text and "&lt;script>alert('x')&lt;/script>" in text
    assert "![pixel]" not in text and "!\\[pixel](https://evil.example/p.png)" in text


def test_a_fence_is_longer_than_any_backtick_run_inside():
    assert export_markdown.fenced("a\n`````\nb") == "``````\na\n`````\nb\n``````\n"
    assert export_markdown.fenced("plain", "json") == "```json\nplain\n```\n"


def test_it_writes_an_interruption_as_a_mark_and_what_was_typed_as_the_next_prompt(home):
    text = exported(plain_session.plain_session(home))

    turn_one, turn_two = (
        text[: text.index("## Turn 2")],
        text[text.index("## Turn 2") : text.index("## Turn 3")],
    )
    assert "*Interrupted by the user at a tool call*" in turn_one and "[Request interrupted" not in text
    assert turn_two.index("**User**") < turn_two.index(plain_session.TYPED)
    assert "while the agent worked" not in text  # the queue's bookkeeping is not written
