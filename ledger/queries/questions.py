"""Reads for the questions records put to a person: one record's checklist, and the decision backlog.

The checklist lists open questions first, each with its recommendation; the backlog lists every open
ruling and fork across repositories, oldest first (by the record's date, else when waysweb first saw
the question), with its record and age.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date as Date

from django.db.models import Q
from django.utils import timezone

from ledger.models import AdrQuestion, AdrRecord, AdrRelation

CITED_PREFIXES = {"rul": "RUL", "spec": "SPEC"}
BACKLOG_LIMIT = 500


@dataclass(frozen=True)
class Cited:
    ref: str  # the typed ref: rul:035
    label: str  # as people write it: RUL-035
    record: AdrRecord | None  # the imported record of that id, if any


@dataclass
class Checklist:
    rulings: list[AdrQuestion]
    forks: list[AdrQuestion]
    cited: list[Cited]

    @property
    def open_count(self) -> int:
        return sum(q.is_open for q in [*self.rulings, *self.forks])

    @property
    def ruling_keys(self) -> list[str]:
        return [q.key for q in self.rulings]


def open_first(rows: list[AdrQuestion]) -> list[AdrQuestion]:
    """Open questions before settled ones, each group in file order."""
    return sorted(rows, key=lambda q: (not q.is_open, q.position))


def label_of(ref: str) -> str:
    """`RUL-035` for the typed ref `rul:035`."""
    prefix, _, rest = ref.partition(":")
    return f"{CITED_PREFIXES[prefix]}-{rest}"


def cited_for(record: AdrRecord, relations: list[AdrRelation]) -> list[Cited]:
    """The rulings and specs the record cites, each linked to its record when one of that id is
    imported (same repository first): one query for all of them."""
    refs = [rel.target for rel in relations if rel.target.partition(":")[0] in CITED_PREFIXES]
    if not refs:
        return []
    query = Q()
    for ref in refs:
        query |= Q(canonical_id__iexact=label_of(ref)) | Q(canonical_id__istartswith=f"{label_of(ref)}-")
    found: dict[str, AdrRecord] = {}
    # Same-repository records sort first, so they win over another repository's record of the same id.
    rows = AdrRecord.objects.filter(query, present=True).only("pk", "repo", "canonical_id", "title")
    for row in sorted(rows, key=lambda r: r.repo != record.repo):
        for ref in refs:
            label = label_of(ref).upper()
            cid = row.canonical_id.upper()
            if ref not in found and (cid == label or cid.startswith(f"{label}-")):
                found[ref] = row
    return [Cited(ref=ref, label=label_of(ref), record=found.get(ref)) for ref in refs]


def record_checklist(record: AdrRecord) -> Checklist:
    """One record's rulings and forks (open ones first) and the rulings/specs it cites."""
    questions = list(record.questions.all())
    relations = list(record.relations.filter(kind=AdrRelation.Kind.RELATED))
    return Checklist(
        rulings=open_first([q for q in questions if q.kind == AdrQuestion.Kind.RULING]),
        forks=open_first([q for q in questions if q.kind == AdrQuestion.Kind.FORK]),
        cited=cited_for(record, relations),
    )


@dataclass(frozen=True)
class BacklogItem:
    question: AdrQuestion
    opened: Date
    age_days: int

    @property
    def record(self) -> AdrRecord:
        return self.question.record


def opened_on(question: AdrQuestion) -> Date:
    """A question is as old as its record's date; an undated record's, as when waysweb first saw it."""
    try:
        return Date.fromisoformat(question.record.date)
    except ValueError:
        return timezone.localdate(question.first_seen)


def open_questions():
    """Every open question of a present record (the backlog and its count)."""
    return AdrQuestion.objects.filter(state=AdrQuestion.State.OPEN, record__present=True)


def backlog_page(*, repo: str = "", kind: str = "") -> dict:
    """The decision backlog: open rulings and forks across repositories, oldest first, in one query."""
    rows = open_questions().select_related("record").defer("record__body", "record__sections")
    if repo:
        rows = rows.filter(record__repo=repo)
    if kind in AdrQuestion.Kind.values:
        rows = rows.filter(kind=kind)
    today = timezone.localdate()
    items = []
    for question in rows.order_by("record__date", "first_seen", "record_id", "position")[:BACKLOG_LIMIT]:
        opened = opened_on(question)
        items.append(BacklogItem(question=question, opened=opened, age_days=(today - opened).days))
    items.sort(key=lambda item: (item.opened, item.question.record_id, item.question.position))
    return {
        "items": items,
        "limited": len(items) == BACKLOG_LIMIT,
        "repo": repo,
        "kind": kind,
        "repos": list(
            open_questions().values_list("record__repo", flat=True).distinct().order_by("record__repo")
        ),
    }
