"""The search page: prompts, replies, tool calls and way ids, each hit linking to its place."""

from __future__ import annotations

from django.http import HttpResponse
from django.views.decorators.http import require_safe

from introspect.queries import search
from lib.htmx import HtmxHttpRequest, render_page
from lib.params import int_param

HITS_PER_PAGE = 25


@require_safe
def search_results(request: HtmxHttpRequest) -> HttpResponse:
    query = request.GET.get("q", "").strip()[: search.QUERY_CHARS]
    page = max(int_param(request, "page", 1) or 1, 1)
    results = search.search(query, limit=HITS_PER_PAGE, offset=(page - 1) * HITS_PER_PAGE)
    context = {"results": results, "q": query, "nav": "search"}
    return render_page(request, "introspect/search.html", context, fragment="search-results")
