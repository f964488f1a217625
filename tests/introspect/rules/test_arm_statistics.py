"""The effectiveness page's statistics against values computed by hand (and published ones)."""

from __future__ import annotations

import pytest

from introspect.rules.arm_statistics import (
    MIN_TURNS,
    auc,
    mean_difference,
    proportion_difference,
    too_few,
    wilson,
)


def test_wilson_gives_adr_195s_interval_for_4_relevant_of_40():
    # ADR-195: 4 of 40 fires relevant, "Wilson 95 % 4–23 %". By hand: centre (0.1 + 1.9208/40) /
    # 1.09604 = 0.13505, half 1.96 · √(0.00225 + 0.00060025) / 1.09604 = 0.09547.
    interval = wilson(4, 40)
    assert interval.low == pytest.approx(0.0396, abs=1e-4)
    assert interval.high == pytest.approx(0.2305, abs=1e-4)


def test_wilson_stays_inside_zero_and_one_and_knows_nothing_of_no_turns():
    assert wilson(0, 10).low == 0.0 and wilson(0, 10).high == pytest.approx(0.2775, abs=1e-4)
    assert wilson(10, 10).high == pytest.approx(1.0)
    assert (wilson(0, 0).low, wilson(0, 0).high) == (0.0, 1.0)


def test_newcombes_difference_matches_his_published_example():
    # Newcombe (1998), Statistics in Medicine 17:873, example (a): 56/70 − 48/80 = 0.2000,
    # hybrid score interval (method 10) 0.0524 to 0.3339.
    found = proportion_difference(56, 70, 48, 80)
    assert found.estimate == pytest.approx(0.2)
    assert (found.low, found.high) == (pytest.approx(0.0524, abs=1e-4), pytest.approx(0.3339, abs=1e-4))
    assert found.excludes_zero


def test_a_difference_of_equal_rates_straddles_zero_and_an_empty_arm_has_none():
    found = proportion_difference(3, 12, 3, 12)
    assert found.estimate == 0 and found.low < 0 < found.high and not found.excludes_zero
    assert proportion_difference(1, 0, 1, 5) is None


def test_mean_difference_is_welchs_normal_interval():
    # a: mean 2, sample variance 1; b: mean 1, variance 1; half = 1.96 · √(1/3 + 1/3) = 1.6003.
    found = mean_difference([1, 2, 3], [0, 1, 2])
    assert found.estimate == pytest.approx(1.0)
    assert (found.low, found.high) == (pytest.approx(-0.6003, abs=1e-4), pytest.approx(2.6003, abs=1e-4))
    assert mean_difference([1], [1, 2]) is None


def test_auc_counts_a_tie_as_half():
    # Pairs (pos, neg): 0.9>0.5, 0.9>0.1, 0.8>0.5, 0.8>0.1, 0.5=0.5 (½), 0.5>0.1 → 5.5 of 6.
    assert auc([0.9, 0.8, 0.5], [0.5, 0.1]) == pytest.approx(5.5 / 6)
    assert auc([0.1], [0.9]) == 0.0
    assert auc([0.5, 0.5], [0.5]) == 0.5
    assert auc([], [0.2]) is None


def test_too_few_turns_below_the_minimum_in_either_arm():
    assert too_few(MIN_TURNS, MIN_TURNS - 1)
    assert not too_few(MIN_TURNS, 50)
