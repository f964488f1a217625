"""The import status page's query: sources, what was not read, the quarantine."""

from __future__ import annotations

from django.db.models import Count

from introspect.importer import health
from introspect.models import Quarantine, SourceFile, SourceProblem


def import_status() -> dict:
    """Per-source counters and quarantine counts for the status page."""
    return {
        "failure": health.last_failure(),
        "problems": SourceProblem.objects.order_by("area", "path")[:500],
        "problem_count": SourceProblem.objects.count(),
        "sources": SourceFile.objects.order_by("kind", "root", "rel_path", "generation"),
        "quarantine_by_reason": Quarantine.objects.values("reason").annotate(n=Count("pk")).order_by("-n"),
        "quarantine": Quarantine.objects.select_related("source").order_by("-pk")[:50],
    }
