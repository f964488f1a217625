"""Values every page needs: whether the dashboard shows the bundled sample."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def waysweb(request: HttpRequest) -> dict:
    from ledger.queries import pending_count

    # Lazy: only pages that show the navigation pay for the count (one indexed query).
    return {"demo": settings.WAYSWEB_DEMO, "pending_knowledge": pending_count}
