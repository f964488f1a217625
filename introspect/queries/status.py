"""The import status page's query: totals, the source files a page at a time, what was not read, the quarantine.

Thousands of files are normal (every transcript and subagent file is one): the totals are aggregate
queries, and the file list and the quarantine are paged, so the page's size and its query count do
not grow with the number of files.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.paginator import Page, Paginator
from django.db.models import Count, Max, Q, Sum

from introspect.importer import health, heartbeat
from introspect.models import Quarantine, SourceFile, SourceProblem
from introspect.queries import providers

SOURCES_PER_PAGE = 100
QUARANTINE_PER_PAGE = 50
DOCUMENT_PROBLEMS_PER_PAGE = 50
PROBLEMS_SHOWN = 500
SOURCE_ORDER = ("kind", "root", "rel_path", "generation")
COUNTERS = ("offset", "lines_seen", "imported", "duplicate", "quarantined", "inert")


@dataclass(frozen=True)
class StatusFilters:
    """The file list's filters, from the query string: a kind, a status, a piece of the path."""

    kind: str = ""
    status: str = ""
    q: str = ""

    @classmethod
    def parse(cls, *, kind: str, status: str, q: str) -> StatusFilters:
        """Unknown kinds and statuses read as no filter, never as an empty list."""
        return cls(
            kind=kind if kind in SourceFile.Kind.values else "",
            status=status if status in SourceFile.Status.values else "",
            q=q.strip()[:200],
        )

    @property
    def active(self) -> bool:
        return bool(self.kind or self.status or self.q)


def source_totals() -> dict:
    """Every file's counters summed, and the files by status: one aggregate query."""
    totals = SourceFile.objects.aggregate(
        files=Count("pk"),
        **{name: Sum(name, default=0) for name in COUNTERS},
        **{status: Count("pk", filter=Q(status=status)) for status in SourceFile.Status.values},
    )
    return totals


def line_roots() -> list[providers.SourceRoot]:
    """Each root the line importer reads, per kind (events logs, transcripts, majordomus ledgers):
    one aggregate query, as many rows as there are roots, not files. A root's "changed" counts its
    files truncated or replaced (each a superseded generation)."""
    rows = (
        SourceFile.objects.values("kind", "root")
        .annotate(
            files=Count("pk", filter=~Q(status=SourceFile.Status.SUPERSEDED)),
            gone=Count("pk", filter=Q(status=SourceFile.Status.GONE)),
            changed=Count("pk", filter=Q(status=SourceFile.Status.SUPERSEDED)),
            imported=Sum("imported", default=0),
            quarantined=Sum("quarantined", default=0),
            read_at=Max("updated_at"),
        )
        .order_by("kind", "root")
    )
    return [
        providers.SourceRoot(
            kind=row["kind"],
            label=row["kind"].replace("_", " "),
            root=row["root"],
            records=row["imported"],
            gone=row["gone"],
            quarantined=row["quarantined"],
            changed=row["changed"],
            read_at=row["read_at"],
            files=row["files"],
        )
        for row in rows
    ]


def source_page(filters: StatusFilters, *, page: int, files: int) -> Page:
    """The files in the order they were always listed (kind, root, path, generation), a page at a time.

    `files` is every file's count (from the totals): unfiltered, the pager needs no COUNT of its own.
    """
    sources = SourceFile.objects.order_by(*SOURCE_ORDER)
    if filters.kind:
        sources = sources.filter(kind=filters.kind)
    if filters.status:
        sources = sources.filter(status=filters.status)
    if filters.q:
        sources = sources.filter(Q(rel_path__icontains=filters.q) | Q(root__icontains=filters.q))
    paginator = Paginator(sources, SOURCES_PER_PAGE)
    if not filters.active:
        paginator.count = files  # a cached_property: set, Paginator runs no COUNT
    return paginator.get_page(page)


def quarantine_page(*, page: int, lines: int) -> Page:
    """Quarantined lines, newest first, a page at a time, with the file each came from.

    `lines` is their count (the sum of the counts by reason), so the pager runs no COUNT.
    """
    paginator = Paginator(Quarantine.objects.select_related("source").order_by("-pk"), QUARANTINE_PER_PAGE)
    paginator.count = lines
    return paginator.get_page(page)


def unread_paths() -> tuple[list[SourceProblem], int]:
    """The first paths that were not read, and how many there are (a COUNT only past the first ones)."""
    problems = SourceProblem.objects.order_by("area", "path")
    shown = list(problems[:PROBLEMS_SHOWN])
    return shown, len(shown) if len(shown) < PROBLEMS_SHOWN else problems.count()


def document_pager(documents: providers.ImportSources, page: int) -> Page:
    """A pager over the documents' problems (the provider paged the items; this only numbers pages)."""
    paginator = Paginator(range(documents.item_count), DOCUMENT_PROBLEMS_PER_PAGE)
    return paginator.get_page(page)


def import_status(
    filters: StatusFilters, *, page: int = 1, quarantine_page_number: int = 1, document_page: int = 1
) -> dict:
    """The importer's heartbeat, every root read (line files and the other apps' documents), totals,
    one page of source files, the unread paths, one page of the quarantine and one of the documents
    that were quarantined or did not check out."""
    totals = source_totals()
    documents = providers.import_sources(page=document_page, per_page=DOCUMENT_PROBLEMS_PER_PAGE)
    by_reason = list(Quarantine.objects.values("reason").annotate(n=Count("pk")).order_by("-n"))
    problems, problem_count = unread_paths()
    return {
        "failure": health.last_failure(),
        "importer": heartbeat.current(),
        "roots": line_roots() + documents.roots,
        "documents": documents,
        "document_pages": document_pager(documents, document_page),
        "totals": totals,
        "filters": filters,
        "kinds": SourceFile.Kind.values,
        "statuses": SourceFile.Status.values,
        "sources": source_page(filters, page=page, files=totals["files"]),
        "problems": problems,
        "problem_count": problem_count,
        "quarantine_by_reason": by_reason,
        "quarantine": quarantine_page(page=quarantine_page_number, lines=sum(row["n"] for row in by_reason)),
    }
