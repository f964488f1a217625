"""A person's acts, written to the files first and audited with them (knowledge-and-records.md §6, §13).

Knowledge candidates: promote, reject, edit, merge. Each write is the person's act: the file is
written atomically (temp file + rename), then the database row and its `ReviewAction` commit
together. A crash between the two leaves a file that says what was decided and carries a "Promoted
by …" line; the next import reads it and records the action as recovered, so files and database
agree. A form loaded against an older file, or a record someone else already decided, is a conflict.

Decision records: status changes, rulings and new records. Status changes go through the format's own writer
(ledger/records/edit.py), which changes only the status lines and keeps every other byte; a
supersession updates both files, each atomically, and one audit row names them both. A ruling (or a
fork closed by one) adds one line to the record's file (ledger/records/rule.py). An agent never
accepts or rules: only a logged-in person reaches these functions.

Claude Code's auto-memory: a person promotes a memory to knowledge (a candidate written to waysweb's
own knowledge directory with the memory and the turn that wrote it as provenance, then promoted
through `candidate_promote` and its audit) or marks it wrong (an audited note). The user's memory
files are never written.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from django.conf import settings
from django.db import transaction

from ledger import files
from ledger.importer import adr_load
from ledger.importer import knowledge as knowledge_index
from ledger.models import (
    AdrAction,
    AdrQuestion,
    AdrRecord,
    KnowledgeRecord,
    Memory,
    MemoryAction,
    MemoryVersion,
    ReviewAction,
)
from ledger.records import document, edit, lifecycle, new, parse, rule
from ledger.records import knowledge as knowledge_format
from lib import safefs
from lib.hashing import sha256


class Conflict(Exception):
    """The record changed since the page loaded, or is no longer a candidate: decide again."""

    def __init__(self, record: KnowledgeRecord | AdrRecord, message: str):
        super().__init__(message)
        self.record = record


def conflict(record: KnowledgeRecord | AdrRecord, message: str) -> Conflict:
    """The conflict to raise, once the record's file has been read again: the answer shows what the
    file says now (the full pass re-reads repositories only every so often, so a reload could show
    the old text for that long)."""
    if isinstance(record, AdrRecord):
        adr_load.import_record(record, adr_dirs())
    else:
        knowledge_index.import_record(Path(record.directory), root_of(record), record.record_id)
    return Conflict(record, message)


def adr_dirs() -> tuple[str, ...]:
    """The ADR directories configured beyond the conventional ones (a re-read without them would
    take the records there for gone)."""
    return tuple(settings.WAYSWEB_ADR_DIRS)


class Refused(ValueError):
    """The request itself is not acceptable (empty evidence, a transcript pasted as evidence…)."""


@dataclass(frozen=True)
class Reviewer:
    user: object
    name: str

    @classmethod
    def of(cls, user) -> Reviewer:
        return cls(user=user, name=user.get_username())


def root_of(record: KnowledgeRecord) -> Path:
    """Where a record's files may be read and written: inside its repository (ledger/files.py)."""
    return files.knowledge_root(Path(record.directory))


def current_file(record: KnowledgeRecord) -> tuple[Path, bytes]:
    """A record's file and its bytes; a conflict when it is gone, refused when it would leave its root."""
    path = Path(record.path)
    try:
        return path, files.read(root_of(record), path)
    except FileNotFoundError:
        raise conflict(record, f"{path} is gone; the record was moved or deleted outside waysweb") from None
    except files.Unsafe as exc:
        raise Refused(str(exc)) from None


def check_pending(
    record: KnowledgeRecord, loaded_sha256: str
) -> tuple[Path, bytes, knowledge_format.Knowledge]:
    """The candidate's file, bytes and parse, when it is still a candidate the page was loaded against."""
    if record.status != KnowledgeRecord.Status.CANDIDATE:
        raise conflict(record, f"this record is no longer a candidate (it is {record.status})")
    path, raw = current_file(record)
    parsed = knowledge_format.parse_knowledge(raw, stem=record.record_id)
    if parsed.get("status") != "candidate":
        raise conflict(record, f"this record is no longer a candidate (its file says {parsed.get('status')})")
    if loaded_sha256 and sha256(raw) != loaded_sha256:
        raise conflict(record, "the file changed since this page was loaded; here is what it says now")
    return path, raw, parsed


def write_knowledge(record: KnowledgeRecord, path: Path, data: bytes) -> None:
    """Write one of the record's files, refused (nothing written) when it would leave its repository."""
    try:
        files.write_atomic(root_of(record), path, data)
    except files.Unsafe as exc:
        raise Refused(str(exc)) from None


def stamp(verb: str, reviewer: Reviewer) -> str:
    """The reviewer line a decision leaves in the file (the import recovers a lost audit row from it)."""
    return f"{verb} by {reviewer.name} via waysweb on {date.today().isoformat()}."


@transaction.atomic
def record_action(
    record: KnowledgeRecord,
    *,
    verb: str,
    reviewer: Reviewer,
    note: str,
    class_before: str,
    sha_before: str,
    related: str = "",
    batch: str = "",
) -> ReviewAction:
    """Save the record and its audit row in one transaction."""
    record.save()
    return ReviewAction.objects.create(
        record=record,
        verb=verb,
        reviewer=reviewer.user,
        reviewer_name=reviewer.name,
        note=note,
        class_before=class_before,
        class_after=record.klass,
        file_sha_before=sha_before,
        file_sha_after=record.sha256,
        related=related,
        batch=batch,
    )


def candidate_promote(
    *,
    record: KnowledgeRecord,
    reviewer: Reviewer,
    evidence: str,
    new_class: str = "",
    loaded_sha256: str = "",
    batch: str = "",
) -> KnowledgeRecord:
    """Write `curated/<id>.md` (verified, with the evidence), remove the candidate, record who."""
    evidence = evidence.strip()
    if not evidence:
        raise Refused("promotion needs evidence: say what shows this is true")
    if knowledge_format.transcript_like(evidence):
        raise Refused("evidence reads like a transcript; state the evidence in your own words")
    new_class = new_class or record.klass
    if new_class not in knowledge_format.CLASSES:
        raise Refused(f"class must be one of {', '.join(knowledge_format.CLASSES)}")
    if record.status == KnowledgeRecord.Status.VERIFIED and record.actions.filter(verb="promote").exists():
        return record  # a repeated POST: the promotion already stands
    candidate_path, raw, parsed = check_pending(record, loaded_sha256)
    data = dict(parsed.data)
    data.update({"class": new_class, "status": "verified", "date": date.today().isoformat()})
    provenance = dict(data.get("provenance") or {})
    provenance.setdefault("origin", "extracted")
    data["provenance"] = provenance
    body = f"{parsed.body}\n\n# Evidence\n\n{evidence}\n\n{stamp('Promoted', reviewer)}"
    rendered = knowledge_format.render_knowledge(data, body)
    curated = Path(record.directory) / "curated" / f"{record.record_id}.md"
    write_knowledge(record, curated, rendered)
    try:
        files.remove(root_of(record), candidate_path)
    except files.Unsafe as exc:
        raise Refused(str(exc)) from None
    class_before, sha_before = record.klass, sha256(raw)
    record.source_class, record.status = KnowledgeRecord.SourceClass.CURATED, KnowledgeRecord.Status.VERIFIED
    record.klass = new_class
    record.sha256, record.body, record.conflict, record.date = sha256(rendered), body, "", data["date"]
    record_action(
        record,
        verb=ReviewAction.Verb.PROMOTE,
        reviewer=reviewer,
        note=evidence,
        class_before=class_before,
        sha_before=sha_before,
        batch=batch,
    )
    return record


def candidate_reject(
    *,
    record: KnowledgeRecord,
    reviewer: Reviewer,
    reason: str,
    superseded_by: str = "",
    loaded_sha256: str = "",
    batch: str = "",
) -> KnowledgeRecord:
    """Rewrite the candidate as superseded with the reason (it stays under candidates/)."""
    reason = reason.strip()
    if not reason:
        raise Refused("rejection needs a reason")
    if (
        superseded_by
        and not KnowledgeRecord.objects.filter(directory=record.directory, record_id=superseded_by).exists()
    ):
        raise Refused(f"no record {superseded_by!r} to be superseded by")
    if record.status == KnowledgeRecord.Status.SUPERSEDED and record.actions.filter(verb="reject").exists():
        return record
    path, raw, parsed = check_pending(record, loaded_sha256)
    data = dict(parsed.data)
    data["status"] = "superseded"
    if superseded_by:
        data["superseded_by"] = superseded_by
    body = f"{parsed.body}\n\n# Rejected\n\n{reason}\n\n{stamp('Rejected', reviewer)}"
    rendered = knowledge_format.render_knowledge(data, body)
    write_knowledge(record, path, rendered)
    sha_before = sha256(raw)
    record.status, record.superseded_by, record.body = KnowledgeRecord.Status.SUPERSEDED, superseded_by, body
    record.sha256, record.conflict = sha256(rendered), ""
    record_action(
        record,
        verb=ReviewAction.Verb.REJECT,
        reviewer=reviewer,
        note=reason,
        class_before=record.klass,
        sha_before=sha_before,
        related=superseded_by,
        batch=batch,
    )
    return record


def candidate_edit(
    *, record: KnowledgeRecord, reviewer: Reviewer, title: str, description: str, loaded_sha256: str = ""
) -> KnowledgeRecord:
    """Reword a candidate before deciding on it (an edit of the candidate file)."""
    title, description = " ".join(title.split()), " ".join(description.split())
    if not title or not description:
        raise Refused("a record needs a title (an assertion) and a description")
    if knowledge_format.transcript_like(title) or knowledge_format.transcript_like(description):
        raise Refused("a record is an assertion, never a transcript")
    path, raw, parsed = check_pending(record, loaded_sha256)
    data = dict(parsed.data)
    data.update({"title": title, "description": description})
    rest = parsed.body.split("\n", 1)[1] if parsed.body.startswith("# ") and "\n" in parsed.body else ""
    rest = rest.strip().split("\n\n", 1)[1] if "\n\n" in rest.strip() else ""
    body = f"# {title}\n\n{description}\n\n{rest}\n\n{stamp('Edited', reviewer)}".replace("\n\n\n\n", "\n\n")
    rendered = knowledge_format.render_knowledge(data, body)
    write_knowledge(record, path, rendered)
    sha_before = sha256(raw)
    record.title, record.description, record.body = title, description, body
    record.sha256 = sha256(rendered)
    record_action(
        record,
        verb=ReviewAction.Verb.EDIT,
        reviewer=reviewer,
        note=f"{parsed.get('title')} → {title}",
        class_before=record.klass,
        sha_before=sha_before,
    )
    return record


def candidates_merge(
    *,
    keep: KnowledgeRecord,
    duplicates: list[KnowledgeRecord],
    reviewer: Reviewer,
    evidence: str,
    new_class: str = "",
) -> str:
    """Promote one and reject the others as superseded by it; one batch, one audit row each."""
    batch = uuid.uuid4().hex[:12]
    duplicates = [d for d in duplicates if d.pk != keep.pk]
    if not duplicates:
        raise Refused("pick at least one duplicate to merge into the record you keep")
    candidate_promote(record=keep, reviewer=reviewer, evidence=evidence, new_class=new_class, batch=batch)
    for duplicate in duplicates:
        candidate_reject(
            record=duplicate,
            reviewer=reviewer,
            reason=f"Merged into {keep.record_id}.",
            superseded_by=keep.record_id,
            batch=batch,
        )
    return batch


def candidates_bulk(
    *, records: list[KnowledgeRecord], verb: str, reviewer: Reviewer, note: str
) -> tuple[str, list]:
    """Promote or reject several with one shared note: each is still its own act and audit row."""
    batch = uuid.uuid4().hex[:12]
    problems = []
    for record in records:
        try:
            if verb == "promote":
                candidate_promote(record=record, reviewer=reviewer, evidence=note, batch=batch)
            else:
                candidate_reject(record=record, reviewer=reviewer, reason=note, batch=batch)
        except (Conflict, Refused) as exc:
            problems.append((record, str(exc)))
    return batch, problems


# ------------------------------------------------------------------------------------------ decision records


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


def memory_refs(memory: Memory, version: MemoryVersion) -> list[str]:
    """The provenance a promoted memory carries: the memory file at this content, and its session and turn."""
    refs = [f"memory:{memory.path}@{version.sha256[:16]}"]
    if version.session is not None:
        refs.append(f"claude-session:{version.session.sid}")
        if version.turn:
            refs.append(f"turn:{version.session.sid}#{version.turn}")
    return refs


def memory_candidate(memory: Memory, version: MemoryVersion, klass: str) -> KnowledgeRecord:
    """The knowledge candidate made of a memory version: written once (its id is the content's), then indexed."""
    directory = settings.WAYSWEB_LOCATIONS.knowledge_dir
    record_id = f"ww-mem-{version.sha256[:16]}"
    found = KnowledgeRecord.objects.filter(directory=str(directory), record_id=record_id).first()
    if found is not None:
        return found
    _, body, _ = document.split_document(version.content.encode())
    title = version.mem_name or memory.name.removesuffix(".md")
    data = {
        "schema": "knowledge/v1",
        "id": record_id,
        "kind": "knowledge",
        "class": klass,
        "title": title,
        "description": version.description or title,
        "status": "candidate",
        "epistemics": "observed",
        "date": date.today().isoformat(),
        "tags": ["memory"] + ([version.mem_type] if version.mem_type else []),
        "provenance": {"origin": "extracted", "derived_from": memory_refs(memory, version)},
    }
    rendered = knowledge_format.render_knowledge(data, body.strip() or version.content)
    directory.mkdir(parents=True, exist_ok=True)  # waysweb's own directory: ours to create
    try:
        files.write_atomic(directory, directory / "candidates" / f"{record_id}.md", rendered)
    except files.Unsafe as exc:
        raise Refused(str(exc)) from None
    knowledge_index.import_knowledge(directory)
    return KnowledgeRecord.objects.get(directory=str(directory), record_id=record_id)


def memory_promote(
    *, memory: Memory, reviewer: Reviewer, evidence: str, new_class: str = "memory"
) -> KnowledgeRecord:
    """Promote a memory's current content to verified knowledge, audited twice: the knowledge
    record's promotion and the memory's own action. A repeated POST returns the first promotion."""
    if not evidence.strip():
        raise Refused("promotion needs evidence: say what shows this is true")
    if knowledge_format.transcript_like(evidence):
        raise Refused("evidence reads like a transcript; state the evidence in your own words")
    if new_class not in knowledge_format.CLASSES:
        raise Refused(f"class must be one of {', '.join(knowledge_format.CLASSES)}")
    version = memory.versions.select_related("session").order_by("-number").first()
    if version is None or version.quarantine_reason:
        raise Refused("this memory's current version does not parse; it cannot be promoted as it is")
    done = memory.actions.filter(
        verb=MemoryAction.Verb.PROMOTE, version=version, knowledge__isnull=False
    ).first()
    if done is not None:
        return done.knowledge
    record = memory_candidate(memory, version, new_class)
    if record.status == KnowledgeRecord.Status.CANDIDATE:
        record = candidate_promote(record=record, reviewer=reviewer, evidence=evidence, new_class=new_class)
    MemoryAction.objects.create(
        memory=memory,
        version=version,
        verb=MemoryAction.Verb.PROMOTE,
        knowledge=record,
        reviewer=reviewer.user,
        reviewer_name=reviewer.name,
        note=evidence.strip(),
    )
    return record


def memory_mark_wrong(*, memory: Memory, reviewer: Reviewer, note: str) -> MemoryAction:
    """Record that a person found a memory wrong, and why. The memory file itself is left alone:
    waysweb never edits the user's memory (Claude Code keeps reading it until someone changes it)."""
    note = note.strip()
    if not note:
        raise Refused("say what is wrong with this memory")
    version = memory.versions.order_by("-number").first()
    if version is None:
        raise Refused("this memory has no version to mark")
    same = memory.actions.filter(verb=MemoryAction.Verb.WRONG, version=version, note=note).first()
    if same is not None:
        return same  # a repeated POST
    return MemoryAction.objects.create(
        memory=memory,
        version=version,
        verb=MemoryAction.Verb.WRONG,
        reviewer=reviewer.user,
        reviewer_name=reviewer.name,
        note=note,
    )
