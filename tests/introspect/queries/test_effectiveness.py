"""A way's arms recomputed by hand from a small built corpus (tests/introspect/effectiveness_corpus.py):
the turns it was shown on against the turns it matched but was not shown on, per outcome signal."""

from __future__ import annotations

import pytest

from introspect.queries.effectiveness import effectiveness
from introspect.rules import outcome_signals as signals
from introspect.rules.arm_statistics import proportion_difference
from tests.introspect import effectiveness_corpus as corpus

pytestmark = pytest.mark.django_db


@pytest.fixture
def report(home):
    corpus.build(home)
    return effectiveness()


def arms_of(report, way):
    return next(w for w in report.ways if w.way == way)


def rate(way, signal):
    return next(r for r in way.rates if r.signal == signal)


def test_the_shown_and_not_shown_arms_are_the_turns_counted_by_hand(report):
    often = arms_of(report, "w/often")
    assert report.turns == corpus.TURNS
    assert often.exposure == {"fired": 12, "near_miss": 12}
    assert (len(often.shown), len(often.other)) == (12, 12)
    errors = rate(often, signals.TOOL_ERRORS)
    # Turns 1–6 of the shown 1–12 failed a command; turns 13–14 of the near-misses 13–24.
    assert (errors.shown_hits, errors.shown_n, errors.other_hits, errors.other_n) == (6, 12, 2, 12)
    assert errors.difference == proportion_difference(6, 12, 2, 12)
    assert errors.difference.estimate == pytest.approx(0.5 - 2 / 12)
    corrected = rate(often, signals.CORRECTION)
    assert (corrected.shown_hits, corrected.other_hits) == (1, 0)  # turn 7, corrected by turn 8's prompt
    assert not errors.too_few


def test_what_the_way_cost_is_its_body_over_its_fires(report):
    often = arms_of(report, "w/often")
    assert often.fires == 12
    assert often.injected_chars == len(corpus.OFTEN_BODY)
    assert often.estimated_tokens == 12 * len(corpus.OFTEN_BODY) // 4


def test_a_way_with_three_turns_is_too_few_to_say(report):
    rare = arms_of(report, "w/rare")
    assert len(rare.shown) == 3 and not rare.other
    assert all(r.too_few and r.difference is None for r in rare.rates)


def test_the_numbers_take_a_bounded_number_of_queries(home, django_assert_max_num_queries):
    corpus.build(home)
    with django_assert_max_num_queries(10):  # the tenth: the labels
        effectiveness(project=corpus.PROJECT, days=10_000)


def test_a_session_with_a_decision_log_is_read_from_it(home):
    corpus.build_with_decisions(home)
    report = effectiveness()
    assert {w.way for w in report.ways} == {"w/often", "w/judged"}  # w/rare is only in the event log
    judged = arms_of(report, "w/judged")
    assert judged.exposure == {"fired": 10, "judge_block": 10}
    errors = rate(judged, signals.TOOL_ERRORS)
    # Shown on turns 1–10 (errors on 1–6); blocked on 11–20 (errors on 13–14).
    assert (errors.shown_hits, errors.shown_n, errors.other_hits, errors.other_n) == (6, 10, 2, 10)
    often = arms_of(report, "w/often")
    assert often.exposure == {"fired": 12, "near_miss": 12}
    assert (often.pulls, often.out_of_band) == (2, 1)


def test_a_session_with_a_decision_log_is_read_from_it_whichever_way_is_asked_for(home):
    """w/rare fires only in the event log of a session that has a decision log: it is in no arm,
    on the page of every way as on the page of w/rare alone (the way's tab)."""
    corpus.build_with_decisions(home)
    assert "w/rare" not in {w.way for w in effectiveness().ways}
    assert effectiveness(way="w/rare").ways == []
    often = arms_of(effectiveness(way="w/often"), "w/often")
    assert often.exposure == arms_of(effectiveness(), "w/often").exposure == {"fired": 12, "near_miss": 12}
