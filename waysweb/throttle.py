"""Login throttling, by django-axes: a handful of failures per user name and address locks both out.

settings.py configures axes (AXES_*): the failures are counted in the database (one count for
every server of a shared PostgreSQL), each failure is logged by axes naming the user name and the
client address (never the password: axes masks it), and a locked-out attempt is refused before
any password is checked, the right one included. This module holds the two pieces axes leaves to
the site: which `authenticate()` calls count, and what a locked-out person sees.
"""

from __future__ import annotations

from axes.backends import AxesStandaloneBackend
from axes.helpers import get_cool_off, get_failure_limit
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

LOCKED_STATUS = 429  # Too Many Requests


class LoginThrottle(AxesStandaloneBackend):
    """Axes' gate, first in AUTHENTICATION_BACKENDS, for logins that come over HTTP.

    `authenticate()` without a request is code, not a visitor (the test client's `login()`, a
    shell); axes would raise for it, so it passes here to the next backend uncounted.
    """

    def authenticate(
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs
    ):
        if request is None:
            return None
        return super().authenticate(request, username, password, **kwargs)


def locked_out(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: dict | None = None
) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the login page, in the site's frame, saying why and for how long."""
    username = (credentials or {}).get("username") or request.POST.get("username", "")
    cool_off = get_cool_off(request)
    context = {
        # Unbound: a bound form would try the password again, and count another failure.
        "form": AuthenticationForm(request, initial={"username": username}),
        "next": request.POST.get("next", request.GET.get("next", "")),
        "locked_out": True,
        "failure_limit": get_failure_limit(request, credentials),
        "cool_off_minutes": round(cool_off.total_seconds() / 60) if cool_off else None,
    }
    return render(request, "registration/login.html", context, status=LOCKED_STATUS)
