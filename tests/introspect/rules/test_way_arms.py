"""A way's arms: a turn where it was shown is never also in the not-shown arm; ways without evidence of
less trouble when shown come first, costliest first."""

from __future__ import annotations

from introspect.rules import outcome_signals as signals
from introspect.rules.way_arms import TROUBLE, Turn, WayArms, measure, order


def turns(n: int, start: int, *, trouble: int) -> dict:
    return {
        (1, k): Turn(
            (1, k), frozenset({signals.TOOL_ERRORS}) if k < start + trouble else frozenset(), 100, None
        )
        for k in range(start, start + n)
    }


def test_a_turn_shown_and_held_counts_as_shown_only():
    way = WayArms("w", shown={(1, 1)}, other={(1, 1), (1, 2)})
    measured = measure(way, turns(2, 1, trouble=0))
    assert measured.shown == {(1, 1)} and measured.other == {(1, 2)}
    assert way.other == {(1, 1), (1, 2)}  # the way as counted is left as it is


def test_a_way_that_goes_with_less_trouble_comes_after_costlier_ones_without_evidence():
    table = turns(30, 1, trouble=0) | turns(30, 31, trouble=25)
    helping = measure(WayArms("helping", shown=set(list(table)[:30]), other=set(list(table)[30:]), fires=30,
                              injected_chars=4000), table)  # fmt: skip
    cheap = measure(WayArms("cheap", shown={(1, 1)}, fires=1, injected_chars=40), table)
    dear = measure(WayArms("dear", shown={(1, 2)}, fires=5, injected_chars=400), table)
    trouble = next(r for r in helping.rates if r.signal == TROUBLE)
    assert (trouble.shown_hits, trouble.other_hits) == (0, 25) and helping.helps
    assert [w.way for w in order([helping, cheap, dear])] == ["dear", "cheap", "helping"]
