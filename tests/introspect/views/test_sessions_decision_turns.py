"""Under each turn of the session page, what agent-ways' scan saw (decisions-and-effectiveness.md §8.3),
the turn tied to its prompt as fire turns are, which log saw each turn, and every disagreement between
the decision log and the events (§8.2), on the bundled sample's S08."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from introspect.models import DecisionRecord, Session
from introspect.queries import conversation

pytestmark = pytest.mark.django_db
S08 = "624f720e-9e95-4496-9c1a-bbb81681fbd4"


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_every_prompt_of_s08_has_its_decision_turn_under_it(client, sample):
    page = client.get(f"/sessions/{S08}/").content.decode()
    assert page.count('class="decision-turn"') == 15  # one per prompt: 15 turn_start scans
    # Keyed where the prompt hook injected ways (its UserPromptSubmit attachment), else by time, said so.
    keyed = 'title="tied to the transcript prompt by its UserPromptSubmit injection within 8 s">keyed'
    assert page.count(keyed) == 7  # the prompts whose hook injected a way
    assert "heuristic: ambiguous: 2 prompts within 8 s" in page  # the two prompts 3 s apart
    assert "heuristic: no prompt injection within 8 s" in page
    words = text(page)
    assert "keyword matched “squash”, probability 0.0759 below the floor 0.15" in words
    assert "fell back: deadline" in words
    assert "judge p_yes 0.21 against" not in words  # a shadow verdict has no threshold in the record
    assert "judge p_yes 0.21: would_block" in words
    assert words.count("recall_miss") >= 2 and "no_scan_id" in words and "refused: not found" in words


def test_each_turn_says_which_log_saw_it_and_the_disagreement_is_listed(client, sample):
    page = client.get(f"/sessions/{S08}/").content.decode()
    sources = re.findall(r'class="badge badge--muted turn-source"[^>]*>([^<]+)<', page)
    assert len(sources) == 15 and set(sources) == {"decision log and events", "decision log"}
    box = text(page[page.index('class="decision-disagreements"') :][:2000])
    assert "1 disagreement" in box
    assert "the opening scan showed build, and no fire turn of the events begins in this turn" in box
    assert "fires no more than 3 s apart are one fire turn" in box


def test_the_turns_cost_at_most_the_three_queries_the_section_had(client, sample):
    """Records, the trunk's prompts and injections, the fire turns: the candidate and outcome rows
    are read from the records' own lines."""
    client.get(f"/sessions/{S08}/")
    with CaptureQueriesContext(connection) as with_log:
        client.get(f"/sessions/{S08}/")
    DecisionRecord.objects.filter(session__sid=S08).delete()
    with CaptureQueriesContext(connection) as without:
        client.get(f"/sessions/{S08}/")
    assert len(with_log) - len(without) <= 2  # the one query for the records is paid either way


def test_a_prompt_the_live_tail_brings_has_its_decision_turn_under_it(client, sample):
    session = Session.objects.get(sid=S08)
    last = list(conversation.trunk_prompts(session))[-2]
    tail = client.get(
        f"/sessions/{S08}/live/conversation/",
        {"after": f"{last.offset}.{last.index}", "fire": session.turn_count},
        headers={"HX-Request": "true"},
    ).content.decode()
    assert tail.count('class="decision-turn"') == 1 and "<html" not in tail


def test_an_ancestor_block_gives_the_ancestors_figures_as_the_ancestors(client, sample):
    words = text(client.get("/sessions/1b42442e-838e-4e3a-84ea-1c80d37e1214/").content.decode())
    assert (
        "the judge did not see it: its ancestor softwaredev/delivery was blocked "
        "(the ancestor's p_yes 0.05 against threshold 0.3, enforce)"
    ) in words
    assert "judge p_yes 0.05 against threshold 0.3 (enforce)" in words  # the ancestor's own block
