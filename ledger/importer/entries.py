"""ADR-112 ledger entries (`~/.claude/ledger/<slug>/<ts>_eNNN.md`): parsed, then indexed as LedgerEntry rows.

An entry is a document keyed by (root, relative path) with a version per content
(knowledge-and-records.md §2.4); it is re-read whole when its content hash changes. Malformed front
matter is quarantined with its reason, never guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from introspect.importer import secret_rows
from introspect.models import Session
from ledger.importer.document import DocumentResult, markdown, read_document
from ledger.models import LedgerEntry, LedgerEntryVersion
from ledger.records.document import split_document
from lib import column_fit, safefs
from lib.hashing import sha256

ENTRY_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})T(\d{2})(\d{2})Z_e(\d+)\.md$")


@dataclass(frozen=True)
class Entry:
    session: str = ""
    transcript: str = ""
    epoch: int | None = None
    context_pct: int | None = None
    timestamp: str = ""
    ts: datetime | None = None
    phase: str = ""
    body: str = ""
    quarantine: tuple[str, str] | None = None


def parse_timestamp(value: object) -> datetime | None:
    """A front-matter timestamp as an aware datetime (naive ones read as UTC); None if unreadable."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def as_int(value: object) -> int | None:
    """An integer front-matter value (a digit string too); None for anything else, booleans included."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


def parse_entry(raw: bytes) -> Entry:
    """An ADR-112 ledger entry (§2.2); malformed front matter is quarantined with its reason."""
    data, body, problem = split_document(raw)
    if problem is not None:
        return Entry(body=body, quarantine=problem)
    session = data.get("session")
    if not isinstance(session, str) or not session:
        return Entry(body=body, quarantine=("yaml_invalid", "no session in the front matter"))
    timestamp = data.get("timestamp")
    return Entry(
        session=session,
        transcript=str(data.get("transcript") or ""),
        epoch=as_int(data.get("epoch")),
        context_pct=as_int(data.get("context_pct")),
        timestamp=str(timestamp or ""),
        ts=parse_timestamp(timestamp),
        phase=str(data.get("phase") or ""),
        body=body.strip("\n"),
    )


def name_epoch(name: str) -> int | None:
    """The epoch in an entry's file name (`…_e007.md`), for entries whose front matter lacks one."""
    match = ENTRY_NAME.match(name)
    return int(match.group(4)) if match else None


def import_ledger(root: Path) -> DocumentResult:
    """Every `<slug>/*.md` entry under the ledger root, read inside it (lib/safefs.py)."""
    result = DocumentResult()
    if not safefs.is_dir(root):
        return result
    now = timezone.now()
    seen: set[str] = set()
    existing = {
        entry.rel_path: entry
        for entry in LedgerEntry.objects.filter(host=settings.WAYSWEB_HOST, root=str(root))
    }
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
            digest = sha256(raw)
            entry = existing.get(rel)
            if entry is not None and entry.sha256 == digest and entry.present:
                continue
            parsed = parse_entry(raw)
            with transaction.atomic():
                if entry is None:
                    entry = LedgerEntry(
                        host=settings.WAYSWEB_HOST,
                        root=str(root),
                        rel_path=rel,
                        project_slug=folder.name,
                        read_at=now,
                    )
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
                entry.epoch = parsed.epoch if parsed.epoch is not None else name_epoch(path.name)
                entry.context_pct, entry.timestamp_raw, entry.ts = (
                    parsed.context_pct,
                    parsed.timestamp,
                    parsed.ts,
                )
                entry.phase, entry.transcript_path = parsed.phase, parsed.transcript
                scan = secret_rows.DocumentScan()
                entry.body = scan.text(parsed.body)
                entry.flags = column_fit.fit_instance(entry)
                entry.save()
                LedgerEntryVersion.objects.get_or_create(
                    entry=entry,
                    sha256=digest,
                    defaults={"content": scan.text(raw.decode("utf-8", "replace")), "first_seen": now},
                )
                scan.save(
                    entry,
                    where=f"{entry.label} {rel}",
                    url=reverse("ledger:ledger-stream", args=[entry.project_slug])
                    + f"#e{entry.epoch if entry.epoch is not None else 'x'}",
                    session_id=entry.session_id,
                )
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
