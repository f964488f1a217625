"""Knowledge candidates: promote, reject, edit, merge (knowledge-and-records.md §6).

Each write is the person's act: the file is written atomically (temp file + rename), then the
database row and its `ReviewAction` commit together. A crash between the two leaves a file that says
what was decided and carries a "Promoted by …" line; the next import reads it and records the action
as recovered, so files and database agree. A form loaded against an older file, or a record someone
else already decided, is a conflict.
"""

from __future__ import annotations

import uuid
from datetime import date
from pathlib import Path
from typing import NamedTuple

from django.db import transaction

from ledger import files
from ledger.importer import knowledge as knowledge_index
from ledger.models import KnowledgeRecord, ReviewAction
from ledger.records import knowledge as knowledge_format
from ledger.services.acts import Conflict, Refused, Reviewer
from lib.hashing import sha256


def conflict(record: KnowledgeRecord, message: str) -> Conflict:
    """The conflict to raise, once the record's file has been read again: the answer shows what the
    file says now (the full pass re-reads repositories only every so often, so a reload could show
    the old text for that long)."""
    knowledge_index.import_record(Path(record.directory), root_of(record), record.record_id)
    return Conflict(record, message)


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
    """Save the record (masked in team mode, its secrets listed) and its audit row in one transaction."""
    knowledge_index.save_scanned(record, record.save)
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


# What a decision leaves in the candidate's file: the status that says it stands, and the section
# and signature appended to the body (the importer recovers a lost audit row from the signature).
DECISIONS = {
    ReviewAction.Verb.PROMOTE: (KnowledgeRecord.Status.VERIFIED, "Evidence", "Promoted"),
    ReviewAction.Verb.REJECT: (KnowledgeRecord.Status.SUPERSEDED, "Rejected", "Rejected"),
}


class Opened(NamedTuple):
    path: Path
    raw: bytes
    data: dict
    body: str


def open_decision(
    record: KnowledgeRecord, verb: str, text: str, reviewer: Reviewer, loaded_sha256: str
) -> Opened | None:
    """The opening promote and reject share: None when this decision already stands (a repeated
    POST, not made twice); else the candidate's file checked against the page it was decided on, a
    copy of its front matter to change, and its body with the decision appended and signed."""
    settled, heading, signed = DECISIONS[verb]
    if record.status == settled and record.actions.filter(verb=verb).exists():
        return None
    path, raw, parsed = check_pending(record, loaded_sha256)
    body = f"{parsed.body}\n\n# {heading}\n\n{text}\n\n{stamp(signed, reviewer)}"
    return Opened(path, raw, dict(parsed.data), body)


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
    opened = open_decision(record, ReviewAction.Verb.PROMOTE, evidence, reviewer, loaded_sha256)
    if opened is None:
        return record
    candidate_path, raw, data, body = opened
    data.update({"class": new_class, "status": "verified", "date": date.today().isoformat()})
    provenance = dict(data.get("provenance") or {})
    provenance.setdefault("origin", "extracted")
    data["provenance"] = provenance
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
    opened = open_decision(record, ReviewAction.Verb.REJECT, reason, reviewer, loaded_sha256)
    if opened is None:
        return record
    path, raw, data, body = opened
    data["status"] = "superseded"
    if superseded_by:
        data["superseded_by"] = superseded_by
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
