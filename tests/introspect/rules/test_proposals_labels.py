"""Proposals from relevance labels, over hand-made labelled fires (the label model is not wired yet)."""

from __future__ import annotations

import json

from introspect.rules.proposals_labels import (
    LabelledFire,
    alternatives,
    calibration_probes,
    pattern_narrowing,
    project_toggles,
    vocabulary_review,
)

WAY = "softwaredev/delivery/commits"


def fire(prompt, verdict, channel="semantic:embedding:en", project="/p/web"):
    return LabelledFire(way=WAY, project=project, channel=channel, prompt=prompt, verdict=verdict)


def test_vocabulary_words_only_irrelevant_prompts_share_are_suspect():
    fires = [
        fire("we need a commitment to the schedule, not a squash of scope", "irrelevant"),
        fire("squash these two commits", "relevant"),
        fire("the scope of the atomic project", "irrelevant"),
        fire("commit message for this", "unsure"),
        fire("atomic scope", "irrelevant", channel="keyword"),  # a keyword fire: not the alias's fault
    ]
    review = vocabulary_review(fires, "commit message squash scope atomic")
    # scope and atomic: in irrelevant prompts only; squash also in a relevant one.
    assert review.suspect_words == ("scope", "atomic")
    assert review.vocabulary_after == "commit message squash"
    assert [f.prompt for f in review.irrelevant] == [fires[0].prompt, fires[2].prompt]
    assert review.relevant == 1


def test_no_irrelevant_semantic_fire_no_review():
    assert vocabulary_review([fire("commit it", "relevant")], "commit") is None


def test_top_level_alternatives_only():
    assert alternatives(r"\bcommit\b|(a|b)|[|x]|c\|d") == [r"\bcommit\b", "(a|b)", "[|x]", r"c\|d"]


def test_a_pattern_loses_the_alternatives_only_irrelevant_prompts_matched():
    fires = [
        fire("we are committed to friday", "irrelevant", channel="keyword"),
        fire("the committee meets", "irrelevant", channel="keyword"),
        fire("commit this", "relevant", channel="keyword"),
    ]
    narrowed = pattern_narrowing(fires, r"\bcommit\b|committ?ee|committed")
    assert narrowed.dropped == ("committ?ee", "committed")
    assert narrowed.pattern_after == r"\bcommit\b"
    assert len(narrowed.irrelevant) == 2


def test_a_pattern_is_never_narrowed_to_nothing():
    fires = [fire("commit to friday", "irrelevant", channel="keyword")]
    narrowed = pattern_narrowing(fires, r"\bcommit\b")
    assert (narrowed.dropped, narrowed.pattern_after, len(narrowed.irrelevant)) == ((), "", 1)
    assert pattern_narrowing([fire("x", "irrelevant")], "x") is None  # no keyword fire


def test_a_toggle_where_a_project_says_irrelevant_three_times_and_never_relevant():
    fires = [fire(f"prompt {n}", "irrelevant", project="/p/infra") for n in range(3)]
    fires += [fire("a", "irrelevant", project="/p/web"), fire("b", "irrelevant", project="/p/web")]
    fires += [fire(f"c{n}", "irrelevant", project="/p/docs") for n in range(3)]
    fires += [fire("d", "relevant", project="/p/docs")]
    toggles = project_toggles(fires)
    # infra: 3 irrelevant; web: only 2; docs: one relevant label keeps it on.
    assert [(t.project, len(t.irrelevant)) for t in toggles] == [("/p/infra", 3)]


def test_calibration_probes_in_agent_ways_shape():
    fires = [
        fire("squash these commits", "relevant"),
        fire("let's commit to friday", "irrelevant"),
        fire("let's commit to friday", "irrelevant"),  # once per (prompt, way, label)
        fire("what now", "unsure"),
    ]
    rows = [json.loads(line) for line in calibration_probes(fires).splitlines()]
    assert rows == [
        {"prompt": "squash these commits", "way": WAY, "label": 1},
        {"prompt": "let's commit to friday", "way": WAY, "label": 0},
    ]
