"""The lines of a transcript that could not be read, at their place in its conversation.

The importer keeps a line it cannot read in the quarantine, with its reason (importer/loader.py);
the conversation has no entry for it. A page marks where it was, so a reader knows something is
missing there: "line N of FILE could not be read: why", linked to the line on the import status
page. A page reads them only when its file has any (its `quarantined` count) or shows a record
recovered from a torn line (whose torn part is quarantined), so most pages pay no query.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlencode

from django.urls import reverse

from introspect.models import PhysicalLine, Quarantine, SourceFile, TranscriptEntry
from introspect.queries.status import QUARANTINE_PER_PAGE
from introspect.rules.quarantine import reason_label

# Marks drawn on one page at most; past them one more says how many lines follow unread.
GAPS_SHOWN = 20
Position = tuple[int, int]  # (offset, index), as entries are ordered


@dataclass(frozen=True)
class LineGap:
    """A line of a transcript file that could not be read: where it was and why."""

    position: Position
    line: int  # 1-based, blank lines counted, as an editor numbers them
    file: str  # its path under the root it was found in
    reason: str  # in words (rules/quarantine.py)
    quarantine_id: int
    status_page: int  # the import status page's quarantine page that lists it (its `qpage`)
    more: int = 0  # lines further on this page that could not be read either, not drawn one by one

    @property
    def status_link(self) -> str:
        """The line on the import status page: its quarantine page, at its row."""
        query = urlencode({"qpage": self.status_page})
        return f"{reverse('introspect:import-status')}?{query}#q-{self.quarantine_id}"


def may_have_gaps(source: SourceFile | None, entries: Iterable[TranscriptEntry]) -> bool:
    """Whether a page of `entries` from `source` can have a line to mark: no query."""
    if source is None:
        return False
    return source.quarantined > 0 or any("recovered" in (entry.flags or ()) for entry in entries)


def gaps_between(source: SourceFile, lower: Position | None, upper: Position | None) -> list[LineGap]:
    """The unread lines of `source` from `lower` (inclusive) to `upper` (exclusive), None for no
    bound, in file order: GAPS_SHOWN at most, the last saying how many more there are. A query,
    then two a mark (its line number and its place on the status page)."""
    rows = Quarantine.objects.filter(source=source).only("pk", "offset", "index", "reason")
    if lower is not None:
        rows = rows.filter(offset__gte=lower[0]).exclude(offset=lower[0], index__lt=lower[1])
    if upper is not None:
        rows = rows.filter(offset__lte=upper[0]).exclude(offset=upper[0], index__gte=upper[1])
    found = list(rows.order_by("offset", "index")[: GAPS_SHOWN + 1])
    more = rows.count() - GAPS_SHOWN if len(found) > GAPS_SHOWN else 0
    return [
        gap(source, row, more=more if n == GAPS_SHOWN - 1 else 0) for n, row in enumerate(found[:GAPS_SHOWN])
    ]


def gap(source: SourceFile, row: Quarantine, *, more: int = 0) -> LineGap:
    before = PhysicalLine.objects.filter(source=source, offset__lt=row.offset).count()
    newer = Quarantine.objects.filter(pk__gt=row.pk).count()  # the status page lists newest first
    return LineGap(
        position=(row.offset, row.index),
        line=before + 1,
        file=source.rel_path,
        reason=reason_label(row.reason),
        quarantine_id=row.pk,
        status_page=newer // QUARANTINE_PER_PAGE + 1,
        more=more,
    )
