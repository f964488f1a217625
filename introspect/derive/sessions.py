"""The one door into derivation: bring named sessions up to date after an import pass committed."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import batched

from django.db.models import F

from introspect.derive import extend, fields, rebuild
from introspect.models import Session, TranscriptEntry, WaysEvent

# Sessions rebuilt together: their reads shared, their rows written in one short transaction.
REBUILD_CHUNK = 100


def rebuild_sessions(sids: Iterable[str]) -> int:
    """Bring every named session up to date, and any built by an older version; returns how many.

    A session that only grew at its end is extended (derive/extend.py); any other is rebuilt whole.
    Called by whoever ran the import pass (ingest, serve, the bench, tests), never by the importer.
    """
    count = 0
    # Chunks keep the IN list under SQLite's bound-parameter limit however many sessions a pass touched.
    for chunk in batched(sorted(set(sids)), REBUILD_CHUNK):
        whole = []
        for session in Session.objects.filter(sid__in=chunk):
            if not extend.extend_session(session):
                whole.append(session)
            count += 1
        rebuild.rebuild_many(whole)
    behind = Session.objects.filter(derived_version__lt=fields.DERIVED_VERSION).order_by("pk")
    while older := list(behind[:REBUILD_CHUNK]):
        rebuild.rebuild_many(older)  # each now at DERIVED_VERSION: the next read moves on
        count += len(older)
    return count


def sessions_behind() -> set[str]:
    """Sessions holding rows newer than their derived rows reflect.

    A pass commits batches, then rebuilds the sessions they touched; a pass killed or failed in
    between leaves those sessions behind, and no later pass would name them again (their files
    are read). Run once per command start and after a failed pass.
    """
    events = WaysEvent.objects.filter(session__isnull=False, pk__gt=F("session__built_event_id"))
    entries = TranscriptEntry.objects.filter(session__isnull=False, pk__gt=F("session__built_entry_id"))
    return {*events.values_list("session__sid", flat=True).distinct()} | {
        *entries.values_list("session__sid", flat=True).distinct()
    }
