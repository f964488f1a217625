"""Claude Code's auto-memory (`<claude dir>/projects/<slug>/memory/*.md`): a version per content.

Each project's `MEMORY.md` index and topic files (front matter `name`, `description`,
`metadata.type`; other keys kept verbatim: undocumented upstream state, so read permissively).
Incremental like every document importer: a file listed with the size and mtime it was read at is
not read again; a new `MemoryVersion` only when the content hash changes; a deleted file keeps its
row and versions, marked deleted. Files are read only inside their memory folder (lib/safefs.py):
a topic file that links out of it is a problem, never read. Broken front matter is quarantined on
the version with its reason; the text is still kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from introspect.importer import secret_rows
from ledger.importer.document import DocumentResult, markdown, read_document
from ledger.models import Memory, MemoryVersion
from ledger.records.document import split_document
from lib import column_fit, safefs
from lib.hashing import sha256


@dataclass(frozen=True)
class MemoryFolder:
    claude_dir: Path
    slug: str
    path: Path


@dataclass(frozen=True)
class Parsed:
    name: str = ""
    description: str = ""
    mem_type: str = ""
    frontmatter: dict | None = None
    quarantine: tuple[str, str] | None = None


def memory_folders(claude_dirs: tuple[Path, ...], problems: list[safefs.Problem]) -> list[MemoryFolder]:
    """Every project's memory folder under each Claude directory's `projects/`, confined to it."""
    found = []
    for claude in claude_dirs:
        projects = claude / "projects"
        if not safefs.is_dir(projects):
            continue
        for folder in safefs.entries(projects, projects, problems):
            memory = folder.path / "memory"
            if folder.kind != "dir" or not safefs.is_dir(memory):
                continue
            try:
                safefs.inside(projects, memory)
            except safefs.Refused as refused:
                problems.append(refused.problem)
                continue
            found.append(MemoryFolder(claude, folder.name, memory))
    return found


def parse_memory(raw: bytes) -> Parsed:
    """The front matter of a memory file. The index has none; a topic file without any is kept as text."""
    data, _, problem = split_document(raw)
    if problem is not None and problem[0] == "frontmatter_missing":
        return Parsed()
    if problem is not None:
        return Parsed(quarantine=problem)
    metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    kept = {str(key): value for key, value in data.items()}
    return Parsed(
        name=text(data.get("name")),
        description=text(data.get("description")),
        mem_type=text(metadata.get("type") or data.get("type")),
        frontmatter=jsonable(kept),
    )


def text(value: object) -> str:
    return "" if value is None or isinstance(value, (dict, list)) else str(value)


def jsonable(value: object) -> object:
    """Front matter as JSON can hold it: dates and other YAML scalars as text."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def import_folder(folder: MemoryFolder, result: DocumentResult) -> list[int]:
    """One memory folder into `result`; the pks of the memories that got a new version."""
    now = timezone.now()
    root = folder.path
    existing = {
        m.name: m for m in Memory.objects.filter(claude_dir=str(folder.claude_dir), project_slug=folder.slug)
    }
    listed: set[str] = set()
    changed: list[int] = []
    before = len(result.problems)
    for found in safefs.entries(root, root, result.problems, want=markdown):
        if found.kind != "file" or not markdown(found.name):
            continue
        listed.add(found.name)
        memory = existing.get(found.name)
        if memory is not None and memory.present and (memory.file_size, memory.file_mtime_ns) == found.seen:
            result.files += 1
            continue
        raw = read_document(root, found.path, result)
        if raw is None:
            continue
        result.files += 1
        with transaction.atomic():
            if memory is None:
                memory = Memory.objects.create(
                    claude_dir=str(folder.claude_dir),
                    project_slug=folder.slug,
                    name=found.name,
                    path=str(found.path),
                    first_seen=now,
                )
                result.added += 1
            last = memory.versions.order_by("-number").first()
            digest = sha256(raw)
            if last is None or last.sha256 != digest:
                if last is not None:
                    result.changed += 1
                parsed = parse_memory(raw)
                result.quarantined += parsed.quarantine is not None
                scan = secret_rows.DocumentScan()
                version = MemoryVersion.objects.create(
                    memory=memory,
                    number=(last.number + 1) if last else 1,
                    sha256=digest,
                    content=scan.text(raw.decode("utf-8", "replace")),
                    mem_name=scan.text(parsed.name),
                    description=scan.text(parsed.description),
                    mem_type=column_fit.cut(parsed.mem_type, MemoryVersion, "mem_type"),
                    frontmatter=scan.value(parsed.frontmatter or {}),
                    quarantine_reason=parsed.quarantine[0] if parsed.quarantine else "",
                    quarantine_detail=parsed.quarantine[1] if parsed.quarantine else "",
                    seen_at=now,
                )
                scan.save(
                    version,
                    where=f"memory file {memory.name} (version {version.number})",
                    url=reverse("ledger:memory-project", args=[memory.project_slug]) + f"#memory-{memory.pk}",
                )
                changed.append(memory.pk)
            memory.present, memory.deleted_at = True, None
            memory.file_size, memory.file_mtime_ns = found.seen
            memory.save(update_fields=["present", "deleted_at", "file_size", "file_mtime_ns"])
    # A file refused this pass is not thereby deleted: only one no longer listed at all is.
    refused = {Path(problem.path).name for problem in result.problems[before:]}
    for name, memory in existing.items():
        if name not in listed and name not in refused and memory.present:
            Memory.objects.filter(pk=memory.pk).update(present=False, deleted_at=now)
            result.gone += 1
    return changed


def import_memory(claude_dirs: tuple[Path, ...]) -> tuple[DocumentResult, list[int]]:
    """Every project's memory folder in every Claude directory; the memories that changed."""
    result = DocumentResult()
    changed: list[int] = []
    for folder in memory_folders(claude_dirs, result.problems):
        changed += import_folder(folder, result)
    return result, changed
