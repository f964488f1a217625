"""A record's rulings and forks into `AdrQuestion` rows, kept in step with its file.

Rows are matched by key, so a question keeps its `first_seen` (the backlog's age for undated records)
across re-imports; a question gone from the file is gone from the rows. The file is the truth: a
ruling written by hand, by waysweb or by git checkout reads the same.
"""

from __future__ import annotations

from introspect.importer import secret_rows
from ledger.models import AdrQuestion, AdrRecord
from ledger.records import questions


def read_questions(raw: bytes, doc) -> questions.Questions:
    """The questions of a parsed record's file (MADR's outcome dated and signed by its deciders)."""
    return questions.read(raw, fmt=doc.format, date=doc.date, deciders=list(doc.deciders))


def rows_for(found: questions.Questions) -> list[dict]:
    """Field values per question, in file order (rulings first, as the page lists them)."""
    out = []
    for ruling in found.rulings:
        out.append(
            {
                "kind": AdrQuestion.Kind.RULING,
                "key": ruling.key,
                "text": ruling.question,
                "options": [list(option) for option in ruling.options],
                "recommendation": ruling.recommendation,
                "state": AdrQuestion.State.RULED if ruling.chosen else AdrQuestion.State.OPEN,
                "chosen": ruling.chosen,
                "ruled_at": ruling.ruled_at,
                "ruled_by": ruling.ruled_by[:150],
                "quote": ruling.quote,
            }
        )
    for fork in found.forks:
        resolved = fork.state == "resolved"
        out.append(
            {
                "kind": AdrQuestion.Kind.FORK,
                "key": fork.key,
                "text": fork.description,
                "options": [],
                "recommendation": "",
                "state": AdrQuestion.State.RESOLVED if resolved else AdrQuestion.State.OPEN,
                "chosen": fork.resolved_by,
                "ruled_at": fork.resolved_at,
                "ruled_by": fork.who[:150],
                "quote": fork.quote,
            }
        )
    return out


QUESTION_TEXTS = ("text", "options", "recommendation", "chosen", "quote")


def store_questions(row: AdrRecord, found: questions.Questions, now) -> None:
    """Make the record's question rows say what its file says (call inside the import's transaction)."""
    existing = {(q.kind, q.key): q for q in row.questions.all()}
    wanted = rows_for(found)
    # Found in the record's body already (its findings are the record's): masked in team mode only.
    scan = secret_rows.DocumentScan()
    for values in wanted:
        for name in QUESTION_TEXTS:
            values[name] = scan.value(values[name])
    keep = set()
    for position, values in enumerate(wanted):
        key = (values["kind"], values["key"])
        keep.add(key)
        question = existing.get(key) or AdrQuestion(record=row, first_seen=now)
        for name, value in {**values, "position": position}.items():
            setattr(question, name, value)
        question.save()
    gone = [q.pk for key, q in existing.items() if key not in keep]
    if gone:
        AdrQuestion.objects.filter(pk__in=gone).delete()
