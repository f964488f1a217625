"""Ledger pages, one module per screen (same stems as ledger/queries/): the ledger streams, the
knowledge review queue, the decision records. Reading is open; every write needs a reviewer."""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, HttpResponseForbidden

from lib.htmx import HtmxHttpRequest, wants_fragment


def reviewer_required(view):
    """Logged in (else to the login page) and allowed to review (else 403): checked in the view."""

    @login_required
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.has_perm("ledger.review_knowledge"):
            return HttpResponseForbidden(
                "Your account may read but not review knowledge. Ask an admin for the "
                "reviewer role (manage.py adduser NAME --reviewer)."
            )
        return view(request, *args, **kwargs)

    return wrapper


def conflict_shown(request: HtmxHttpRequest, response: HttpResponse) -> HttpResponse:
    """A 409 swapped into the page scrolls to the top of its card: the message is there, and the
    form the person pressed may be a screen below it (on a phone, always). htmx swaps the 409 at
    all because of the responseHandling in templates/base.html."""
    if wants_fragment(request):
        response["HX-Reswap"] = "outerHTML show:top"
    return response
