"""ADR directories of each known repository into `AdrRecord` rows (knowledge-and-records.md §10–§13).

A record is its id inside its repository: a file that disappears while another with the same id
appears is a move of the same record; two live files with one id are both kept and flagged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction
from django.db.models import Count
from django.urls import reverse
from django.utils import timezone

from introspect.importer import secret_rows
from ledger.importer.adr_questions import read_questions, store_questions
from ledger.models import AdrRecord, AdrRelation
from ledger.records import parse
from lib import bulk, column_fit, safefs
from lib.hashing import sha256

DEFAULT_DIRS = ("doc/adr", "docs/adr", "docs/decisions", ".ai/repo/adrs", "docs/architecture")
SKIP_NAMES = {"readme.md", "index.md", "template.md", "adr-template.md", "0000-template.md"}


@dataclass
class AdrResult:
    files: int = 0
    added: int = 0
    changed: int = 0
    moved: int = 0
    gone: int = 0
    problems: list[safefs.Problem] = field(default_factory=list)


def adr_directories(
    repo: Path, extra: tuple[str, ...] = (), problems: list[safefs.Problem] | None = None
) -> list[Path]:
    """`.adr-dir`'s target, then the conventional places, then configured ones — those that exist
    inside the repository (a directory reached through a link out of it is a problem, never read)."""
    problems = [] if problems is None else problems
    found: list[Path] = []
    candidates = []
    marker = repo / ".adr-dir"
    if safefs.exists(marker):
        try:
            text = safefs.read_capped(repo, marker, 4096).decode("utf-8", "replace").strip()
        except FileNotFoundError:
            text = ""
        except safefs.Refused as refused:
            problems.append(refused.problem)
            text = ""
        except OSError as exc:
            problems.append(safefs.Problem(str(marker), safefs.UNREADABLE, exc.strerror or str(exc)))
            text = ""
        candidates.append(text.splitlines()[0] if text else "")
    candidates += list(DEFAULT_DIRS) + list(extra)
    base = safefs.real(repo)
    for rel in candidates:
        if not rel:
            continue
        path = safefs.real(repo / rel)
        if not safefs.is_dir(path) or path in found:
            continue
        if path.is_relative_to(base):
            found.append(path)
        else:
            problems.append(safefs.Problem(str(repo / rel), safefs.LEAVES_ROOT, f"links to {path}"))
    return found


def adr_file(directory: Path, name: str) -> bool:
    """Whether a file in an ADR directory is a record (not a README, an index or a template)."""
    if not name.endswith(".md") or name.lower() in SKIP_NAMES:
        return False
    # docs/architecture holds more than ADRs: only ADR-NNN files there.
    return directory.name != "architecture" or name.upper().startswith("ADR-")


def adr_files(repo: Path, directory: Path, problems: list[safefs.Problem] | None = None) -> list[Path]:
    """The record files under one ADR directory, read inside the repository."""
    listing = safefs.walk(
        safefs.real(repo),
        start=directory,
        want=lambda name: adr_file(directory, name),
        prune=lambda name: name.startswith("."),
    )
    if problems is not None:
        problems.extend(listing.problems)
    return listing.files


def import_repo(repo: Path, extra: tuple[str, ...] = ()) -> AdrResult:
    """Every record of one repository into rows: new, changed, moved (same id, new path) or gone."""
    result = AdrResult()
    now = timezone.now()
    root = str(repo)
    base = safefs.real(repo)
    existing = {row.rel_path: row for row in AdrRecord.objects.filter(repo=root)}
    seen: set[str] = set()
    for directory in adr_directories(repo, extra, result.problems):
        for path in adr_files(repo, directory, result.problems):
            rel = path.relative_to(base).as_posix()
            if rel in seen:
                continue
            seen.add(rel)  # an unreadable record is not gone: its row keeps what was last read
            try:
                raw = safefs.read_capped(base, path, parse.MAX_DOCUMENT_BYTES)[: parse.MAX_DOCUMENT_BYTES]
            except FileNotFoundError:
                seen.discard(rel)
                continue
            except safefs.Refused as refused:
                result.problems.append(refused.problem)
                continue
            except OSError as exc:
                result.problems.append(safefs.Problem(str(path), safefs.UNREADABLE, exc.strerror or str(exc)))
                continue
            result.files += 1
            digest = sha256(raw)
            row = existing.get(rel)
            if row is not None and row.sha256 == digest and row.present:
                continue
            doc = parse.parse_adr(raw, rel_path=rel)
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
                store(row, doc, rel, str(directory), digest, raw, now)
    for rel, row in existing.items():
        if rel not in seen and row.present:
            AdrRecord.objects.filter(pk=row.pk).update(present=False)
            result.gone += 1
    flag_duplicates(root)
    return result


def import_record(row: AdrRecord, extra: tuple[str, ...] = ()) -> None:
    """One record's file read again now. A person's act that found it changed answers with what the
    file says, not with what the last pass read up to a pass interval ago. A file no longer at its
    path sends the whole repository to be read (`extra` its configured ADR directories): whether it
    moved or is gone is only known from the others."""
    repo = Path(row.repo)
    try:
        raw = safefs.read_capped(safefs.real(repo), Path(row.path), parse.MAX_DOCUMENT_BYTES)
    except FileNotFoundError:
        import_repo(repo, extra)
        return
    except OSError:
        return  # unreadable or refused: the row keeps what was last read, and the next pass says why
    raw = raw[: parse.MAX_DOCUMENT_BYTES]
    digest = sha256(raw)
    if row.sha256 == digest and row.present:
        return
    with transaction.atomic():
        store(row, parse.parse_adr(raw, rel_path=row.rel_path), row.rel_path, row.directory, digest, raw)
    flag_duplicates(row.repo)


# What a record's row holds of its file's words; its questions' texts are scanned as they are stored.
ADR_TEXTS = ("title", "raw_status", "sections", "frontmatter", "provenance", "deciders", "body")


def store(row: AdrRecord, doc, rel: str, directory: str, digest: str, raw: bytes, now=None) -> None:
    """Save a record's row as its file says (inside the caller's transaction): the fields, its
    relations and its questions."""
    now = now or timezone.now()
    fill(row, doc, rel, directory, digest, raw, now)
    found = read_questions(raw, doc)
    kept, dropped = fitting_edges(doc, found.cited)
    # An edge no column can hold is said on the record, not lost without a word.
    row.problems += [f"overlong:{kind}: a target of {len(target)} characters" for kind, target in dropped]
    scan = secret_rows.DocumentScan()  # the record's words as stored: masked in team mode
    scan.fields(row, ADR_TEXTS)
    bulk.save_racing(row, repo=row.repo, rel_path=rel)
    scan.save(
        row,
        where=f"decision record {row.canonical_id} ({rel})",
        url=reverse("ledger:record-detail", args=[row.pk]),
    )
    AdrRelation.objects.filter(source=row).delete()
    AdrRelation.objects.bulk_create(
        [AdrRelation(source=row, kind=kind, target=target) for kind, target in kept],
        ignore_conflicts=True,
    )
    store_questions(row, found, now)


def moved_from(root: str, record_id: str, existing: dict, seen: set[str], repo: Path) -> AdrRecord | None:
    """A row of the same id whose file is gone: the record was renamed or moved, not created."""
    for rel, row in existing.items():
        if row.canonical_id == record_id and rel not in seen and not safefs.exists(repo / rel):
            return row
    return None


def fill(row: AdrRecord, doc, rel: str, directory: str, digest: str, raw: bytes, now) -> None:
    """Copy what the parsed record says onto its row; a value too long for its column is a problem."""
    row.canonical_id, row.rel_path, row.directory = doc.id or Path(rel).stem, rel, directory
    row.number, row.title, row.raw_status, row.status = (
        doc.number or "",
        doc.title,
        doc.raw_status,
        doc.status,
    )
    row.date, row.format = doc.date or "", doc.format
    row.sections = [[heading, text] for heading, text in doc.sections]
    row.frontmatter = documents_json(doc.frontmatter)
    row.provenance = documents_json(doc.provenance)
    row.deciders = [str(d) for d in doc.deciders]
    row.body = raw.decode("utf-8", "replace")
    row.sha256, row.present, row.read_at = digest, True, now
    row.problems = list(doc.problems) + (
        [f"{doc.quarantine[0]}: {doc.quarantine[1]}"] if doc.quarantine else []
    )
    row.problems += column_fit.fit_instance(row)  # the file keeps the value; the column cannot


def documents_json(value):
    """Front matter as JSON can store it (dates and other YAML scalars as text)."""
    return json.loads(json.dumps(value or {}, default=str))


def edges(doc, cited: list[str] = ()) -> list[tuple[str, str]]:
    """The (kind, target) edges a record declares, as `AdrRelation` rows store them; rulings and specs
    cited in its text (`RUL-035` → `rul:035`) are typed `related` refs like those in front matter."""
    kind = AdrRelation.Kind
    out = [(kind.SUPERSEDES, t) for t in doc.supersedes] + [
        (kind.SUPERSEDED_BY, t) for t in doc.superseded_by
    ]
    related = list(dict.fromkeys([*doc.related, *cited]))
    out += [(kind.RELATED, t) for t in related] + [(kind.AMENDS, t) for t in doc.amends]
    return out


def fitting_edges(doc, cited: list[str] = ()) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(the edges a row can store, those whose target is too long for its column)."""
    limit = AdrRelation._meta.get_field("target").max_length
    found = edges(doc, cited)
    return [e for e in found if len(e[1]) <= limit], [e for e in found if len(e[1]) > limit]


def flag_duplicates(root: str) -> None:
    """Mark every live record whose id another live file of the repository also claims."""
    AdrRecord.objects.filter(repo=root).update(duplicate=False)
    dupes = (
        AdrRecord.objects.filter(repo=root, present=True)
        .values("canonical_id")
        .annotate(n=Count("pk"))
        .filter(n__gt=1)
        .values_list("canonical_id", flat=True)
    )
    AdrRecord.objects.filter(repo=root, present=True, canonical_id__in=list(dupes)).update(duplicate=True)
