"""The search page: prompts, replies, tool calls and way ids, each hit linking to its place."""

from __future__ import annotations

from django.http import HttpResponse
from django.views.decorators.http import require_safe

from introspect.queries import search, search_filters, session_list
from introspect.rules import entry_kinds
from lib.htmx import HtmxHttpRequest, render_page
from lib.params import date_param, int_param

HITS_PER_PAGE = 25


@require_safe
def search_results(request: HtmxHttpRequest) -> HttpResponse:
    query = request.GET.get("q", "").strip()[: search.QUERY_CHARS]
    filters = search_filters.SearchFilters(
        kinds=tuple(request.GET.getlist("kind")),  # SearchFilters keeps the known ones
        project=int_param(request, "project"),
        since=date_param(request, "since"),
        until=date_param(request, "until"),
        sort=request.GET.get("sort", ""),
    )
    page = max(int_param(request, "page", 1) or 1, 1)
    results = search.search(query, filters=filters, limit=HITS_PER_PAGE, offset=(page - 1) * HITS_PER_PAGE)
    context = {
        "results": results,
        "q": query,
        "filters": filters,
        "kinds": entry_kinds.FILTER_KINDS,
        "sorts": search_filters.SORTS,
        "projects": session_list.projects_for_filter(),
        "nav": "search",
    }
    return render_page(request, "introspect/search.html", context, fragment="search-results")
