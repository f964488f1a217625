"""Reads for the ledger screens: the projects with entries, one project's stream, and the entries a
session page shows (the provider LedgerConfig.ready registers with introspect.queries.providers)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, OuterRef, QuerySet, Subquery

from introspect.models import Project, Session
from introspect.queries import providers
from ledger.models import LedgerEntry
from ledger.queries import records as record_queries


def project_of_slug() -> QuerySet[Project]:
    """The project whose sessions wrote into a ledger folder (outer `project_slug`), first by id.

    The folder name is a lossy slug of the project's path (knowledge-and-records.md §2.2): an entry's
    project is its session's when the session is known, else the slug shows raw."""
    return Project.objects.filter(sessions__ledger_entries__project_slug=OuterRef("project_slug")).order_by(
        "pk"
    )


def ledger_projects() -> QuerySet:
    """Each ledger folder with entries: its entry and session counts, and the project's name and path
    (None when none of its sessions is known here), in one query."""
    return (
        LedgerEntry.objects.values("project_slug")
        .annotate(
            entries=Count("pk"),
            sessions=Count("session_key", distinct=True),
            project_name=Subquery(project_of_slug().values("name")[:1]),
            project_path=Subquery(project_of_slug().values("path")[:1]),
        )
        .order_by("project_slug")
    )


@dataclass(frozen=True)
class StreamItem:
    entry: LedgerEntry
    new_session: bool
    duplicate_epoch: bool
    gap_before: int
    decisions: list = field(default_factory=list)  # the decision records its body names


def ledger_stream(slug: str) -> list[StreamItem]:
    """One project's entries in (epoch, timestamp, file name) order, with session boundaries,
    duplicate epochs and gaps flagged — never renumbered (knowledge-and-records.md §2.4) — and
    the decision records each names (one query for all)."""
    entries = list(
        LedgerEntry.objects.filter(project_slug=slug)
        .select_related("session__project")
        .order_by("epoch", "ts", "rel_path")
    )
    mentioned = record_queries.mention_map({entry.pk: entry.body for entry in entries})
    counts: dict[int, int] = {}
    for entry in entries:
        if entry.epoch is not None:
            counts[entry.epoch] = counts.get(entry.epoch, 0) + 1
    items, previous_session, previous_epoch = [], None, None
    for entry in entries:
        gap = 0
        if entry.epoch is not None and previous_epoch is not None and entry.epoch > previous_epoch + 1:
            gap = entry.epoch - previous_epoch - 1
        items.append(
            StreamItem(
                entry,
                entry.session_key != previous_session,
                entry.epoch is not None and counts.get(entry.epoch, 0) > 1,
                gap,
                mentioned.get(entry.pk, []),
            )
        )
        previous_session = entry.session_key
        previous_epoch = entry.epoch if entry.epoch is not None else previous_epoch
    return items


def entry_texts(session: Session) -> list[str]:
    """The bodies of a session's ledger entries (to find the decision records they name)."""
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


def ledger_index_page() -> dict:
    """Every project with ledger entries, with its entry and session counts."""
    return {"projects": ledger_projects()}


def ledger_stream_page(slug: str) -> dict:
    """One project's stream, each entry with the decision records it names (one query for all);
    no items when the project has no entries."""
    items = ledger_stream(slug)
    known = next((item.entry.session.project for item in items if item.entry.session), None)
    return {"slug": slug, "items": items, "project": known}


def session_notes(session: Session, turns: list, header: bool) -> providers.SessionNotes:
    """The ledger's notes on a session page (registered in LedgerConfig.ready): each entry under the
    turn it followed, and in the header the decision records the session's ledger names."""
    by_turn = {
        pk: [providers.Note("ledger/notes/turn_entry.html", entry) for entry in entries]
        for pk, entries in entries_by_turn(session, turns).items()
    }
    notes = providers.SessionNotes(by_turn=by_turn)
    if header:
        decisions = record_queries.records_mentioned(*entry_texts(session), session.title)
        if decisions:
            notes.header.append(providers.Note("ledger/notes/session_decisions.html", decisions))
    return notes
