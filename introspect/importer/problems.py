"""What the importer refused to read, kept per area so the status page and every header show it.

An area is one kind of scan (events, transcripts, ways, ledger, knowledge, records, majordomus
ledgers, spills). A scan that covered its whole area replaces that area's rows for this host:
a problem fixed upstream disappears on the next pass. A partial scan (a spill read while one
session is derived) only adds.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from introspect.models import SourceProblem
from lib import safefs
from lib.hashing import sha256_text


def record(area: str, found: Iterable[safefs.Problem], *, replace: bool = True) -> int:
    """Store this host's problems of `area`; with `replace`, drop those no longer found. Returns how many."""
    now = timezone.now()
    host = settings.WAYSWEB_HOST
    wanted = {sha256_text(problem.path): problem for problem in found}
    with transaction.atomic():
        existing = {row.path_sha256: row for row in SourceProblem.objects.filter(host=host, area=area)}
        if replace:
            stale = [row.pk for digest, row in existing.items() if digest not in wanted]
            if stale:
                SourceProblem.objects.filter(pk__in=stale).delete()
        fresh = []
        for digest, problem in wanted.items():
            row = existing.get(digest)
            if row is None:
                fresh.append(
                    SourceProblem(
                        host=host,
                        area=area,
                        path=problem.path,
                        path_sha256=digest,
                        reason=problem.reason,
                        detail=problem.detail,
                        first_seen=now,
                        last_seen=now,
                    )
                )
            elif (row.reason, row.detail) != (problem.reason, problem.detail):
                SourceProblem.objects.filter(pk=row.pk).update(
                    reason=problem.reason, detail=problem.detail, last_seen=now
                )
        # Another importer of this host cannot run (the lock), but a racing pass of a lock-less test
        # or a second host never collides: each host has its own rows.
        SourceProblem.objects.bulk_create(fresh, ignore_conflicts=True)
    return len(wanted)


def forget(area: str, paths: Iterable[str]) -> None:
    """Drop these paths of `area` on this host (a partial scan that found them fixed)."""
    digests = [sha256_text(path) for path in paths]
    SourceProblem.objects.filter(host=settings.WAYSWEB_HOST, area=area, path_sha256__in=digests).delete()
