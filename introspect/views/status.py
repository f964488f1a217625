"""The import status page: totals, the source files a page at a time, what was not read, the quarantine."""

from __future__ import annotations

from django.http import HttpResponse
from django.views.decorators.http import require_safe

from introspect.queries import status as queries
from lib.htmx import HtmxHttpRequest, render_page
from lib.params import int_param


@require_safe
def import_status(request: HtmxHttpRequest) -> HttpResponse:
    filters = queries.StatusFilters.parse(
        kind=request.GET.get("kind", ""),
        status=request.GET.get("status", ""),
        q=request.GET.get("q", ""),
    )
    status = queries.import_status(
        filters,
        page=int_param(request, "page", 1, low=1) or 1,
        quarantine_page_number=int_param(request, "qpage", 1, low=1) or 1,
        document_page=int_param(request, "dpage", 1, low=1) or 1,
    )
    context = {**status, "nav": "status"}
    return render_page(request, "introspect/import_status.html", context, fragment="source-table")
