"""Claude Code's auto-memory: a person promotes a memory to knowledge or marks it wrong.

A promotion writes a candidate to waysweb's own knowledge directory, with the memory and the turn
that wrote it as provenance, then promotes it through `candidate_promote` and its audit; marking it
wrong is an audited note. The user's memory files are never written.
"""

from __future__ import annotations

from datetime import date

from django.conf import settings

from ledger import files
from ledger.importer import knowledge as knowledge_index
from ledger.models import KnowledgeRecord, Memory, MemoryAction, MemoryVersion
from ledger.records import document
from ledger.records import knowledge as knowledge_format
from ledger.services.acts import Refused, Reviewer
from ledger.services.knowledge import candidate_promote


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
    knowledge_index.import_directory(directory)
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
