"""Ledger entries, knowledge records and majordomus ledger lines into the database.

Documents are re-read whole when their content hash changes; nothing a person decided is ever
changed here — a file that contradicts a recorded decision raises a conflict banner instead
(knowledge-and-records.md §6).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from introspect.rules.timestamps import utc_second
from introspect.rules.join import project_slug
from introspect.models import Session
from ledger.importer import documents
from ledger.models import KnowledgeRecord, LedgerEntry, LedgerEntryVersion, MjLedgerLine, ReviewAction
from lib import bulk, fit, safefs


@dataclass
class DocumentResult:
    files: int = 0
    added: int = 0
    changed: int = 0
    quarantined: int = 0
    gone: int = 0
    sessions: set[str] = field(default_factory=set)
    problems: list[safefs.Problem] = field(default_factory=list)


def markdown(name: str) -> bool:
    return name.endswith(".md")


def read_document(root: Path, path: Path, result: DocumentResult) -> bytes | None:
    """The first MAX_DOCUMENT_BYTES + 1 bytes of a document inside `root`; None when it is gone or
    refused (the refusal goes to `result.problems`)."""
    try:
        return safefs.read_capped(root, path, documents.MAX_DOCUMENT_BYTES)
    except FileNotFoundError:
        return None
    except safefs.Refused as refused:
        result.problems.append(refused.problem)
    except OSError as exc:
        result.problems.append(safefs.Problem(str(path), safefs.UNREADABLE, exc.strerror or str(exc)))
    return None


def import_ledger(root: Path) -> DocumentResult:
    """Every `<slug>/*.md` entry under the ledger root, read inside it (lib/safefs.py)."""
    result = DocumentResult()
    if not safefs.is_dir(root):
        return result
    now = timezone.now()
    seen: set[str] = set()
    existing = {entry.rel_path: entry for entry in LedgerEntry.objects.filter(host=settings.WAYSWEB_HOST,
                                                                             root=str(root))}
    for folder in safefs.entries(root, root, result.problems, want=lambda name: False):
        if folder.kind != "dir":
            continue
        for found in safefs.entries(root, folder.path, result.problems, want=markdown):
            if found.kind != "file" or not markdown(found.name):
                continue
            path = found.path
            rel = path.relative_to(root).as_posix()
            seen.add(rel)  # an unreadable entry is not gone: its row keeps what was last read
            raw = read_document(root, path, result)
            if raw is None:
                continue
            result.files += 1
            digest = documents.sha256(raw)
            entry = existing.get(rel)
            if entry is not None and entry.sha256 == digest and entry.present:
                continue
            parsed = documents.parse_entry(raw)
            with transaction.atomic():
                if entry is None:
                    entry = LedgerEntry(host=settings.WAYSWEB_HOST, root=str(root), rel_path=rel,
                                        project_slug=folder.name, read_at=now)
                    result.added += 1
                else:
                    result.changed += 1
                entry.sha256, entry.present, entry.read_at = digest, True, now
                entry.quarantine_reason, entry.quarantine_detail = parsed.quarantine or ("", "")
                result.quarantined += bool(parsed.quarantine)
                entry.session_key = parsed.session
                entry.session = Session.objects.filter(sid=parsed.session).first() if parsed.session else None
                if len(parsed.session) > 512:
                    entry.session = None  # no session id is that long: the key is emptied below
                entry.epoch = parsed.epoch if parsed.epoch is not None else documents.name_epoch(path.name)
                entry.context_pct, entry.timestamp_raw, entry.ts = parsed.context_pct, parsed.timestamp, parsed.ts
                entry.phase, entry.transcript_path, entry.body = parsed.phase, parsed.transcript, parsed.body
                entry.flags = fit.fit_instance(entry)
                entry.save()
                LedgerEntryVersion.objects.get_or_create(
                    entry=entry, sha256=digest,
                    defaults={"content": raw.decode("utf-8", "replace"), "first_seen": now})
            if parsed.session:
                result.sessions.add(parsed.session)
    for rel, entry in existing.items():
        if rel not in seen and entry.present:
            LedgerEntry.objects.filter(pk=entry.pk).update(present=False)
            result.gone += 1
    return result


def link_entries_to_sessions() -> None:
    """Entries written before their session was imported get linked once it is."""
    for entry in LedgerEntry.objects.filter(session__isnull=True).exclude(session_key=""):
        session = Session.objects.filter(sid=entry.session_key).first()
        if session is not None:
            LedgerEntry.objects.filter(pk=entry.pk).update(session=session)


def knowledge_directories(repos: list[Path], own: Path) -> list[tuple[Path, Path]]:
    """(directory, the root it is read inside): waysweb's own knowledge directory, then each
    repository's `.ai/repo/knowledge` (`repos` as `run.repositories` chose them)."""
    found = [(own, own)]
    for repo in repos:
        directory = repo / ".ai" / "repo" / "knowledge"
        if safefs.is_dir(directory) and directory not in [d for d, _ in found]:
            found.append((directory, repo))
    return found


def import_knowledge(directory: Path, root: Path | None = None) -> DocumentResult:
    """Candidates and curated records of one knowledge directory; curated wins for one id.

    Files are read inside `root` (the repository, or the directory itself): a candidate that is a
    link to a file elsewhere is a problem, never shown.
    """
    root = root or directory
    result = DocumentResult()
    now = timezone.now()
    files: dict[str, tuple[str, Path]] = {}
    for source_class in ("candidates", "curated"):  # curated second: it overrides a leftover candidate
        folder = directory / source_class
        if safefs.is_dir(folder):
            for found in safefs.entries(root, folder, result.problems, want=markdown):
                if found.kind == "file" and markdown(found.name) and found.name != "README.md":
                    files[found.path.stem] = (source_class, found.path)
    # Most passes change nothing: read only what decides that (a record's JSON fields cost more to
    # load than the file costs to hash); a changed record loads the rest when it is written.
    existing = {r.record_id: r for r in KnowledgeRecord.objects.filter(directory=str(directory)).only(
        "record_id", "sha256", "source_class", "present", "directory")}
    leftovers = {stem for stem in files
                 if files[stem][0] == "curated" and safefs.exists(directory / "candidates" / f"{stem}.md")}
    for stem, (source_class, path) in files.items():
        raw = read_document(root, path, result)
        if raw is None:
            continue  # unreadable or refused (a problem), or gone since the listing: the row stays
        result.files += 1
        digest = documents.sha256(raw)
        record = existing.get(stem)
        if record is not None and record.sha256 == digest and record.source_class == source_class and record.present:
            continue
        parsed = documents.parse_knowledge(raw, stem=stem)
        with transaction.atomic():
            if record is None:
                record = KnowledgeRecord(directory=str(directory), record_id=stem, first_seen=now,
                                         origin="waysweb" if stem.startswith("ww-") else "majordomus")
                result.added += 1
            else:
                result.changed += 1
            apply_file(record, parsed, source_class, digest)
            if stem in leftovers:
                record.conflict = ("a candidate file is still beside the curated record: an interrupted "
                                   "promotion; promoting again finishes it")
            bulk.save_racing(record, directory=record.directory, record_id=record.record_id)
            recover_audit(record, parsed)
    for stem, record in existing.items():
        if stem not in files and record.present:
            KnowledgeRecord.objects.filter(pk=record.pk).update(present=False)
            result.gone += 1
    return result


def apply_file(record: KnowledgeRecord, parsed: documents.Knowledge, source_class: str, digest: str) -> None:
    """Index what the file says; a file that reverts a person's decision is flagged, not obeyed."""
    decided = record.pk and record.actions.filter(verb__in=("promote", "reject")).exists()
    file_status = str(parsed.get("status"))
    if decided and record.status != file_status and file_status:
        record.conflict = (f"the file now says {file_status!r} but a person decided {record.status!r}; "
                           "nothing was redone or undone")
        record.sha256 = digest
        return
    record.conflict = ""
    record.source_class, record.sha256, record.present = source_class, digest, True
    record.problem = "; ".join(parsed.problems) if not parsed.quarantine else \
        f"{parsed.quarantine[0]}: {parsed.quarantine[1]}"
    data = parsed.data
    record.klass, record.status = str(data.get("class") or ""), file_status or record.status
    record.epistemics, record.title = str(data.get("epistemics") or ""), str(data.get("title") or "")
    record.description, record.date = str(data.get("description") or ""), str(data.get("date") or "")
    record.tags = [str(t) for t in data.get("tags") or [] if isinstance(t, (str, int))]
    provenance = data.get("provenance") if isinstance(data.get("provenance"), dict) else {}
    record.derived_from = [str(r) for r in provenance.get("derived_from") or [] if isinstance(r, str)]
    record.relations = [r for r in data.get("relations") or [] if isinstance(r, dict)]
    record.superseded_by = str(data.get("superseded_by") or "")
    record.about = str(data.get("about") or "")
    record.body, record.frontmatter = parsed.body, json.loads(json.dumps(data, default=str))
    overlong = fit.fit_instance(record)  # the file keeps the value; the column cannot
    if overlong:
        record.problem = "; ".join(part for part in (record.problem, *overlong) if part)
    link_provenance(record)


def link_provenance(record: KnowledgeRecord) -> None:
    """Resolve `claude-session:`, `ledger:` and `turn:` refs (waysweb's own) to rows and turns."""
    for ref in record.derived_from:
        kind, _, value = ref.partition(":")
        if kind == "claude-session":
            record.session = Session.objects.filter(sid=value).first()
        elif kind == "session" and record.session is None:
            # A majordomus episode: its provider.event.received lines name the Claude Code session.
            provider = (MjLedgerLine.objects.filter(episode=value).exclude(provider_session="")
                        .values_list("provider_session", flat=True).first())
            if provider:
                record.session = Session.objects.filter(sid=provider).first()
        elif kind == "ledger" and "/e" in value:
            slug, _, epoch = value.rpartition("/e")
            if epoch.isdigit():
                record.ledger_entry = (LedgerEntry.objects.filter(project_slug=slug, epoch=int(epoch))
                                       .order_by("ts").first())
        elif kind == "turn" and "#" in value:
            span = value.split("#", 1)[1]
            first, _, last = span.partition("-")
            if first.isdigit():
                record.turn_epochs = [int(first), int(last) if last.isdigit() else int(first)]


def recover_audit(record: KnowledgeRecord, parsed: documents.Knowledge) -> None:
    """A promotion or rejection written to the file whose database commit was lost (a crash between
    the two) is recorded from the reviewer line the file carries, so the audit trail stays whole."""
    if record.status not in ("verified", "superseded") or record.actions.filter(
            verb__in=("promote", "reject", "recover")).exists():
        return
    marker = "Promoted by " if record.status == "verified" else "Rejected by "
    line = next((line for line in parsed.body.splitlines() if line.startswith(marker) and "waysweb" in line), "")
    if line:
        ReviewAction.objects.create(record=record, verb=ReviewAction.Verb.RECOVER,
                                    reviewer_name=fit.cut(line[len(marker):].split(" via ", 1)[0].strip(),
                                                          ReviewAction, "reviewer_name"),
                                    note=line, file_sha_after=record.sha256, class_after=record.klass)


def first_event_key(pairs: list[tuple[str, object]]) -> dict:
    """object_pairs_hook for majordomus lines: keep the FIRST `event`, the second as provider_event."""
    out: dict = {}
    for key, value in pairs:
        if key == "event" and "event" in out:
            out.setdefault("provider_event", value)
            continue
        out[key] = value
    return out


def parse_mj_line(data: bytes) -> dict | None:
    try:
        obj = json.loads(data.decode("utf-8"), object_pairs_hook=first_event_key)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def mj_ledger_row(source, line, record, sha: str, repo: str) -> MjLedgerLine:
    obj = parse_mj_line(record.data) or record.obj
    ts = obj.get("ts") if isinstance(obj.get("ts"), str) else ""
    payload = {k: v for k, v in obj.items() if k not in ("ts", "event", "head", "branch", "by", "session")}
    typed = {"ts_raw": ts, "event": str(obj.get("event") or ""), "provider_event": str(obj.get("provider_event") or ""),
             "episode": str(obj.get("session") or obj.get("episode") or ""),
             "provider_session": str(obj.get("provider_session") or "")}
    flags = fit.fit(MjLedgerLine, typed)
    return MjLedgerLine(
        source=source, offset=line.offset, index=line.index, sha256=sha, repo=repo, ts=utc_second(typed["ts_raw"]),
        payload=json.loads(json.dumps(payload, default=str)), raw=record.data.decode("utf-8", "replace"),
        flags=flags, **typed,
    )


def slug_for(session: Session) -> str:
    return project_slug(session.recorded_project or (session.project.path if session.project else ""))
