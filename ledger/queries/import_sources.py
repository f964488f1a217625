"""The ledger's rows on the import status page: each root read, and the documents that did not check out.

introspect's status page lists the files its line importer reads; ledger entries, knowledge records,
ADR files and Claude Code's memory files are documents read whole, so their roots and problems come
from here (registered in LedgerConfig.ready, asked for by introspect/queries/status.py). One
aggregate query (a union of one per kind, grouped by root) and one page of problems across the four kinds: the query
count does not grow with the number of roots or documents. The majordomus `ledger.jsonl` files go
through introspect's line importer and are listed with its files.
"""

from __future__ import annotations

import contextlib

import orjson
from django.db.models import CharField, Count, DateTimeField, Max, Q, TextField, Value
from django.db.models.functions import Cast, Concat
from django.urls import reverse
from django.utils.dateparse import parse_datetime

from introspect.queries.providers import ImportSources, SourceItem, SourceRoot
from ledger.importer import passlog
from ledger.models import AdrRecord, KnowledgeRecord, LedgerEntry, Memory, MemoryVersion

LABELS = {
    passlog.ENTRIES: "ledger entry",
    passlog.KNOWLEDGE: "knowledge record",
    passlog.ADRS: "ADR file",
    passlog.MEMORY: "memory file",
}

ENTRY_PROBLEM = ~Q(quarantine_reason="")
KNOWLEDGE_PROBLEM = ~Q(problem="") | ~Q(conflict="")
ADR_PROBLEM = ~Q(problems=[])
MEMORY_PROBLEM = ~Q(versions__quarantine_reason="")


def per_root(model, kind: str, root: str, problem: Q, read: str):
    """One row per root of one kind: records there now, gone upstream, with a problem, the newest read."""
    return (
        model.objects.annotate(s_kind=Value(kind, output_field=CharField()), s_root=Cast(root, TextField()))
        .values("s_kind", "s_root")
        .annotate(  # distinct: a memory's problem is found through its versions (a join)
            records=Count("pk", filter=Q(present=True), distinct=True),
            gone=Count("pk", filter=Q(present=False), distinct=True),
            quarantined=Count("pk", filter=problem, distinct=True),
            newest=Max(read),
        )
        .values_list("s_kind", "s_root", "records", "gone", "quarantined", "newest")
        .order_by()  # the models' own orderings would name columns a union does not have
    )


def source_roots() -> tuple[list[SourceRoot], int]:
    """Every ledger root with its counts (one query over the four kinds), and how many documents
    have a problem (for the pager)."""
    log = passlog.load()
    rows = (
        per_root(LedgerEntry, passlog.ENTRIES, "root", ENTRY_PROBLEM, "read_at")
        .union(
            per_root(KnowledgeRecord, passlog.KNOWLEDGE, "directory", KNOWLEDGE_PROBLEM, "updated_at"),
            per_root(AdrRecord, passlog.ADRS, "repo", ADR_PROBLEM, "read_at"),
            per_root(Memory, passlog.MEMORY, "claude_dir", MEMORY_PROBLEM, "first_seen"),
            all=True,
        )
        .order_by()
    )  # sorted below, by kind first (a union would otherwise take LedgerEntry's ordering)
    roots: list[SourceRoot] = []
    for kind, root, records, gone, quarantined, newest in rows:
        seen = log.get(passlog.key(kind, root), {})
        roots.append(
            SourceRoot(
                kind=kind,
                label=LABELS[kind],
                root=root,
                records=records,
                gone=gone,
                quarantined=quarantined,
                changed=seen.get("changed"),
                # Without a recorded pass (one from before the log), the newest row read.
                read_at=passlog.when(seen.get("read_at")) or as_datetime(newest),
                changed_at=passlog.when(seen.get("changed_at")),
            )
        )
    order = {kind: n for n, kind in enumerate(passlog.KINDS)}
    roots.sort(key=lambda r: (order[r.kind], r.root))
    return roots, sum(root.quarantined for root in roots)


def as_datetime(value):
    """A Max() over a union comes back as text on SQLite (the union loses the column's type)."""
    if isinstance(value, str):
        return parse_datetime(value)
    return value


COLUMNS = ("s_kind", "s_root", "s_path", "s_reason", "s_at", "pk", "s_slug")


def problem_rows():
    """Problem documents of the four kinds as one query: (kind, root, path, reason, at, pk, slug)."""
    text = TextField()
    entries = LedgerEntry.objects.filter(ENTRY_PROBLEM).annotate(
        s_kind=Value(passlog.ENTRIES, output_field=CharField()),
        s_root=Cast("root", text),
        s_path=Cast("rel_path", text),
        s_reason=Concat("quarantine_reason", Value(": "), "quarantine_detail", output_field=text),
        s_at=Cast("read_at", DateTimeField()),
        s_slug=Cast("project_slug", text),
    )
    records = KnowledgeRecord.objects.filter(KNOWLEDGE_PROBLEM).annotate(
        s_kind=Value(passlog.KNOWLEDGE, output_field=CharField()),
        s_root=Cast("directory", text),
        s_path=Concat("source_class", Value("/"), "record_id", Value(".md"), output_field=text),
        s_reason=Concat("problem", Value(" "), "conflict", output_field=text),
        s_at=Cast("updated_at", DateTimeField()),
        s_slug=Value("", output_field=text),
    )
    adrs = AdrRecord.objects.filter(ADR_PROBLEM).annotate(
        s_kind=Value(passlog.ADRS, output_field=CharField()),
        s_root=Cast("repo", text),
        s_path=Cast("rel_path", text),
        s_reason=Cast("problems", text),
        s_at=Cast("read_at", DateTimeField()),
        s_slug=Value("", output_field=text),
    )
    memories = MemoryVersion.objects.exclude(quarantine_reason="").annotate(
        s_kind=Value(passlog.MEMORY, output_field=CharField()),
        s_root=Cast("memory__claude_dir", text),
        s_path=Concat(
            "memory__project_slug",
            Value("/memory/"),
            "memory__name",
            Value(" v"),
            "number",
            output_field=text,
        ),
        s_reason=Concat("quarantine_reason", Value(": "), "quarantine_detail", output_field=text),
        s_at=Cast("seen_at", DateTimeField()),
        s_slug=Cast("memory__project_slug", text),
    )
    others = (records, adrs, memories)
    return (
        entries.values_list(*COLUMNS)
        .order_by()
        .union(*(rows.values_list(*COLUMNS).order_by() for rows in others), all=True)
    )


def item(kind: str, root: str, path: str, reason: str, at, pk: int, slug: str) -> SourceItem:
    if kind == passlog.ADRS:
        with contextlib.suppress(orjson.JSONDecodeError, TypeError):  # else shown as stored
            reason = "; ".join(str(p) for p in orjson.loads(reason))
        url = reverse("ledger:record-detail", args=[pk])
    elif kind == passlog.KNOWLEDGE:
        url = reverse("ledger:candidate-detail", args=[pk])
    elif kind == passlog.MEMORY:
        url = reverse("ledger:memory-project", args=[slug])  # pk: the version's; its card holds it
    else:
        url = reverse("ledger:ledger-stream", args=[slug]) if slug else ""
    return SourceItem(
        kind=kind, label=LABELS[kind], root=root, path=path, reason=reason.strip(), at=at, url=url
    )


def import_sources(page: int, per_page: int) -> ImportSources:
    """The ledger's roots and one page of its problem documents, newest read first."""
    roots, count = source_roots()
    last_page = max(1, -(-count // per_page))
    page = min(max(page, 1), last_page)
    start = (page - 1) * per_page
    rows = problem_rows().order_by("-s_at", "s_kind", "s_path")[start : start + per_page] if count else []
    return ImportSources(roots=roots, items=[item(*row) for row in rows], item_count=count)
