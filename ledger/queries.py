"""Reads for the ledger and knowledge screens."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.core.paginator import Page, Paginator
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from introspect.models import Project, Session
from introspect.queries import providers
from ledger import adr_queries
from ledger.models import KnowledgeEvent, KnowledgeRecord, LedgerEntry, MjLedgerLine, ReviewAction

QUEUE_PAGE = 50


def ledger_projects() -> QuerySet:
    return (LedgerEntry.objects.values("project_slug").annotate(entries=Count("pk"),
                                                                 sessions=Count("session_key", distinct=True))
            .order_by("project_slug"))


@dataclass(frozen=True)
class StreamItem:
    entry: LedgerEntry
    new_session: bool
    duplicate_epoch: bool
    gap_before: int


def ledger_stream(slug: str) -> list[StreamItem]:
    """One project's entries in (epoch, timestamp, file name) order, with session boundaries,
    duplicate epochs and gaps flagged — never renumbered (knowledge-and-records.md §2.4)."""
    entries = list(LedgerEntry.objects.filter(project_slug=slug).select_related("session")
                   .order_by("epoch", "ts", "rel_path"))
    counts: dict[int, int] = {}
    for entry in entries:
        if entry.epoch is not None:
            counts[entry.epoch] = counts.get(entry.epoch, 0) + 1
    items, previous_session, previous_epoch = [], None, None
    for entry in entries:
        gap = 0
        if entry.epoch is not None and previous_epoch is not None and entry.epoch > previous_epoch + 1:
            gap = entry.epoch - previous_epoch - 1
        items.append(StreamItem(entry, entry.session_key != previous_session,
                                entry.epoch is not None and counts.get(entry.epoch, 0) > 1, gap))
        previous_session = entry.session_key
        previous_epoch = entry.epoch if entry.epoch is not None else previous_epoch
    return items


def entries_for_session(session: Session) -> list[LedgerEntry]:
    return list(LedgerEntry.objects.filter(session_key=session.sid).order_by("ts", "epoch"))


def entry_texts(session: Session) -> list[str]:
    return list(LedgerEntry.objects.filter(session_key=session.sid).values_list("body", flat=True))


def entries_by_turn(session: Session, turns: list) -> dict[int, list[LedgerEntry]]:
    """Each ledger entry placed after the last turn of the page that started at or before it."""
    if not turns:
        return {}
    entries = LedgerEntry.objects.filter(session_key=session.sid, ts__isnull=False, ts__gte=turns[0].ts)
    nxt = session.turns.filter(epoch=turns[-1].epoch + 1).values_list("ts", flat=True).first()
    if nxt is not None:
        entries = entries.filter(ts__lt=nxt)
    out: dict[int, list[LedgerEntry]] = {}
    for entry in entries.order_by("ts", "epoch"):
        owner = [turn for turn in turns if turn.ts <= entry.ts][-1]
        out.setdefault(owner.pk, []).append(entry)
    return out


@dataclass(frozen=True)
class QueueFilters:
    status: str = "candidate"
    klass: str = ""
    project: int | None = None
    origin: str = ""
    older_than: int | None = None  # days


def queue(filters: QueueFilters, *, page: int) -> Page:
    records = KnowledgeRecord.objects.select_related("session", "session__project", "ledger_entry")
    if filters.status:
        records = records.filter(status=filters.status)
    if filters.klass:
        records = records.filter(klass=filters.klass)
    if filters.project:
        records = records.filter(session__project_id=filters.project)
    if filters.origin:
        records = records.filter(origin=filters.origin)
    if filters.older_than:
        records = records.filter(first_seen__lte=timezone.now() - timedelta(days=filters.older_than))
    return Paginator(records.filter(present=True).order_by("-first_seen", "record_id"), QUEUE_PAGE).get_page(page)


def queue_counts() -> dict[str, int]:
    rows = KnowledgeRecord.objects.filter(present=True).values("status").annotate(n=Count("pk"))
    return {row["status"]: row["n"] for row in rows}


def projects_with_knowledge() -> QuerySet[Project]:
    return Project.objects.filter(sessions__knowledge__isnull=False).distinct().order_by("name")


def similar(record: KnowledgeRecord) -> list[KnowledgeRecord]:
    """Other pending records about the same subject or sharing title words: merge candidates."""
    words = [w for w in record.title.lower().split() if len(w) > 4][:6]
    query = Q(about=record.about) if record.about else Q()
    for word in words:
        query |= Q(title__icontains=word)
    if not query:
        return []
    return list(KnowledgeRecord.objects.filter(query, status=KnowledgeRecord.Status.CANDIDATE, present=True)
                .exclude(pk=record.pk)[:5])


def pipeline_events() -> list[KnowledgeEvent]:
    return list(KnowledgeEvent.objects.select_related("session").order_by("-at")[:20])


def pipeline_failures() -> list:
    ours = list(KnowledgeEvent.objects.filter(kind=KnowledgeEvent.Kind.FAILED).select_related("session"))
    theirs = list(MjLedgerLine.objects.filter(event="provider.event.failed").order_by("-ts_raw")[:20])
    return ours + theirs


def audit_log(record: KnowledgeRecord | None = None) -> QuerySet[ReviewAction]:
    actions = ReviewAction.objects.select_related("record", "reviewer")
    return actions.filter(record=record) if record else actions[:200]


def session_notes(session: Session, turns: list, header: bool) -> providers.SessionNotes:
    """The ledger's notes on a session page (registered in LedgerConfig.ready): each entry under the
    turn it followed, and in the header the decision records the session's ledger names."""
    by_turn = {pk: [providers.Note("ledger/notes/turn_entry.html", entry) for entry in entries]
               for pk, entries in entries_by_turn(session, turns).items()}
    notes = providers.SessionNotes(by_turn=by_turn)
    if header:
        decisions = adr_queries.records_mentioned(*entry_texts(session), session.title)
        if decisions:
            notes.header.append(providers.Note("ledger/notes/session_decisions.html", decisions))
    return notes
