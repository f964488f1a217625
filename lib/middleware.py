"""Requests no view should see: a NUL anywhere in the path, the query string or a form."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest

NUL = "\x00"


class RefuseNul:
    """Answer 400 to a request carrying a NUL character (`%00`) in its path, query or form fields.

    Why one middleware rather than a check in each view: a NUL is never meaningful here. The
    importer stores every NUL it reads as U+FFFD (importer-reliability.md §7.8), so no id, path or
    text in the database holds one and no search for one can match; and PostgreSQL refuses a NUL in
    any text parameter, so every view that hands a string from the request to a query (`?q=%00`,
    `?model=`, `/sessions/%00/`, a form field) would answer 500. A check here covers every present
    and future view, `request.GET.get()` read directly included; the bounded readers in
    lib/params.py handle the other bad values (huge or non-finite numbers), which are a matter
    of each parameter's meaning.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if carries_nul(request):
            return HttpResponseBadRequest(
                "A NUL character (%00) is not allowed in a URL or a form.", content_type="text/plain"
            )
        return self.get_response(request)


def carries_nul(request: HttpRequest) -> bool:
    if NUL in request.path:
        return True
    # request.POST is parsed only for form bodies (urlencoded or multipart); it is empty otherwise.
    forms = (request.GET, request.POST) if request.method == "POST" else (request.GET,)
    for data in forms:
        for key, values in data.lists():
            if NUL in key or any(NUL in value for value in values):
                return True
    return False
