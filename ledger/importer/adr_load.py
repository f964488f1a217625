"""ADR directories of each known repository into `AdrRecord` rows (knowledge-and-records.md §10–§13).

A record is its id inside its repository: a file that disappears while another with the same id
appears is a move of the same record; two live files with one id are both kept and flagged.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from ledger.importer import adrs, documents
from ledger.models import AdrRecord, AdrRelation

DEFAULT_DIRS = ("doc/adr", "docs/adr", "docs/decisions", ".ai/repo/adrs", "docs/architecture")
SKIP_NAMES = {"readme.md", "index.md", "template.md", "adr-template.md", "0000-template.md"}


@dataclass
class AdrResult:
    files: int = 0
    added: int = 0
    changed: int = 0
    moved: int = 0
    gone: int = 0


def adr_directories(repo: Path, extra: tuple[str, ...] = ()) -> list[Path]:
    """`.adr-dir`'s target, then the conventional places, then configured ones — those that exist."""
    found: list[Path] = []
    marker = repo / ".adr-dir"
    candidates = []
    if marker.is_file():
        candidates.append(marker.read_text().strip().splitlines()[0] if marker.read_text().strip() else "")
    candidates += list(DEFAULT_DIRS) + list(extra)
    for rel in candidates:
        if not rel:
            continue
        path = (repo / rel).resolve()
        if path.is_dir() and path.is_relative_to(repo.resolve()) and path not in found:
            found.append(path)
    return found


def adr_files(directory: Path) -> list[Path]:
    files = []
    for current, dirs, names in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if name.endswith(".md") and name.lower() not in SKIP_NAMES:
                path = Path(current) / name
                # docs/architecture holds more than ADRs: only ADR-NNN files there.
                if directory.name == "architecture" and not name.upper().startswith("ADR-"):
                    continue
                files.append(path)
    return files


def import_repo(repo: Path, extra: tuple[str, ...] = ()) -> AdrResult:
    result = AdrResult()
    now = timezone.now()
    root = str(repo)
    existing = {row.rel_path: row for row in AdrRecord.objects.filter(repo=root)}
    seen: set[str] = set()
    for directory in adr_directories(repo, extra):
        for path in adr_files(directory):
            rel = path.relative_to(repo.resolve()).as_posix()
            if rel in seen:
                continue
            seen.add(rel)
            result.files += 1
            raw = path.read_bytes()[: documents.MAX_DOCUMENT_BYTES]
            digest = documents.sha256(raw)
            row = existing.get(rel)
            if row is not None and row.sha256 == digest and row.present:
                continue
            doc = adrs.parse_adr(raw, rel_path=rel)
            with transaction.atomic():
                if row is None:
                    row = moved_from(root, doc.id, existing, seen, repo)
                    if row is not None:
                        result.moved += 1
                        existing.pop(row.rel_path, None)
                    else:
                        row = AdrRecord(repo=root, read_at=now)
                        result.added += 1
                else:
                    result.changed += 1
                fill(row, doc, rel, str(directory), digest, raw, now)
                row.save()
                AdrRelation.objects.filter(source=row).delete()
                AdrRelation.objects.bulk_create(
                    [AdrRelation(source=row, kind=kind, target=target) for kind, target in edges(doc)],
                    ignore_conflicts=True)
    for rel, row in existing.items():
        if rel not in seen and row.present:
            AdrRecord.objects.filter(pk=row.pk).update(present=False)
            result.gone += 1
    flag_duplicates(root)
    return result


def moved_from(root: str, record_id: str, existing: dict, seen: set[str], repo: Path) -> AdrRecord | None:
    """A row of the same id whose file is gone: the record was renamed or moved, not created."""
    for rel, row in existing.items():
        if row.canonical_id == record_id and rel not in seen and not (repo / rel).exists():
            return row
    return None


def fill(row: AdrRecord, doc, rel: str, directory: str, digest: str, raw: bytes, now) -> None:
    row.canonical_id, row.rel_path, row.directory = doc.id or Path(rel).stem, rel, directory
    row.number, row.title, row.raw_status, row.status = doc.number or "", doc.title, doc.raw_status, doc.status
    row.date, row.format = doc.date or "", doc.format
    row.sections = [[heading, text] for heading, text in doc.sections]
    row.frontmatter = documents_json(doc.frontmatter)
    row.provenance = documents_json(doc.provenance)
    row.deciders = [str(d) for d in doc.deciders]
    row.body = raw.decode("utf-8", "replace")
    row.sha256, row.present, row.read_at = digest, True, now
    row.problems = list(doc.problems) + ([f"{doc.quarantine[0]}: {doc.quarantine[1]}"] if doc.quarantine else [])


def documents_json(value):
    import json

    return json.loads(json.dumps(value or {}, default=str))


def edges(doc) -> list[tuple[str, str]]:
    out = [("supersedes", t) for t in doc.supersedes] + [("superseded_by", t) for t in doc.superseded_by]
    out += [("related", t) for t in doc.related] + [("amends", t) for t in doc.amends]
    return out


def flag_duplicates(root: str) -> None:
    AdrRecord.objects.filter(repo=root).update(duplicate=False)
    dupes = (AdrRecord.objects.filter(repo=root, present=True).values("canonical_id")
             .annotate(n=Count("pk")).filter(n__gt=1).values_list("canonical_id", flat=True))
    AdrRecord.objects.filter(repo=root, present=True, canonical_id__in=list(dupes)).update(duplicate=True)
