"""The effectiveness page: per way, the turns it was shown on against the turns it matched but was
not shown on, for each outcome signal (queries/effectiveness.py). Every figure is printed with its
n and interval and titled with what it counts; the page says they are correlations, not effects."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpResponse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.views.decorators.http import require_safe

from introspect.documents.effectiveness import NOTE, SOURCES, definition
from introspect.forms import EffectivenessForm
from introspect.models import Project
from introspect.queries.effectiveness import effectiveness
from introspect.queries.way_proposals import CAVEAT, refire_summary
from introspect.rules import outcome_signals as signals
from introspect.rules import way_arms as arms
from lib import interval_chart
from lib.htmx import HtmxHttpRequest, render_page

LABELS = {
    arms.TROUBLE: "any trouble",
    signals.TOOL_ERRORS: "tool error",
    signals.CORRECTION: "corrected",
    signals.INTERRUPTS: "interrupted",
    signals.RETRIES: "retry",
    signals.CHURN: "churned edits",
    signals.COMPACTIONS: "compacted",
    signals.TOKENS: "tokens per turn",
    signals.COST: "cost per turn (USD)",
}


@dataclass(frozen=True)
class Cell:
    """One signal of one way, as printed: each arm, the difference and its strip (or why none)."""

    label: str
    title: str
    shown: SafeString | str
    other: SafeString | str
    difference: str
    strip: SafeString | str
    too_few: bool


def pct(value: float) -> str:
    return f"{value * 100:.0f} %"


def points(value: float) -> str:
    return f"{value * 100:+.0f}"


def rate_cell(found: arms.RateArms, minimum: int) -> Cell:
    def arm(hits: int, n: int, interval) -> SafeString | str:
        if not n:
            return "no turns"
        # The count and the interval each kept on one line: a narrow column broke "(1 %–" from "27 %)".
        return format_html(
            '<span class="arm">{} of {} · {}</span> <span class="arm">({}–{})</span>',
            hits, n, pct(hits / n), pct(interval.low), pct(interval.high),
        )  # fmt: skip

    shown = arm(found.shown_hits, found.shown_n, found.shown_interval)
    other = arm(found.other_hits, found.other_n, found.other_interval)
    d = found.difference
    if found.too_few or d is None:
        text, drawn = f"too few turns (needs {minimum} in each arm)", ""
    else:
        text = f"{points(d.estimate)} points ({points(d.low)} to {points(d.high)})"
        drawn = interval_chart.strip(d.estimate, d.low, d.high, label=f"{LABELS[found.signal]}: {text}")
    return Cell(LABELS[found.signal], definition(found.signal), shown, other, text, drawn, found.too_few)


def mean_cell(found: arms.MeanArms, minimum: int) -> Cell:
    places = 4 if found.signal == signals.COST else 0

    def arm(value: float | None, n: int) -> str:
        return f"{value:,.{places}f} over {n} turns" if value is not None else "no turns"

    d = found.difference
    if found.too_few or d is None:
        text = f"too few turns (needs {minimum} in each arm)"
    else:
        text = f"{d.estimate:+,.{places}f} ({d.low:+,.{places}f} to {d.high:+,.{places}f})"
    return Cell(
        LABELS[found.signal],
        signals.DEFINITIONS[found.signal],
        arm(found.shown_mean, found.shown_n),
        arm(found.other_mean, found.other_n),
        text,
        "",
        found.too_few,
    )


@dataclass(frozen=True)
class WayRow:
    way: arms.WayArms
    exposure: str
    trouble: Cell
    cells: list[Cell]


def exposure_text(way: arms.WayArms) -> str:
    return " · ".join(f"{n} {result.replace('_', ' ')}" for result, n in sorted(way.exposure.items()))


def way_row(way: arms.WayArms, minimum: int) -> WayRow:
    cells = [rate_cell(found, minimum) for found in way.rates] + [
        mean_cell(found, minimum) for found in way.means
    ]
    return WayRow(way, exposure_text(way), cells[0], cells[1:])


@require_safe
def effectiveness_page(request: HtmxHttpRequest) -> HttpResponse:
    ask = EffectivenessForm.read(request)
    project, days, way = ask["project"], ask["days"], ask["way"]
    report = effectiveness(project=project, days=days, way=way)
    context = {
        "report": report,
        "rows": [way_row(found, report.frame.minimum) for found in report.ways],
        "refire_proposals": refire_summary({found.way: found.unspent_out_of_band for found in report.ways}),
        "projects": list(Project.objects.order_by("path").values_list("path", flat=True)[:500]),
        "project": project,
        "way": way,
        "days": days or "",
        "note": NOTE,
        "proposal_caveat": CAVEAT,
        "sources": SOURCES,
        "trouble_definition": arms.TROUBLE_DEFINITION,
        "chars_per_token": arms.CHARS_PER_TOKEN,
        "nav": "ways",
    }
    return render_page(request, "introspect/effectiveness.html", context, fragment="effectiveness-table")
