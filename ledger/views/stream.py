"""The ledger: projects with ADR-112 entries, and one project's entries in epoch order."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from ledger.queries import stream as queries
from lib.htmx import HtmxHttpRequest


# Read views take GET and HEAD (require_safe, where STYLE.md §0 says require_GET): a HEAD is a GET
# without its body, and monitors, link checkers and `curl -I` send it.
@require_safe
def ledger_index(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "ledger/ledger_index.html", {**queries.ledger_index_page(), "nav": "ledger"})


@require_safe
def ledger_stream(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    page = queries.ledger_stream_page(slug)
    if not page["items"]:
        raise Http404(f"no ledger entries for {slug}")
    return render(request, "ledger/ledger_stream.html", {**page, "nav": "ledger"})
