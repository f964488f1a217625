"""Values every page needs: whether the dashboard shows the bundled sample."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def waysweb(request: HttpRequest) -> dict:
    return {"demo": settings.WAYSWEB_DEMO}
