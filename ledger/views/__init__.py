"""Ledger pages, one module per screen (same stems as ledger/queries/): the ledger streams, the
knowledge review queue, the decision records. Reading is open; every write needs a reviewer."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, HttpResponseForbidden

from ledger.services import acts
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


def act_on(
    request: HtmxHttpRequest,
    form: forms.Form,
    act: Callable[[dict, acts.Reviewer], object],
    *,
    answer: Callable[[object], HttpResponse],
    refused: Callable[[forms.Form, str], HttpResponse],
    conflict: Callable[[acts.Conflict], HttpResponse] | None = None,
) -> HttpResponse:
    """The shape every reviewer's POST shares: the form checked, the service run as the person
    logged in (`act(cleaned data, reviewer)`), then the answer to what came of it.

    A form that does not validate goes to `refused(form, "")`; a refusal from the service is added
    to the form's errors and goes to `refused(form, reason)`: both answered 200, as htmx 2 swaps no
    error response by default (STYLE.md §3). A conflict goes to `conflict`, or is a refusal where
    the view has no conflict of its own to show."""
    if not form.is_valid():
        return refused(form, "")
    try:
        done = act(form.cleaned_data, acts.Reviewer.of(request.user))
    except acts.Conflict as exc:
        if conflict is not None:
            return conflict(exc)
        form.add_error(None, str(exc))
        return refused(form, str(exc))
    except acts.Refused as exc:
        form.add_error(None, str(exc))
        return refused(form, str(exc))
    return answer(done)
