"""The frame's own fragment: the import progress strip, polled by every page while an import runs."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe


@require_safe
@never_cache
def import_progress(request: HttpRequest) -> HttpResponse:
    """The strip alone (the context processor reads the progress); empty once the import is done,
    which ends the poll: the empty response replaces the polling element."""
    return render(request, "base.html#progress-strip", {})
