"""Decision records: status changes, rulings and new records (knowledge-and-records.md §13).

Status changes go through the format's own writer (ledger/records/edit.py), which changes only the
status lines and keeps every other byte; a supersession updates both files, each atomically, and one
audit row names them both. A ruling (or a fork closed by one) adds one line to the record's file
(ledger/records/rule.py).
"""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

from django.conf import settings
from django.db import transaction

from ledger import files
from ledger.importer import adr_load
from ledger.models import AdrAction, AdrQuestion, AdrRecord, KnowledgeRecord
from ledger.records import edit, lifecycle, new, parse, rule
from ledger.services.acts import Conflict, Refused, Reviewer
from lib import safefs
from lib.hashing import sha256


def conflict(record: AdrRecord, message: str) -> Conflict:
    """The conflict to raise, once the record's file has been read again: the answer shows what the
    file says now, not what the last full pass read (as services/knowledge.py `conflict`)."""
    adr_load.import_record(record, adr_dirs())
    return Conflict(record, message)


def adr_dirs() -> tuple[str, ...]:
    """The ADR directories configured beyond the conventional ones (a re-read without them would
    take the records there for gone)."""
    return tuple(settings.WAYSWEB_ADR_DIRS)


# The verbs that rewrite one file's status lines; "supersede" rewrites two (§13).
STATUS_BY_VERB = {verb: lifecycle.AFTER[verb] for verb in ("accept", "deprecate")}


def current_record(record: AdrRecord, loaded_sha256: str) -> tuple[Path, bytes, parse.AdrDoc]:
    """A decision record's file, bytes and parse; a conflict when gone or changed since the page loaded."""
    path = Path(record.path)
    try:
        raw = files.read(Path(record.repo), path)
    except FileNotFoundError:
        raise conflict(record, f"{record.rel_path} is gone from the repository") from None
    except files.Unsafe as exc:
        raise Refused(str(exc)) from None
    if loaded_sha256 and sha256(raw) != loaded_sha256:
        raise conflict(record, "the file changed since this page was loaded; here is what it says now")
    return path, raw, parse.parse_adr(raw, rel_path=record.rel_path)


def write_record(repo: Path, target: Path, data: bytes) -> None:
    """Write a record file, refused (nothing written) when it would leave the repository."""
    try:
        files.write_atomic(repo, target, data)
    except files.Unsafe as exc:
        raise Refused(str(exc)) from None


def link_to(record: AdrRecord, from_record: AdrRecord) -> str:
    """A relative link from one record's file to another's, as adr-tools writes them."""
    return os.path.relpath(record.path, Path(from_record.path).parent)


def record_set_status(
    *,
    record: AdrRecord,
    verb: str,
    reviewer: Reviewer,
    successor: AdrRecord | None = None,
    loaded_sha256: str = "",
    note: str = "",
) -> AdrRecord:
    """Accept, deprecate or supersede (by `successor`): each file written atomically, then one audit row."""
    today = date.today().isoformat()
    path, raw, doc = current_record(record, loaded_sha256)
    if record.duplicate:
        raise Refused("two files claim this id; resolve the duplicate before changing its status")
    refused = lifecycle.refusal(record.status, verb)
    if refused:
        raise Refused(refused)
    writes: list[tuple[Path, bytes, bytes]] = []
    if verb in STATUS_BY_VERB:
        writes.append((path, raw, edit.set_status(raw, doc, STATUS_BY_VERB[verb], today=today)))
        after = STATUS_BY_VERB[verb]
    else:  # supersede: lifecycle.refusal let nothing else through
        if successor is None or successor.pk == record.pk or successor.repo != record.repo:
            raise Refused("pick the record (in the same repository) that supersedes this one")
        s_path, s_raw, s_doc = current_record(successor, "")
        writes.append(
            (path, raw, edit.add_superseded_by(raw, doc, successor.canonical_id, link_to(successor, record)))
        )
        writes.append(
            (
                s_path,
                s_raw,
                edit.add_supersedes(s_raw, s_doc, record.canonical_id, link_to(record, successor)),
            )
        )
        after = "superseded"
    for target, _, data in writes:
        write_record(Path(record.repo), target, data)
    with transaction.atomic():
        AdrAction.objects.create(
            record=record,
            record_id_text=record.canonical_id,
            verb=verb,
            reviewer=reviewer.user,
            reviewer_name=reviewer.name,
            note=note,
            status_before=record.status,
            status_after=after,
            files=[[str(target), sha256(before), sha256(data)] for target, before, data in writes],
        )
    adr_load.import_repo(Path(record.repo), adr_dirs())
    return AdrRecord.objects.get(pk=record.pk)


def question_write(
    *, record: AdrRecord, verb: str, reviewer: Reviewer, note: str, loaded_sha256: str, write
) -> AdrRecord:
    """One line added to the record's file by `write(raw, doc, today)`, then its audit row, then a
    re-import so the rows say what the file now says. A question no longer open is a conflict."""
    path, raw, doc = current_record(record, loaded_sha256)
    try:
        data = write(raw, doc, date.today().isoformat())
    except rule.NotOpen as exc:
        raise conflict(record, f"{exc}; here is the record as it stands") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise Refused(f"waysweb cannot write into this file: {exc}") from None
    write_record(Path(record.repo), path, data)
    AdrAction.objects.create(
        record=record,
        record_id_text=record.canonical_id,
        verb=verb,
        reviewer=reviewer.user,
        reviewer_name=reviewer.name,
        note=note,
        status_before=record.status,
        status_after=record.status,
        files=[[str(path), sha256(raw), sha256(data)]],
    )
    adr_load.import_repo(Path(record.repo), adr_dirs())
    return AdrRecord.objects.get(pk=record.pk)


def already(record: AdrRecord, *, kind: str, key: str, chosen: str, reviewer: Reviewer) -> bool:
    """Whether this person's act already stands (a repeated POST): then it is not done twice."""
    return (
        AdrQuestion.objects.filter(record=record, kind=kind, key=key, chosen=chosen, ruled_by=reviewer.name)
        .exclude(state=AdrQuestion.State.OPEN)
        .exists()
    )


def record_rule(
    *, record: AdrRecord, key: str, chosen: str, reason: str, reviewer: Reviewer, loaded_sha256: str = ""
) -> AdrRecord:
    """Rule on question `key`: `RULED <today> — option <chosen> (<reviewer>: "<reason>")` in the file."""
    chosen, reason = " ".join(chosen.split()), " ".join(reason.split())
    if not chosen or not reason:
        raise Refused("a ruling needs an option (chosen or written) and the reason for it")
    if already(record, kind=AdrQuestion.Kind.RULING, key=key, chosen=chosen, reviewer=reviewer):
        return record
    return question_write(
        record=record,
        verb=AdrAction.Verb.RULE,
        reviewer=reviewer,
        note=f"{key}: option {chosen} — {reason}",
        loaded_sha256=loaded_sha256,
        write=lambda raw, doc, today: rule.add_ruling(
            raw,
            fmt=doc.format,
            key=key,
            chosen=chosen,
            who=reviewer.name,
            reason=reason,
            today=today,
            date=doc.date,
        ),
    )


def record_resolve_fork(
    *, record: AdrRecord, key: str, ruling: str, reason: str, reviewer: Reviewer, loaded_sha256: str = ""
) -> AdrRecord:
    """Close fork `key` as resolved by ruling `ruling`: `RESOLVED <today> — by R<k> (…)` in the file."""
    reason = " ".join(reason.split())
    if not reason:
        raise Refused("closing a fork needs the reason")
    if not AdrQuestion.objects.filter(record=record, kind=AdrQuestion.Kind.RULING, key=ruling).exists():
        raise Refused(f"pick one of the record's rulings, not {ruling!r}")
    if already(record, kind=AdrQuestion.Kind.FORK, key=key, chosen=ruling, reviewer=reviewer):
        return record
    return question_write(
        record=record,
        verb=AdrAction.Verb.RESOLVE,
        reviewer=reviewer,
        note=f"{key}: resolved by {ruling} — {reason}",
        loaded_sha256=loaded_sha256,
        write=lambda raw, doc, today: rule.resolve_fork(
            raw, key=key, ruling=ruling, who=reviewer.name, reason=reason, today=today
        ),
    )


def directory_format(directory: str) -> tuple[str, list[int], int]:
    """The format most records in the directory use, their numbers, and their zero-padding width."""
    rows = AdrRecord.objects.filter(directory=directory, present=True)
    formats = [row.format for row in rows if row.format]
    fmt = max(set(formats), key=formats.count) if formats else "nygard"
    # Ids are per repository, whatever folder holds them: number above every record of the repo.
    repo = rows.values_list("repo", flat=True).first()
    numbers = [
        int(n.split(".")[0])
        for n in AdrRecord.objects.filter(repo=repo).values_list("number", flat=True)
        if n.split(".")[0].isdigit()
    ]
    width = max(
        (
            len(Path(row.rel_path).name.split("-")[0])
            for row in rows
            if Path(row.rel_path).name.split("-")[0].isdigit()
        ),
        default=4,
    )
    return fmt, numbers, width


def made_from(knowledge: list[KnowledgeRecord]) -> AdrRecord | None:
    """The record a person already made of exactly this knowledge, if it is still there."""
    wanted = sorted(k.record_id for k in knowledge)
    for action in AdrAction.objects.filter(verb=AdrAction.Verb.CREATE, record__present=True).select_related(
        "record"
    ):
        if sorted(part.strip() for part in action.note.split(",")) == wanted:
            return action.record
    return None


@transaction.atomic
def record_from_knowledge(
    *, knowledge: list[KnowledgeRecord], directory: str, reviewer: Reviewer
) -> AdrRecord:
    """A proposed record in the directory's own format, next free number, provenance included.

    Idempotent: the same knowledge made into a record again (a repeated POST, a second tab) is the
    record made the first time. The knowledge rows are locked for the transaction, so two requests
    at once cannot both find none and write two files.
    """
    if not knowledge or any(k.status != KnowledgeRecord.Status.VERIFIED for k in knowledge):
        raise Refused("only promoted (verified) knowledge becomes a decision record")
    list(KnowledgeRecord.objects.select_for_update().filter(pk__in=[k.pk for k in knowledge]).order_by("pk"))
    existing = made_from(knowledge)
    if existing is not None:
        return existing
    known = set(AdrRecord.objects.filter(present=True).values_list("directory", flat=True))
    if directory not in known:
        raise Refused("pick one of the ADR directories waysweb found")
    fmt, numbers, width = directory_format(directory)
    number = new.next_number(numbers)
    first = knowledge[0]
    refs = [f"knowledge:{k.record_id}" for k in knowledge] + [
        ref
        for k in knowledge
        for ref in k.derived_from
        if ref.startswith(("claude-session:", "ledger:", "session:"))
    ]
    context = "\n\n".join(k.description for k in knowledge)
    decision = "\n\n".join(k.title for k in knowledge)
    evidence = [line for k in knowledge for line in k.body.split("# Evidence", 1)[1:]]
    consequences = (
        ("Evidence recorded at promotion:\n\n" + "\n".join(e.strip() for e in evidence))
        if evidence
        else "To be written by the deciders."
    )
    name, content = new.new_record(
        fmt,
        number=number,
        title=first.title,
        context=context,
        decision=decision,
        consequences=consequences,
        provenance_refs=refs,
        today=date.today().isoformat(),
        width=width,
    )
    target = Path(directory) / name
    repo = AdrRecord.objects.filter(directory=directory).values_list("repo", flat=True).first()
    if safefs.exists(target):
        raise Conflict(first, f"{name} already exists; reload and try again")
    write_record(safefs.real(repo), target, content)
    adr_load.import_repo(Path(repo), adr_dirs())
    record = AdrRecord.objects.get(
        repo=repo, rel_path=target.resolve().relative_to(Path(repo).resolve()).as_posix()
    )
    AdrAction.objects.create(
        record=record,
        record_id_text=record.canonical_id,
        verb=AdrAction.Verb.CREATE,
        reviewer=reviewer.user,
        reviewer_name=reviewer.name,
        note=", ".join(k.record_id for k in knowledge),
        status_after=record.status,
        files=[[str(target), "", sha256(content)]],
    )
    return record
