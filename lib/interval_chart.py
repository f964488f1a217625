"""A difference with its 95 % interval as a small inline SVG strip on a fixed −100…+100 point axis:
a zero line, the interval as a bar, the estimate as a dot. One strip per table row, so it stays
readable at phone width (its numbers are printed beside it, never only drawn). Classes are styled in
static/css/effectiveness.css with theme variables; `currentColor` is the fallback."""

from __future__ import annotations

from django.utils.html import format_html
from django.utils.safestring import SafeString

WIDTH, HEIGHT, PAD = 200, 20, 6


def x(value: float) -> str:
    """A difference in [−1, 1] as an x coordinate (clamped: an interval past ±1 is drawn to the edge)."""
    value = max(-1.0, min(1.0, value))
    return f"{PAD + (value + 1) / 2 * (WIDTH - 2 * PAD):.1f}"


def strip(estimate: float, low: float, high: float, *, label: str) -> SafeString:
    return format_html(
        '<svg class="ci-strip" viewBox="0 0 {w} {h}" role="img" aria-label="{label}" '
        'preserveAspectRatio="none" xmlns="http://www.w3.org/2000/svg"><title>{label}</title>'
        '<line class="ci-axis" x1="{pad}" x2="{end}" y1="{mid}" y2="{mid}" stroke="currentColor"/>'
        '<line class="ci-zero" x1="{zero}" x2="{zero}" y1="2" y2="{bottom}" stroke="currentColor"/>'
        '<line class="ci-bar" x1="{lo}" x2="{hi}" y1="{mid}" y2="{mid}" stroke="currentColor" stroke-width="4"/>'
        '<circle class="ci-dot" cx="{at}" cy="{mid}" r="4" fill="currentColor"/></svg>',
        w=WIDTH,
        h=HEIGHT,
        label=label,
        pad=PAD,
        end=WIDTH - PAD,
        mid=HEIGHT // 2,
        zero=x(0),
        bottom=HEIGHT - 2,
        lo=x(low),
        hi=x(high),
        at=x(estimate),
    )
