"""The frame's own endpoints: the import progress strip, polled by every page while an import runs,
the stopped-importer banner, polled while `serve` restarts it, and the command palette's answers
(base.html's Ctrl/Cmd+K dialog, static/js/palette.js)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from waysweb.queries import palette as palette_queries


@require_safe
@never_cache
def import_progress(request: HttpRequest) -> HttpResponse:
    """The strip alone (the context processor reads the progress); empty once the import is done,
    which ends the poll: the empty response replaces the polling element."""
    return render(request, "base.html#progress-strip", {})


@require_safe
@never_cache
def importer_alert(request: HttpRequest) -> HttpResponse:
    """The stopped-importer banner alone (base.html); empty once the importer runs again, which ends
    its poll."""
    return render(request, "base.html#importer-alert", {})


@require_safe
def palette(request: HttpRequest) -> HttpResponse:
    document = palette_queries.palette_document(request.GET.get("q", ""))
    return HttpResponse(document.model_dump_json(), content_type="application/json")
