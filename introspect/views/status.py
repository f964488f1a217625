"""The import status page: every source file and generation, what was not read, the quarantine."""

from __future__ import annotations

from django.http import HttpResponse
from django.views.decorators.http import require_safe

from introspect.queries import status as queries
from lib.htmx import HtmxHttpRequest, render_page


@require_safe
def import_status(request: HtmxHttpRequest) -> HttpResponse:
    context = {**queries.import_status(), "nav": "status"}
    return render_page(request, "introspect/import_status.html", context, fragment="source-table")
