"""The open questions of every decision record, the decision backlog: each open ruling and fork across
repositories, and the nav's count of them."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from ledger.queries import questions as queries
from lib.htmx import HtmxHttpRequest, render_page


@require_safe
def decision_backlog(request: HtmxHttpRequest) -> HttpResponse:
    repo, kind = request.GET.get("repo", ""), request.GET.get("kind", "")
    context = {**queries.backlog_page(repo=repo, kind=kind), "nav": "backlog"}
    return render_page(request, "ledger/decision_backlog.html", context, fragment="backlog-results")


@require_safe
def backlog_count(request: HtmxHttpRequest) -> HttpResponse:
    # The nav's badge alone: the header context processor counts open questions in its one query.
    return render(request, "base.html#backlog-count", {})
