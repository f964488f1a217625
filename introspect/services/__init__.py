"""Writes the introspection pages make: a viewer's last-seen mark on a session."""

from __future__ import annotations

from django.utils import timezone

from introspect.models import SeenMark, Session
from lib.viewers import Viewer


def seen_mark_move(
    *,
    session: Session,
    viewer: Viewer,
    current: SeenMark | None,
    position: tuple[int, int] | None = None,
    turns: int | None = None,
) -> None:
    """Move the viewer's mark on `session` to `position` (the newest entry shown) and/or `turns`
    (the fire turns shown); what is not given keeps its value.

    `current` is the viewer's mark as the caller read it (None: there is none). An unchanged mark
    is not written, so reopening a quiet session costs no write; else one UPDATE, or the first
    time one INSERT. Two first visits racing each other: the unique constraint keeps the first
    row and ignores the second (they hold the same position, read a moment apart).
    """
    values: dict = {}
    if position is not None and (current is None or current.position != position):
        values |= {"offset": position[0], "index": position[1]}
    if turns is not None and (current is None or current.turns != turns):
        values["turns"] = turns
    if not values:
        return
    values["seen_at"] = timezone.now()
    if current is not None:
        SeenMark.objects.filter(pk=current.pk).update(**values)
        return
    browser = "" if viewer.user_id is not None else viewer.browser
    mark = SeenMark(session=session, user_id=viewer.user_id, browser=browser, **values)
    SeenMark.objects.bulk_create([mark], ignore_conflicts=True)
