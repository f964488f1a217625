"""The interval strip draws the estimate and its interval on a fixed −100…+100 point axis."""

from __future__ import annotations

from lib.interval_chart import strip, x


def test_the_axis_runs_from_minus_one_to_one_and_clamps_beyond():
    assert (x(-1), x(0), x(1)) == ("6.0", "100.0", "194.0")
    assert x(-3) == x(-1)


def test_the_strip_draws_the_interval_and_the_estimate_and_escapes_its_label():
    found = strip(0.5, 0.2, 0.8, label="tool errors <shown − not shown>")
    assert 'x1="118.8" x2="175.2"' in found and 'cx="147.0"' in found
    assert "&lt;shown − not shown&gt;" in found
