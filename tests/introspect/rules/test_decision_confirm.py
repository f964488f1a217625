"""Turns confirmed: which source saw each prompt's turn, and every place the decision log's turns and the
events' fire turns disagree (rules/decision_confirm.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from introspect.rules.decision_confirm import (
    BOTH,
    DECISION,
    EVENTS,
    DecisionMark,
    FireMark,
    disagreements,
    turn_sources,
)


def at(second: int) -> datetime:
    return datetime(2026, 11, 6, 10, 0, second, tzinfo=UTC)


def test_each_prompt_says_which_source_saw_its_turn():
    decisions = [DecisionMark(0, at(0), 1, ("a",)), DecisionMark(1, at(20), 2, ())]
    fires = [FireMark(1, at(0), 1, True), FireMark(2, at(40), 3, False)]
    assert turn_sources(decisions, fires) == {1: BOTH, 2: DECISION, 3: EVENTS}


def test_agreeing_turns_have_no_disagreement():
    decisions = [DecisionMark(0, at(0), 1, ("a",)), DecisionMark(1, at(20), 2, ())]
    fires = [FireMark(1, at(1), 1, True), FireMark(2, at(25), 2, False)]  # a tool-lane fire later in turn 2
    assert disagreements(decisions, fires) == []


def test_fires_of_two_prompts_clustered_into_one_fire_turn_are_a_disagreement():
    decisions = [DecisionMark(0, at(0), 1, ("a",)), DecisionMark(1, at(3), 2, ("b",))]
    fires = [FireMark(4, at(0), 1, True)]
    [found] = disagreements(decisions, fires)
    assert (found.ordinal, found.epoch, found.prompt) == (1, 4, 2)
    assert "showed b" in found.text and "began 3 s before it" in found.text and "one fire turn" in found.text


def test_a_fire_turn_tied_to_another_prompt_than_its_decision_turn_is_a_disagreement():
    decisions = [DecisionMark(0, at(0), 1, ()), DecisionMark(1, at(30), 9, ())]
    fires = [FireMark(1, at(2), 9, False)]  # placed by time at the later prompt
    [found] = disagreements(decisions, fires)
    assert (found.ordinal, found.epoch) == (0, 1) and "different prompts" in found.text


def test_a_keyed_fire_turn_at_a_prompt_without_a_scan_is_a_disagreement_but_session_start_fires_are_not():
    decisions = [DecisionMark(0, at(10), 1, ())]
    fires = [FireMark(1, at(0), None, False), FireMark(2, at(30), 5, True)]
    found = disagreements(decisions, fires)
    assert [(d.ordinal, d.epoch, d.prompt) for d in found] == [(None, 2, 5)]
    assert "no turn_start scan" in found[0].text


def test_a_session_without_decision_turns_has_nothing_to_confirm():
    assert disagreements([], [FireMark(1, at(0), 1, True)]) == []
