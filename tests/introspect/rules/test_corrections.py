"""A prompt corrects the reply before it when it refuses it, names its fault, swaps one thing for
another, or restates the ask with changes; its precision and recall are held on a labelled sample."""

import json
from pathlib import Path

import pytest

from introspect.rules import corrections
from introspect.rules.corrections import correction_cue, is_correction

LABELS = Path(__file__).with_name("correction_labels.jsonl")
# Measured when the rule was written (121 prompts, 7 corrections): 6 found, 0 false, 1 missed ("I
# can't commit to a migration date yet, leave the rollout section open"); the page shows them.


def labelled():
    return [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_sample_is_large_enough_and_holds_both_classes():
    rows = labelled()
    assert len(rows) == corrections.LABELLED_PROMPTS >= 60
    assert {row["correction"] for row in rows} == {True, False}
    assert len({row["prompt"] for row in rows}) == len(rows)


def test_precision_and_recall_on_the_labelled_sample_stay_at_the_measured_values():
    rows = labelled()
    said = [is_correction(row["prompt"], row["previous"]) for row in rows]
    true_positive = sum(1 for row, yes in zip(rows, said, strict=True) if yes and row["correction"])
    precision = true_positive / sum(said)
    recall = true_positive / sum(1 for row in rows if row["correction"])
    assert (true_positive, sum(said)) == corrections.PRECISION  # as the page states them
    assert (true_positive, sum(1 for row in rows if row["correction"])) == corrections.RECALL
    assert precision >= corrections.PRECISION[0] / corrections.PRECISION[1]
    assert recall >= corrections.RECALL[0] / corrections.RECALL[1]


@pytest.mark.parametrize(
    ("prompt", "cue"),
    [
        ("no, put it back the way it was", "negation"),
        ("Wait — that deletes the cache too", "negation"),
        ("don't touch the migrations", "negation"),
        ("still failing, same assertion", "fault"),
        ("scrolling back still does not work", "fault"),
        ("you forgot the header", "fault"),
        ("fix the lua script, the refill uses the wrong time unit", "fault"),
        ("use httpx instead of requests", "instead"),
        ("I say finished, not done", "instead"),
        ("write unit tests, vitest not jest", "instead"),
    ],
)
def test_each_cue_is_named(prompt, cue):
    assert correction_cue(prompt) == cue


@pytest.mark.parametrize(
    "prompt",
    [
        "run them again",
        "ok green. now the middleware that uses it",
        "I can not see why this fails, look at the logs",
        "is there a secret in the settings module I should know about?",
        "not yet, first the tests",  # "not" opening is not "no": a sequencing, not a refusal
        "",
    ],
)
def test_a_new_request_is_no_correction(prompt):
    assert correction_cue(prompt) is None


def test_a_prompt_repeating_the_last_one_with_more_words_redirects_it():
    before = "write unit tests for the login form"
    assert correction_cue(before + ", and mock the api client", before) == "restated"
    assert correction_cue(before, before) is None  # the same words again add nothing
    assert correction_cue("run them again", "run them") is None  # too short to be a restatement
