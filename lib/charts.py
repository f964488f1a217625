"""Tiny server-side charts: inline SVG strings, no JavaScript, no inline styles.

The CSP allows styles only from our own files (and nonce'd blocks), so the markup carries `class`
names styled in static/css/ways.css and `currentColor` presentation attributes as a fallback when
that sheet is missing. Every piece of text goes through `format_html`/`escape`; numbers are
formatted here. Sizes come from the `viewBox`, so a chart scales with its container.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

WIDTH = 720
HEIGHT = 220
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 22, 42
DOT_KINDS = frozenset({"fire", "redisclosure", "near-miss"})


def n(value: float) -> str:
    """A coordinate: one decimal, no trailing zeros."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


def nice_max(value: int) -> int:
    """A round axis maximum at or above `value` (1, 2, 5 × 10^k), at least 1."""
    if value <= 1:
        return 1
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 5, 10):
        if step * power >= value:
            return step * power
    return 10 * power


def svg(content: SafeString, *, label: str, kind: str) -> SafeString:
    return format_html(
        '<svg class="chart chart--{}" viewBox="0 0 {} {}" role="img" aria-label="{}" '
        'preserveAspectRatio="xMidYMid meet" xmlns="http://www.w3.org/2000/svg"><title>{}</title>{}</svg>',
        kind,
        WIDTH,
        HEIGHT,
        label,
        label,
        content,
    )


def empty(label: str, kind: str, message: str) -> SafeString:
    return svg(
        format_html(
            '<text class="chart-empty" x="{}" y="{}" text-anchor="middle" fill="currentColor">{}</text>',
            WIDTH // 2,
            HEIGHT // 2,
            message,
        ),
        label=label,
        kind=kind,
    )


def weekly_bars(
    weeks: Sequence[tuple[str, int, int]],
    *,
    label: str = "Injections per ISO week",
    series: tuple[str, str] = ("first fires", "re-disclosures"),
) -> SafeString:
    """Stacked bars per week: (week label, first fires, re-disclosures), oldest first."""
    if not weeks:
        return empty(label, "weeks", "nothing injected yet")
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    top = nice_max(max(a + b for _, a, b in weeks))
    band = plot_w / len(weeks)
    bar = max(band * 0.78, 1.0)
    every = max(1, math.ceil(len(weeks) / 10))  # at most ~10 week labels on the axis

    def y(value: float) -> float:
        return TOP + plot_h - plot_h * value / top

    parts = [axes(plot_w, plot_h)]
    for tick in sorted({0, top // 2, top}):
        parts.append(
            format_html(
                '<line class="grid" x1="{}" x2="{}" y1="{}" y2="{}" stroke="currentColor"/>'
                '<text class="tick" x="{}" y="{}" text-anchor="end" fill="currentColor">{}</text>',
                LEFT,
                WIDTH - RIGHT,
                n(y(tick)),
                n(y(tick)),
                LEFT - 6,
                n(y(tick) + 4),
                tick,
            )
        )
    for index, (week, first, again) in enumerate(weeks):
        x = LEFT + index * band + (band - bar) / 2
        tip = f"{week} · {series[0]}: {first} · {series[1]}: {again}"
        if first:
            parts.append(
                format_html(
                    '<rect class="bar bar--fire" x="{}" y="{}" width="{}" height="{}" fill="currentColor">'
                    "<title>{}</title></rect>",
                    n(x),
                    n(y(first)),
                    n(bar),
                    n(y(0) - y(first)),
                    tip,
                )
            )
        if again:
            parts.append(
                format_html(
                    '<rect class="bar bar--redisclosure" x="{}" y="{}" width="{}" height="{}" fill="currentColor">'
                    "<title>{}</title></rect>",
                    n(x),
                    n(y(first + again)),
                    n(bar),
                    n(y(first) - y(first + again)),
                    tip,
                )
            )
        if not first and not again:
            # An empty week still gets a hover target so its label can be read.
            parts.append(
                format_html(
                    '<rect class="bar bar--empty" x="{}" y="{}" width="{}" height="{}" fill="transparent">'
                    "<title>{}</title></rect>",
                    n(x),
                    TOP,
                    n(bar),
                    plot_h,
                    tip,
                )
            )
        if index % every == 0:
            parts.append(
                format_html(
                    '<text class="tick" x="{}" y="{}" text-anchor="middle" fill="currentColor">{}</text>',
                    n(x + bar / 2),
                    TOP + plot_h + 14,
                    week,
                )
            )
    parts.append(axis_labels("ISO week (Monday start)", "ways injected", plot_w, plot_h))
    parts.append(legend([("bar--fire", series[0]), ("bar--redisclosure", series[1])]))
    return svg(mark_safe("".join(parts)), label=label, kind="weeks")


@dataclass(frozen=True)
class Dot:
    """One scatter point: `kind` picks the class (fire, redisclosure, near-miss); `href` is optional."""

    when: datetime
    value: float
    kind: str
    title: str
    href: str = ""


def score_strip(
    dots: Sequence[Dot], *, tau: float = 0.5, label: str = "Scores against τ", tau_label: str = ""
) -> SafeString:
    """Probabilities (0–1) over time with a horizontal threshold line at τ.

    Only calibrated values belong here (fire scores and calibrated near-misses); raw scores from
    before ADR-156 are on another scale and must never be drawn against this line.
    """
    if not dots:
        return empty(label, "scores", "no calibrated score recorded")
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    start = min(dot.when for dot in dots).timestamp()
    end = max(dot.when for dot in dots).timestamp()
    span = end - start

    def x(when: datetime) -> float:
        return LEFT + plot_w / 2 if not span else LEFT + 6 + (plot_w - 12) * (when.timestamp() - start) / span

    def y(value: float) -> float:
        return TOP + plot_h - plot_h * min(max(value, 0.0), 1.0)

    parts = [axes(plot_w, plot_h)]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        parts.append(
            format_html(
                '<line class="grid" x1="{}" x2="{}" y1="{}" y2="{}" stroke="currentColor"/>'
                '<text class="tick" x="{}" y="{}" text-anchor="end" fill="currentColor">{}</text>',
                LEFT,
                WIDTH - RIGHT,
                n(y(tick)),
                n(y(tick)),
                LEFT - 6,
                n(y(tick) + 4),
                f"{tick:g}",
            )
        )
    parts.append(
        format_html(
            '<line class="tau" x1="{}" x2="{}" y1="{}" y2="{}" stroke="currentColor" stroke-dasharray="6 4">'
            "<title>{}</title></line>"
            '<text class="tau-label" x="{}" y="{}" text-anchor="end" fill="currentColor">τ {}</text>',
            LEFT,
            WIDTH - RIGHT,
            n(y(tau)),
            n(y(tau)),
            tau_label or f"threshold τ {tau:g}",
            WIDTH - RIGHT - 2,
            n(y(tau) - 4),
            f"{tau:g}",
        )
    )
    for dot in dots:
        kind = dot.kind if dot.kind in DOT_KINDS else "other"
        mark = format_html(
            '<circle class="dot dot--{}" cx="{}" cy="{}" r="4" fill="currentColor"><title>{}</title></circle>',
            kind,
            n(x(dot.when)),
            n(y(dot.value)),
            dot.title,
        )
        parts.append(format_html('<a href="{}">{}</a>', dot.href, mark) if dot.href else mark)
    first, last = min(dot.when for dot in dots), max(dot.when for dot in dots)
    parts.append(
        format_html(
            '<text class="tick" x="{}" y="{}" text-anchor="start" fill="currentColor">{}</text>',
            LEFT,
            TOP + plot_h + 14,
            first.strftime("%Y-%m-%d"),
        )
    )
    if span:
        parts.append(
            format_html(
                '<text class="tick" x="{}" y="{}" text-anchor="end" fill="currentColor">{}</text>',
                WIDTH - RIGHT,
                TOP + plot_h + 14,
                last.strftime("%Y-%m-%d"),
            )
        )
    parts.append(axis_labels("time (UTC)", "calibrated probability", plot_w, plot_h))
    kinds = [("dot--fire", "fire"), ("dot--redisclosure", "re-disclosure"), ("dot--near-miss", "near-miss")]
    parts.append(legend(kinds, shape="circle"))
    return svg(mark_safe("".join(parts)), label=label, kind="scores")


def axes(plot_w: float, plot_h: float) -> SafeString:
    return format_html(
        '<line class="axis" x1="{}" x2="{}" y1="{}" y2="{}" stroke="currentColor"/>'
        '<line class="axis" x1="{}" x2="{}" y1="{}" y2="{}" stroke="currentColor"/>',
        LEFT,
        LEFT,
        TOP,
        TOP + plot_h,
        LEFT,
        LEFT + plot_w,
        TOP + plot_h,
        TOP + plot_h,
    )


def axis_labels(x_label: str, y_label: str, plot_w: float, plot_h: float) -> SafeString:
    """Axis titles: centred under the plot, and rotated along the left edge."""
    return format_html(
        '<text class="axis-label" x="{}" y="{}" text-anchor="middle" fill="currentColor">{}</text>'
        '<text class="axis-label" transform="rotate(-90)" x="{}" y="12" text-anchor="middle" '
        'fill="currentColor">{}</text>',
        n(LEFT + plot_w / 2),
        HEIGHT - 6,
        x_label,
        n(-(TOP + plot_h / 2)),
        y_label,
    )


def legend(items: Sequence[tuple[str, str]], *, shape: str = "rect") -> SafeString:
    """A one-line legend above the plot, right-aligned by estimating text widths."""
    widths = [16 + 6.5 * len(text) + 14 for _, text in items]
    x = WIDTH - RIGHT - sum(widths)
    out = []
    for (klass, text), width in zip(items, widths, strict=True):
        cls = "swatch"
        if shape == "circle":
            swatch = format_html(
                '<circle class="{} {}" cx="{}" cy="10" r="4" fill="currentColor"/>', cls, klass, n(x + 5)
            )
        else:
            swatch = format_html(
                '<rect class="{} {}" x="{}" y="5" width="10" height="10" fill="currentColor"/>',
                cls,
                klass,
                n(x),
            )
        out.append(
            format_html(
                '{}<text class="legend" x="{}" y="14" fill="currentColor">{}</text>', swatch, n(x + 14), text
            )
        )
        x += width
    return format_html_join("", "{}", ((item,) for item in out))
