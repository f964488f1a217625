"""The one place that decides whether a request gets a whole page or an htmx fragment."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    # Typing shim recommended by django-htmx.
    htmx: HtmxDetails


def wants_fragment(request: HtmxHttpRequest) -> bool:
    """True for htmx swaps; False for full loads, hx-boost navigation and history restores."""
    details = request.htmx
    return bool(details) and not details.boosted and not details.history_restore_request


def render_page(
    request: HtmxHttpRequest, template: str, context: dict, *, fragment: str, status: int = 200
) -> HttpResponse:
    """Render the whole page, or only `fragment` when htmx asked for a swap."""
    name = f"{template}#{fragment}" if wants_fragment(request) else template
    response = render(request, name, context, status=status)
    response["Vary"] = "HX-Request"
    return response
