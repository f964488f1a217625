"""Who is looking: the signed-in user, else this browser's long-lived viewer cookie.

Last-seen marks (introspect SeenMark) belong to a viewer. Without a sign-in the browser is the
viewer, named by a random cookie rather than the Django session: a session expires after
SESSION_COOKIE_AGE and its key is cycled at every login and flushed at logout, which would orphan
the marks, and the list page would have to save a session row for every visitor who only looks.
The cookie is set when a session page is opened, and a mark is written only for a browser that
came back with it: a client that keeps no cookies (a script, a crawler) writes nothing, however
often it asks. A first visit's mark is asked for by its page once the cookie is there
(introspect.views.sessions.session_seen).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse

COOKIE = "waysweb_viewer"
MAX_AGE = 400 * 24 * 3600  # the longest lifetime browsers keep (RFC 6265bis caps at 400 days)
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")


@dataclass(frozen=True)
class Viewer:
    user_id: int | None = None
    browser: str = ""
    new: bool = False  # the browser token was made for this response: the cookie must be set

    @property
    def known(self) -> bool:
        """False for a first visit without a sign-in: no mark can exist for it yet."""
        return self.user_id is not None or (bool(self.browser) and not self.new)


def viewer_of(request: HttpRequest) -> Viewer:
    """The viewer of `request`; a browser without a valid cookie gets a fresh token (set it with
    `remember` if anything is written for it)."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return Viewer(user_id=user.pk)
    token = request.COOKIES.get(COOKIE, "")
    if TOKEN.fullmatch(token):
        return Viewer(browser=token)
    return Viewer(browser=secrets.token_urlsafe(24), new=True)


def remember(request: HttpRequest, response: HttpResponse, viewer: Viewer) -> HttpResponse:
    """Give the browser its viewer cookie when it was made for this response, and renew it (a
    sliding lifetime: a browser in use keeps its marks)."""
    if viewer.user_id is None and viewer.browser:
        response.set_cookie(
            COOKIE, viewer.browser, max_age=MAX_AGE, httponly=True, samesite="Lax", secure=request.is_secure()
        )
    return response
