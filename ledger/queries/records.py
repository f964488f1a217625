"""Reads for the decision-record screens: the index, one record with both sides of every edge, and mentions.

The page queries (`record_list_page`, `record_detail_page`) return what the templates read; the
knowledge and stream queries ask `records_mentioned` and `mention_map` for the records a text names.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Count, Q, QuerySet

from introspect.models import TranscriptEntry
from ledger.models import AdrQuestion, AdrRecord, AdrRelation, KnowledgeRecord, LedgerEntry
from ledger.queries.questions import CITED_PREFIXES, record_checklist
from ledger.records import lifecycle
from ledger.records.provenance import provenance_fields

MENTION_LIMIT = 20


@dataclass
class Flags:
    """What does not add up across a repository's records (§13): shown, never hidden."""

    dangling: list[tuple[AdrRecord, str]] = field(default_factory=list)
    one_sided: list[tuple[AdrRecord, str, str]] = field(default_factory=list)
    no_successor: list[AdrRecord] = field(default_factory=list)
    duplicates: list[AdrRecord] = field(default_factory=list)
    cycles: list[list[str]] = field(default_factory=list)

    @property
    def count(self) -> int:
        return (
            len(self.dangling)
            + len(self.one_sided)
            + len(self.no_successor)
            + len(self.duplicates)
            + len(self.cycles)
        )


def base_id(target: str) -> str:
    """A reference without its `#section` anchor."""
    return target.split("#", 1)[0]


def is_adr_ref(target: str) -> bool:
    """Whether a reference names a decision record (not a typed `prefix:` ref)."""
    return target.upper().startswith("ADR-") or ":" not in target


def records(*, status: str = "", repo: str = "", q: str = "", open_only: bool = False) -> QuerySet[AdrRecord]:
    """Present records matching the status, repository and text filters (and, with `open_only`, only
    those with an open ruling or fork), by repository and id, each with its count of open questions."""
    rows = AdrRecord.objects.filter(present=True).annotate(
        open_questions=Count("questions", filter=Q(questions__state=AdrQuestion.State.OPEN))
    )
    if open_only:
        rows = rows.filter(open_questions__gt=0)
    if status:
        rows = rows.filter(status=status)
    if repo:
        rows = rows.filter(repo=repo)
    if q:
        rows = rows.filter(Q(canonical_id__icontains=q) | Q(title__icontains=q) | Q(body__icontains=q))
    return rows.order_by("repo", "canonical_id", "rel_path")


def repositories() -> list[str]:
    """Every repository with present records (the index's repository filter)."""
    return list(
        AdrRecord.objects.filter(present=True).values_list("repo", flat=True).distinct().order_by("repo")
    )


def flags(repo: str | None = None) -> Flags:
    """What does not add up across one repository's records, or every repository's."""
    rows = AdrRecord.objects.filter(present=True)
    if repo:
        rows = rows.filter(repo=repo)
    by_key = {(r.repo, r.canonical_id): r for r in rows}
    out = Flags(duplicates=[r for r in rows if r.duplicate])
    declared: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    relations = AdrRelation.objects.filter(source__in=rows, kind__in=("supersedes", "superseded_by"))
    for rel in relations.select_related("source"):
        declared[(rel.source.repo, rel.source.canonical_id, rel.kind)].add(base_id(rel.target))
        if is_adr_ref(rel.target) and (rel.source.repo, base_id(rel.target)) not in by_key:
            out.dangling.append((rel.source, rel.target))
    for rel in AdrRelation.objects.filter(source__in=rows, kind__in=("related", "amends")).select_related(
        "source"
    ):
        if rel.target.upper().startswith("ADR-") and (rel.source.repo, base_id(rel.target)) not in by_key:
            out.dangling.append((rel.source, rel.target))
    for (repo_, source, kind), targets in declared.items():
        reverse = "superseded_by" if kind == "supersedes" else "supersedes"
        for target in targets:
            if (repo_, target) in by_key and source not in declared.get((repo_, target, reverse), set()):
                out.one_sided.append((by_key[(repo_, source)], kind, target))
    successors = {
        (r, target) for (r, s, k), targets in declared.items() if k == "supersedes" for target in targets
    }
    for record in rows:
        has_successor = (
            declared.get((record.repo, record.canonical_id, "superseded_by"))
            or (record.repo, record.canonical_id) in successors
        )
        if record.status == "superseded" and not has_successor:
            out.no_successor.append(record)
    out.cycles = supersession_cycles(declared)
    return out


def supersession_cycles(declared) -> list[list[str]]:
    """Cycles in the supersession graph, each as the ids around it."""
    graph: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    for (repo, source, kind), targets in declared.items():
        for target in targets:
            if kind == "superseded_by":
                graph[(repo, source)].add((repo, target))
            else:
                graph[(repo, target)].add((repo, source))
    cycles, state = [], {}

    def visit(node, path):
        state[node] = 1
        for nxt in graph.get(node, ()):
            if state.get(nxt) == 1:
                cycles.append([n[1] for n in path[path.index(nxt) :]] if nxt in path else [nxt[1]])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for node in list(graph):
        if node not in state:
            visit(node, [node])
    return cycles


@dataclass
class RecordView:
    record: AdrRecord
    supersedes: list[tuple[str, AdrRecord | None, bool]]  # (target, record, declared here?)
    superseded_by: list[tuple[str, AdrRecord | None, bool]]
    related: list[tuple[str, AdrRecord | None]]
    previous: AdrRecord | None
    next: AdrRecord | None
    others_with_id: list[AdrRecord]


def record_view(record: AdrRecord) -> RecordView:
    """Both directions of every supersession edge, whichever side declared it (§13)."""
    same_repo = {r.canonical_id: r for r in AdrRecord.objects.filter(repo=record.repo, present=True)}
    mine = list(record.relations.all())
    theirs = AdrRelation.objects.filter(
        source__repo=record.repo, source__present=True, target__startswith=record.canonical_id
    ).select_related("source")
    sup, sup_by = {}, {}
    for rel in mine:
        if rel.kind == "supersedes":
            sup[rel.target] = (rel.target, same_repo.get(base_id(rel.target)), True)
        elif rel.kind == "superseded_by":
            sup_by[rel.target] = (rel.target, same_repo.get(base_id(rel.target)), True)
    for rel in theirs:
        if base_id(rel.target) != record.canonical_id or rel.source_id == record.pk:
            continue
        if rel.kind == "supersedes" and rel.source.canonical_id not in sup_by:
            sup_by[rel.source.canonical_id] = (rel.source.canonical_id, rel.source, False)
        elif rel.kind == "superseded_by" and rel.source.canonical_id not in sup:
            sup[rel.source.canonical_id] = (rel.source.canonical_id, rel.source, False)
    # Cited rulings and specs (rul:, spec:) are listed with the record's questions, not here.
    related = [
        (rel.target, same_repo.get(base_id(rel.target)))
        for rel in mine
        if rel.kind in ("related", "amends") and rel.target.partition(":")[0] not in CITED_PREFIXES
    ]
    ordered = sorted(same_repo.values(), key=sort_key)
    index = next((i for i, r in enumerate(ordered) if r.canonical_id == record.canonical_id), None)
    return RecordView(
        record=record,
        supersedes=list(sup.values()),
        superseded_by=list(sup_by.values()),
        related=related,
        previous=ordered[index - 1] if index else None,
        next=ordered[index + 1] if index is not None and index + 1 < len(ordered) else None,
        others_with_id=list(
            AdrRecord.objects.filter(
                repo=record.repo, canonical_id=record.canonical_id, present=True
            ).exclude(pk=record.pk)
        ),
    )


def sort_key(record: AdrRecord):
    """Records in number order (sub-records after their parent), unnumbered ones last, then by date."""
    number = record.number.split(".")
    return (
        (0, [int(n) for n in number if n.isdigit()], record.date) if record.number else (1, [], record.date)
    )


def id_patterns(record: AdrRecord) -> list[str]:
    """How people write this id in prose: ADR-0009, ADR-9, adr-0009."""
    patterns = {record.canonical_id}
    if record.number:
        head = record.number.split(".")[0]
        patterns |= {f"ADR-{head}", f"ADR-{int(head)}" if head.isdigit() else f"ADR-{head}", f"adr-{head}"}
    return sorted(patterns)


@dataclass
class Mentions:
    ledger: list[LedgerEntry]
    knowledge: list[KnowledgeRecord]
    messages: list[TranscriptEntry]
    made_from: list[KnowledgeRecord] = field(default_factory=list)  # also in `knowledge`, first


# How a record names the knowledge it was made from (services/records.py `record_from_knowledge` writes these refs
# into every format's provenance: a `## Provenance` list, derived_from, basis evidence).
KNOWLEDGE_REF = re.compile(r"(?<![\w-])knowledge:([A-Za-z0-9][\w.-]*)")


def knowledge_made_into(record: AdrRecord) -> list[KnowledgeRecord]:
    """The knowledge records the record's own file names as its provenance, in the file's order."""
    ids = list(dict.fromkeys(m.group(1).rstrip(".") for m in KNOWLEDGE_REF.finditer(record.body)))
    if not ids:
        return []
    found = {k.record_id: k for k in KnowledgeRecord.objects.filter(record_id__in=ids, present=True)}
    return [found[record_id] for record_id in ids if record_id in found]


def mentions(record: AdrRecord) -> Mentions:
    """Sessions (messages), ledger entries and knowledge records that name this record by id, and
    the knowledge it was made from (which cannot name it: it was written first)."""
    patterns = id_patterns(record)
    regex = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(re.escape(p) for p in patterns) + r")(?![0-9])", re.I)

    def hits(queryset, field):
        query = Q()
        for pattern in patterns:
            query |= Q(**{f"{field}__icontains": pattern})
        return [
            row for row in queryset.filter(query)[: MENTION_LIMIT * 3] if regex.search(getattr(row, field))
        ][:MENTION_LIMIT]

    made_from = knowledge_made_into(record)
    sources = {k.pk for k in made_from}
    naming = [k for k in hits(KnowledgeRecord.objects.filter(present=True), "body") if k.pk not in sources]
    return Mentions(
        ledger=hits(LedgerEntry.objects.filter(present=True).select_related("session"), "body"),
        knowledge=made_from + naming,
        made_from=made_from,
        messages=hits(
            TranscriptEntry.objects.filter(is_copy=False, inert=False).select_related("session").defer("raw"),
            "text",
        ),
    )


ADR_MENTION = re.compile(r"(?<![A-Za-z0-9])ADR[- ]?(\d{1,4}(?:\.\d+)?)(?![0-9])", re.I)


def records_mentioned(*texts: str) -> list[AdrRecord]:
    """Decision records named in some text (for the link back from sessions, entries and knowledge)."""
    return mention_map({0: " ".join(t or "" for t in texts)}).get(0, [])


def mention_map(texts: dict) -> dict:
    """For each key, the decision records its text names — one query for all of them."""
    wanted = {
        key: {m.group(1).split(".")[0].lstrip("0") or "0" for m in ADR_MENTION.finditer(text or "")}
        for key, text in texts.items()
    }
    if not any(wanted.values()):
        return {}
    by_number: dict[str, list[AdrRecord]] = defaultdict(list)
    for row in AdrRecord.objects.filter(present=True).exclude(number="").order_by("repo", "canonical_id"):
        by_number[row.number.split(".")[0].lstrip("0") or "0"].append(row)
    return {
        key: [row for n in sorted(numbers) for row in by_number.get(n, [])][:20]
        for key, numbers in wanted.items()
        if numbers
    }


def timeline(rows) -> list[tuple[str, list[AdrRecord]]]:
    """Records grouped by month of their date (undated last)."""
    groups: dict[str, list[AdrRecord]] = defaultdict(list)
    for row in sorted(rows, key=lambda r: (r.date or "9999", r.canonical_id)):
        groups[row.date[:7] if row.date else "undated"].append(row)
    return list(groups.items())


def directories() -> list[tuple[str, str]]:
    """ADR directories waysweb found, as (path, label) for the "new record" picker."""
    rows = (
        AdrRecord.objects.filter(present=True)
        .values_list("directory", "repo")
        .distinct()
        .order_by("directory")
    )
    return [
        (directory, f"{repo.rstrip('/').rsplit('/', 1)[-1]}: {directory[len(repo) :].lstrip('/')}")
        for directory, repo in rows
    ]


def charts_graph(rows: list) -> list[tuple[str, str, str]]:
    """Supersession edges among the listed records, as (from id, to id, repo) for the graph."""
    ids = {(r.repo, r.canonical_id) for r in rows}
    edges = []
    for rel in AdrRelation.objects.filter(source__in=rows, kind="supersedes").select_related("source"):
        target = base_id(rel.target)
        if (rel.source.repo, target) in ids:
            edges.append((rel.source.canonical_id, target, rel.source.repo))
    for rel in AdrRelation.objects.filter(source__in=rows, kind="superseded_by").select_related("source"):
        target = base_id(rel.target)
        if (rel.source.repo, target) in ids and (
            target,
            rel.source.canonical_id,
            rel.source.repo,
        ) not in edges:
            edges.append((target, rel.source.canonical_id, rel.source.repo))
    return edges


def record_list_page(*, status: str, repo: str, q: str, open_only: bool = False) -> dict:
    """The index: the records matching the filters, their timeline and supersession graph, and what
    does not add up in the repository (or in every repository)."""
    rows = list(records(status=status, repo=repo, q=q, open_only=open_only))
    return {
        "records": rows,
        "timeline": timeline(rows),
        "flags": flags(repo or None),
        "repos": repositories(),
        "statuses": AdrRecord.Status.values,
        "graph": charts_graph(rows),
    }


def record_detail_page(record: AdrRecord) -> dict:
    """One record: both sides of its edges, who mentions it, the status changes valid from its status
    and the records that may supersede it, and the status changes made through waysweb."""
    same_repo = (
        AdrRecord.objects.filter(repo=record.repo, present=True)
        .exclude(pk=record.pk)
        .order_by("canonical_id")
    )
    return {
        "view": record_view(record),
        "mentions": mentions(record),
        "provenance": provenance_fields(record.provenance),
        "verbs": lifecycle.verbs_from(record.status),
        "successors": same_repo,
        "actions": record.actions.all(),
        "checklist": record_checklist(record),
    }
