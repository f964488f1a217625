"""The one door into derivation: bring named sessions up to date after an import pass committed."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import batched

from introspect.derive import extend, fields, rebuild
from introspect.models import Session


def rebuild_sessions(sids: Iterable[str]) -> int:
    """Bring every named session up to date, and any built by an older version; returns how many.

    A session that only grew at its end is extended (derive/extend.py); any other is rebuilt whole.
    Called by whoever ran the import pass (ingest, serve, the bench, tests), never by the importer.
    """
    count = 0
    # Chunks keep the IN list under SQLite's bound-parameter limit however many sessions a pass touched.
    for chunk in batched(sorted(set(sids)), 500):
        for session in Session.objects.filter(sid__in=chunk):
            if not extend.extend_session(session):
                rebuild.rebuild_session(session)
            count += 1
    for session in Session.objects.filter(derived_version__lt=fields.DERIVED_VERSION):
        rebuild.rebuild_session(session)
        count += 1
    return count
