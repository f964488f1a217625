"""A person's acts on decision records: status changes and new records, written back to the files.

Status changes go through the format's own writer (ledger/records/edit.py), which changes only
the status lines and keeps every other byte; a supersession updates both files, each atomically,
and one audit row names them both (knowledge-and-records.md §13). An agent never accepts: only a
logged-in person reaches these functions.
"""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

from django.db import transaction

from ledger import files
from ledger.importer import adr_load
from ledger.models import AdrAction, AdrRecord, KnowledgeRecord
from ledger.records import edit, new, parse
from ledger.services import Conflict, Refused, Reviewer
from lib import safefs
from lib.hashing import sha256

VERBS = {"accept": "accepted", "deprecate": "deprecated"}


def current(record: AdrRecord, loaded_sha256: str) -> tuple[Path, bytes, parse.AdrDoc]:
    path = Path(record.path)
    try:
        raw = files.read(Path(record.repo), path)
    except FileNotFoundError:
        raise Conflict(record, f"{record.rel_path} is gone from the repository") from None
    except files.Unsafe as exc:
        raise Refused(str(exc)) from None
    if loaded_sha256 and sha256(raw) != loaded_sha256:
        raise Conflict(record, "the file changed since this page was loaded; here is what it says now")
    return path, raw, parse.parse_adr(raw, rel_path=record.rel_path)


def write(repo: Path, target: Path, data: bytes) -> None:
    """Write a record file, refused (nothing written) when it would leave the repository."""
    try:
        files.write_atomic(repo, target, data)
    except files.Unsafe as exc:
        raise Refused(str(exc)) from None


def link_to(record: AdrRecord, from_record: AdrRecord) -> str:
    """A relative link from one record's file to another's, as adr-tools writes them."""
    return os.path.relpath(record.path, Path(from_record.path).parent)


def record_status(*, record: AdrRecord, verb: str, reviewer: Reviewer, successor: AdrRecord | None = None,
                  loaded_sha256: str = "", note: str = "") -> AdrRecord:
    today = date.today().isoformat()
    path, raw, doc = current(record, loaded_sha256)
    if record.duplicate:
        raise Refused("two files claim this id; resolve the duplicate before changing its status")
    writes: list[tuple[Path, bytes, bytes]] = []
    if verb in VERBS:
        if record.status == VERBS[verb]:
            raise Refused(f"it is already {record.status}")
        writes.append((path, raw, edit.set_status(raw, doc, VERBS[verb], today=today)))
        after = VERBS[verb]
    elif verb == "supersede":
        if successor is None or successor.pk == record.pk or successor.repo != record.repo:
            raise Refused("pick the record (in the same repository) that supersedes this one")
        s_path, s_raw, s_doc = current(successor, "")
        writes.append((path, raw, edit.add_superseded_by(raw, doc, successor.canonical_id, link_to(successor, record))))
        writes.append((s_path, s_raw, edit.add_supersedes(s_raw, s_doc, record.canonical_id, link_to(record, successor))))
        after = "superseded"
    else:
        raise Refused(f"unknown action {verb!r}")
    for target, _, data in writes:
        write(Path(record.repo), target, data)
    with transaction.atomic():
        AdrAction.objects.create(
            record=record, record_id_text=record.canonical_id, verb=verb, reviewer=reviewer.user,
            reviewer_name=reviewer.name, note=note, status_before=record.status, status_after=after,
            files=[[str(target), sha256(before), sha256(data)] for target, before, data in writes])
    adr_load.import_repo(Path(record.repo))
    return AdrRecord.objects.get(pk=record.pk)


def directory_format(directory: str) -> tuple[str, list[int], int]:
    """The format most records in the directory use, their numbers, and their zero-padding width."""
    rows = AdrRecord.objects.filter(directory=directory, present=True)
    formats = [row.format for row in rows if row.format]
    fmt = max(set(formats), key=formats.count) if formats else "nygard"
    # Ids are per repository, whatever folder holds them: number above every record of the repo.
    repo = rows.values_list("repo", flat=True).first()
    numbers = [int(n.split(".")[0]) for n in AdrRecord.objects.filter(repo=repo).values_list("number", flat=True)
               if n.split(".")[0].isdigit()]
    width = max((len(Path(row.rel_path).name.split("-")[0]) for row in rows
                 if Path(row.rel_path).name.split("-")[0].isdigit()), default=4)
    return fmt, numbers, width


def made_from(knowledge: list[KnowledgeRecord]) -> AdrRecord | None:
    """The record a person already made of exactly this knowledge, if it is still there."""
    wanted = sorted(k.record_id for k in knowledge)
    for action in AdrAction.objects.filter(verb="create", record__present=True).select_related("record"):
        if sorted(part.strip() for part in action.note.split(",")) == wanted:
            return action.record
    return None


@transaction.atomic
def record_from_knowledge(*, knowledge: list[KnowledgeRecord], directory: str, reviewer: Reviewer) -> AdrRecord:
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
    refs = [f"knowledge:{k.record_id}" for k in knowledge] + \
        [ref for k in knowledge for ref in k.derived_from if ref.startswith(("claude-session:", "ledger:", "session:"))]
    context = "\n\n".join(k.description for k in knowledge)
    decision = "\n\n".join(k.title for k in knowledge)
    evidence = [line for k in knowledge for line in k.body.split("# Evidence", 1)[1:]]
    consequences = ("Evidence recorded at promotion:\n\n" + "\n".join(e.strip() for e in evidence)) if evidence else \
        "To be written by the deciders."
    name, content = new.new_record(fmt, number=number, title=first.title, context=context, decision=decision,
                                    consequences=consequences, provenance_refs=refs,
                                    today=date.today().isoformat(), width=width)
    target = Path(directory) / name
    repo = AdrRecord.objects.filter(directory=directory).values_list("repo", flat=True).first()
    if safefs.exists(target):
        raise Conflict(first, f"{name} already exists; reload and try again")
    write(safefs.real(repo), target, content)
    adr_load.import_repo(Path(repo))
    record = AdrRecord.objects.get(repo=repo, rel_path=target.resolve().relative_to(Path(repo).resolve()).as_posix())
    AdrAction.objects.create(record=record, record_id_text=record.canonical_id, verb="create", reviewer=reviewer.user,
                             reviewer_name=reviewer.name, note=", ".join(k.record_id for k in knowledge),
                             status_after=record.status, files=[[str(target), "", sha256(content)]])
    return record
