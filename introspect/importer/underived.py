"""Which files hold rows that no derive has read yet: a durable mark, so that the start of a command
finds the sessions a killed or failed pass left behind by reading those files' rows, not every row.

A batch sets its file's `SourceFile.underived` in the transaction that commits its rows and moves its
checkpoint (batch.move_checkpoint): a row never lands unmarked. Whoever derives the sessions a pass
touched clears the marks once they are derived (waysweb/passes.py after a pass, derive/sessions.py
`catch_up` at a start); a kill in between leaves the mark, and the next start reads that file's rows.
Only this host's marks are cleared: another host's importer may be between its commit and its derive.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings

from introspect.models import SourceFile

CHUNK = 500  # ids per statement, under SQLite's bound-parameter limit


def marked(*, own: bool = False) -> set[int]:
    """The files holding rows not derived yet (one read of a partial index, usually empty); with
    `own`, only this host's."""
    rows = SourceFile.objects.filter(underived=True)
    if own:
        rows = rows.filter(host=settings.WAYSWEB_HOST)
    return set(rows.values_list("pk", flat=True))


def clear(files: Iterable[int]) -> None:
    """The rows of these files are derived: drop their marks (this host's only)."""
    ids = sorted(files)
    for start in range(0, len(ids), CHUNK):
        SourceFile.objects.filter(
            pk__in=ids[start : start + CHUNK], host=settings.WAYSWEB_HOST, underived=True
        ).update(underived=False)
