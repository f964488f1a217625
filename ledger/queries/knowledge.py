"""Reads for the knowledge screens: the review queue, one candidate, the audit trail.

The page queries (`candidate_list_page`, `candidate_detail_page`, `audit_list_page`) return what the
templates read, beside the forms the views add.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.core.paginator import Page, Paginator
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from introspect.models import Project
from introspect.queries import fire_turns
from ledger.models import KnowledgeEvent, KnowledgeRecord, MjLedgerLine, ReviewAction
from ledger.queries import records as record_queries
from ledger.records.provenance import provenance_fields

QUEUE_PAGE = 50


@dataclass(frozen=True)
class QueueFilters:
    status: str = "candidate"  # a KnowledgeRecord.Status, or "rejected" (superseded by nothing)
    klass: str = ""
    project: int | None = None
    origin: str = ""
    older_than: int | None = None  # days


def queue(filters: QueueFilters, *, page: int) -> Page:
    """A page of the review queue, newest first, narrowed by the filters."""
    records = KnowledgeRecord.objects.select_related("session", "session__project", "ledger_entry")
    if filters.status:
        records = records.filter(status_is(filters.status))
    if filters.klass:
        records = records.filter(klass=filters.klass)
    if filters.project:
        records = records.filter(session__project_id=filters.project)
    if filters.origin:
        records = records.filter(origin=filters.origin)
    if filters.older_than:
        records = records.filter(first_seen__lte=timezone.now() - timedelta(days=filters.older_than))
    return Paginator(records.filter(present=True).order_by("-first_seen", "record_id"), QUEUE_PAGE).get_page(
        page
    )


def status_is(label: str) -> Q:
    """Records whose status a person reads as `label` (KnowledgeRecord.status_label)."""
    superseded = Q(status=KnowledgeRecord.Status.SUPERSEDED)
    if label == "rejected":
        return superseded & Q(superseded_by="")
    if label == KnowledgeRecord.Status.SUPERSEDED:
        return superseded & ~Q(superseded_by="")
    return Q(status=label)


QUEUE_LABELS = ("candidate", "verified", "rejected", "superseded")


def queue_counts() -> dict[str, int]:
    """How many present records a person reads under each status, in one query."""
    return KnowledgeRecord.objects.filter(present=True).aggregate(
        **{label: Count("pk", filter=status_is(label)) for label in QUEUE_LABELS}
    )


def projects_with_knowledge() -> QuerySet[Project]:
    """Projects whose sessions have knowledge records (the queue's project filter)."""
    return Project.objects.filter(sessions__knowledge__isnull=False).distinct().order_by("name")


def similar(record: KnowledgeRecord) -> list[KnowledgeRecord]:
    """Other pending records about the same subject or sharing title words: merge candidates."""
    words = [w for w in record.title.lower().split() if len(w) > 4][:6]
    query = Q(about=record.about) if record.about else Q()
    for word in words:
        query |= Q(title__icontains=word)
    if not query:
        return []
    return list(
        KnowledgeRecord.objects.filter(query, status=KnowledgeRecord.Status.CANDIDATE, present=True).exclude(
            pk=record.pk
        )[:5]
    )


def pipeline_events() -> list[KnowledgeEvent]:
    """The deriver's last 20 events (those of one instant newest written first: a pass stamps many)."""
    return list(KnowledgeEvent.objects.select_related("session").order_by("-at", "-pk")[:20])


def pipeline_failures() -> list:
    """The deriver's failed boundaries, and majordomus' last 20 `provider.event.failed` lines."""
    ours = list(
        KnowledgeEvent.objects.filter(kind=KnowledgeEvent.Kind.FAILED)
        .select_related("session")
        .order_by("-at", "-pk")
    )
    theirs = list(MjLedgerLine.objects.filter(event="provider.event.failed").order_by("-ts_raw", "-pk")[:20])
    return ours + theirs


def audit_log(record: KnowledgeRecord | None = None) -> QuerySet[ReviewAction]:
    """One record's review actions, or the last 200 of all of them."""
    actions = ReviewAction.objects.select_related("record", "reviewer")
    return actions.filter(record=record) if record else actions[:200]


def pending_candidates() -> QuerySet[KnowledgeRecord]:
    """The records a bulk action or a merge may pick: candidates whose file is still there."""
    return KnowledgeRecord.objects.filter(status=KnowledgeRecord.Status.CANDIDATE, present=True)


def turns_page(record: KnowledgeRecord) -> int | None:
    """The first turn of the session page that shows the turns the record came from."""
    if not (record.session and record.turn_epochs):
        return None
    size = fire_turns.TURNS_PER_PAGE
    first = record.turn_epochs[0]
    return first - (first - 1) % size


def candidate_list_page(filters: QueueFilters, *, page: int) -> dict:
    """The queue: a page of records, the counts per status, the filters' choices, and the pipeline's
    recent events and failures."""
    return {
        "page": queue(filters, page=page),
        "counts": queue_counts(),
        "classes": KnowledgeRecord.CLASSES,
        "projects": projects_with_knowledge(),
        "events": pipeline_events(),
        "failures": pipeline_failures(),
    }


def candidate_detail_page(record: KnowledgeRecord) -> dict:
    """One record: its audit trail, similar pending records (to merge), where its turns are, the
    decision records it names, its provenance as fields, and the ADR directories a verified record
    may become a record in."""
    provenance = record.frontmatter.get("provenance") if isinstance(record.frontmatter, dict) else None
    return {
        # The file's provenance mapping; a row without one (made here, not read) has derived_from only.
        "provenance": provenance_fields(provenance or {"derived_from": record.derived_from}),
        "actions": audit_log(record),
        "similar": similar(record),
        "turns_page": turns_page(record),
        "adr_directories": record_queries.directories() if record.status == "verified" else [],
        "decisions_mentioned": record_queries.records_mentioned(
            record.title, record.description, record.body
        ),
    }


def audit_list_page() -> dict:
    """Every decision a person made on a knowledge record, newest first."""
    return {"actions": audit_log()}
