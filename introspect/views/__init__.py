"""Introspection pages, one module per screen. Reading is open; every write needs a reviewer."""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.http import HttpResponseForbidden

# The reviewer role, as rulings need it (ledger/views: given by `manage.py adduser NAME --reviewer`).
REVIEWER = "ledger.review_knowledge"


def reviewer_required(refusal: str):
    """Logged in (else to the login page) and a reviewer (else 403 with `refusal`)."""

    def decorate(view):
        @login_required
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            if not request.user.has_perm(REVIEWER):
                return HttpResponseForbidden(refusal)
            return view(request, *args, **kwargs)

        return wrapper

    return decorate
