"""Way pages: the catalog as a domain tree, and one way with what someone tuning it needs."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.urls import reverse
from django.utils.safestring import SafeString
from django.views.decorators.http import require_safe

from introspect.models import SourceFile
from introspect.queries import way_page, way_tree
from introspect.queries.way_decisions import way_decisions
from introspect.queries.way_findings import way_findings
from introspect.queries.way_links import way_links
from introspect.queries.way_proposals import way_proposals
from introspect.queries.way_scores import ScorePoint
from lib import charts, render
from lib.htmx import HtmxHttpRequest, render_page
from lib.params import parse_int


@require_safe
def way_list(request: HtmxHttpRequest) -> HttpResponse:
    q = request.GET.get("q", "").strip()[:200]
    tree = way_tree.way_tree(q=q)
    context = {"tree": tree, "q": q, "way_total": sum(node.way_count for node in tree), "nav": "ways"}
    return render_page(request, "introspect/way_list.html", context, fragment="way-tree")


@require_safe
def way_detail(request: HtmxHttpRequest, way_id: str) -> HttpResponse:
    applied = parse_int(request.GET.get("applied"), low=1)
    context = way_context(way_id)
    context["applied_now"] = next((row for row in context["proposals"].applied if row.pk == applied), None)
    return render_page(request, "introspect/way_detail.html", context, fragment="way-sessions")


def way_context(way_id: str) -> dict:
    """Everything the way page shows; Http404 when nothing at all knows the id."""
    stats = way_page.way_stats(way_id)
    kinds = set(SourceFile.objects.values_list("kind", flat=True).distinct())
    log_present = bool(kinds & set(SourceFile.DECISION_KINDS))
    decisions = way_decisions(way_id, present=log_present)
    findings = way_findings(way_id, present=bool(kinds & set(SourceFile.FINDING_KINDS)))
    if not stats.known and decisions.empty and not findings.controls:
        raise Http404("No way file, no event, no decision and no finding with this id")
    return {
        "stats": stats,
        "links": way_links(stats.way_id, stats.domain),
        "decisions": decisions,
        "findings": findings,
        "proposals": way_proposals(
            way_id, stats.primary, out_of_band=decisions.out_of_band_total, log_present=log_present
        ),
        "body_html": way_body(stats.primary.body) if stats.primary and stats.primary.body else "",
        "weeks_chart": charts.weekly_bars(
            [(week.label, week.fires, week.redisclosures) for week in stats.weeks]
        ),
        "scores_chart": charts.score_strip(
            [score_dot(point) for point in stats.score_points], tau=stats.tau, tau_label=stats.tau_note
        ),
        "nav": "ways",
    }


def way_body(text: str) -> SafeString:
    """The way's Markdown, sanitised (lib/render.py)."""
    return render.render_markdown(text)


def score_dot(point: ScorePoint) -> charts.Dot:
    where = f"session {point.sid[:8]}" + (f" · turn {point.epoch}" if point.epoch else "")
    what = {"fire": "fire", "redisclosure": "re-disclosure", "near-miss": "near-miss"}.get(
        point.kind, point.kind
    )
    title = f"{what} · p {point.value:.3f} · {where} · {point.ts:%Y-%m-%d %H:%M} UTC"
    if point.channel:
        title += f" · {point.channel}"
    href = ""
    if point.sid:
        href = reverse("introspect:session-detail", args=[point.sid])
        if point.epoch:
            href += f"#turn-{point.epoch}"
    return charts.Dot(when=point.ts, value=point.value, kind=point.kind, title=title, href=href)
