"""The imported decision log handed back as upstream's reader reads it: its lines in stream order.

Records come in stream order (archives oldest day first, then the live file, each in file order:
the lowest place a line was read at, decision_rows.py), then the distinct lines upstream skips (the
quarantine, by line identity), so the rules count `skipped_lines` as upstream counts them; a line
skipped is no record, so where it stands in the stream changes nothing else.
"""

from __future__ import annotations

from collections.abc import Iterator

from introspect.models import DecisionRecord, Quarantine, SourceFile
from introspect.rules.decision_records import BAD_FIELD, MALFORMED, MISSING_KIND, UNKNOWN_KIND

# The quarantine reasons of a line upstream reads and skips: its own reasons, and a line too long to
# keep (upstream reads it whole and cannot parse the rest the importer kept either). A damaged gzip
# member is not one: upstream's reader recovers from it without counting a line.
SKIPPED = (MALFORMED, MISSING_KIND, UNKNOWN_KIND, BAD_FIELD, "too_long")
STREAM_ORDER = ("order_rank", "order_generation", "order_offset", "order_index")


def present() -> bool:
    """Whether there is a decision log at all (upstream's `"present": false` when there is none)."""
    return SourceFile.objects.filter(kind__in=SourceFile.DECISION_KINDS).exists()


def stream_lines() -> Iterator[str | bytes]:
    """Every line the rules read: the records in stream order, then each distinct skipped line."""
    records = DecisionRecord.objects.order_by(*STREAM_ORDER).values_list("raw", flat=True)
    yield from records.iterator(chunk_size=2000)
    skipped = Quarantine.objects.filter(
        source__kind__in=SourceFile.DECISION_KINDS, reason__in=SKIPPED
    ).values_list("sha256", "raw")
    seen: set[str] = set()
    for sha, raw in skipped.iterator(chunk_size=500):
        if sha not in seen:
            seen.add(sha)
            yield bytes(raw)
