"""The way catalog: way files under the project, user and core roots, upserted into `Way` rows.

A way file is a document (importer-reliability.md §1): keyed by (root, id), a `WayVersion` per
distinct content, and a way that disappears is marked absent, never deleted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from introspect.importer import problems, wayfiles
from introspect.models import Project, Way, WayVersion
from lib import bulk, safefs
from lib.locations import Locations


@dataclass(frozen=True)
class WayRoot:
    kind: str
    path: Path
    project: Project | None = None


@dataclass
class CatalogResult:
    roots: int = 0
    files: int = 0
    added: int = 0
    changed: int = 0
    gone: int = 0
    problems: list[safefs.Problem] = field(default_factory=list)


def way_roots(
    locs: Locations,
    *,
    user: Path | None = None,
    core: Path | None = None,
    projects: list[Project] | None = None,
) -> list[WayRoot]:
    """Roots in precedence order: each known project's `.claude/ways`, then user, then core."""
    roots = []
    for project in projects if projects is not None else Project.objects.all():
        path = Path(project.path)
        # Only absolute project paths: a relative or empty one never resolves (paths.rs).
        if path.is_absolute():
            roots.append(WayRoot(Way.RootKind.PROJECT, path / ".claude" / "ways", project))
    roots.append(WayRoot(Way.RootKind.USER, user or locs.user_ways))
    roots.append(WayRoot(Way.RootKind.CORE, core or locs.core_ways))
    return roots


def import_roots(roots: list[WayRoot]) -> CatalogResult:
    """Scan every root once (the documents and pages read the catalog, never the disk) and record
    what was refused under the "ways" area."""
    result = CatalogResult()
    for root in roots:
        if not safefs.is_dir(root.path):
            continue
        result.roots += 1
        import_root(root, result)
    problems.record("ways", result.problems)
    return result


def import_root(root: WayRoot, result: CatalogResult) -> None:
    found = wayfiles.scan_root(root.path, result.problems)
    result.files += len(found)
    now = timezone.now()
    with transaction.atomic():
        existing = {way.way_id: way for way in Way.objects.filter(root=str(root.path))}
        for item in found:
            way = existing.pop(item.way_id, None)
            if way is None:
                way = Way(way_id=item.way_id, root=str(root.path), root_kind=root.kind, changed_at=now)
                result.added += 1
            elif way.sha256 != item.sha256 or not way.present:
                way.changed_at = now
                result.changed += 1
            elif way.rel_path == item.rel_path:
                continue
            way.domain = item.domain
            way.project = root.project
            way.rel_path = item.rel_path
            way.sha256 = item.sha256
            way.frontmatter = item.frontmatter
            way.frontmatter_error = item.error
            way.criteria = item.criteria
            way.body = item.body
            way.present = True
            way.read_at = now
            # Two hosts' importers may find the same root path on one PostgreSQL database.
            bulk.save_racing(way, root=way.root, way_id=way.way_id)
            WayVersion.objects.get_or_create(
                way=way, sha256=item.sha256, defaults={"content": item.content, "first_seen": now}
            )
        for way in existing.values():
            if way.present:
                way.present = False
                way.save(update_fields=["present"])
                result.gone += 1
