"""One way's files: which root's file agent-ways reads, and its front matter as criteria."""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.db.models import Count

from introspect.importer.wayfiles import CRITERIA_KEYS
from introspect.models import Way

# Precedence of way roots (formats-agent-ways.md §10.1): project, then user, then core.
ROOT_RANK = {Way.RootKind.PROJECT: 0, Way.RootKind.USER: 1, Way.RootKind.CORE: 2}

# Fields agent-ways no longer reads (formats-agent-ways.md §10.3): shown struck through, never
# used to explain a fire.
GONE_FIELDS = {
    "embed_threshold": "not read since ADR-156 (firing uses the global τ on calibrated g(s))",
    "curve": "not read since ADR-126 (replaced by refire:)",
    "redisclose": "not read since ADR-123 (removed)",
}


@dataclass(frozen=True)
class WayFileRow:
    """A way file with this id under one root, and whether it is the one agent-ways reads."""

    way: Way
    note: str
    resolves: bool


@dataclass(frozen=True)
class Criterion:
    key: str
    text: str
    gone_note: str = ""
    fire_bearing: bool = False


def way_files(way_id: str) -> tuple[list[WayFileRow], Way | None]:
    """Every file read with this id, highest precedence first, and the one whose text to show.

    Outside a project agent-ways reads user, then core; a project way applies only in its own
    project, where it shadows both (formats-agent-ways.md §10.1).
    """
    ways = sorted(
        Way.objects.filter(way_id=way_id).select_related("project").annotate(version_count=Count("versions")),
        key=lambda w: (not w.present, ROOT_RANK.get(w.root_kind, 9), w.root),
    )
    present = [w for w in ways if w.present]
    global_winner = next((w for w in present if w.root_kind != Way.RootKind.PROJECT), None)
    out = []
    for way in ways:
        if not way.present:
            note, resolves = "file gone: no longer under this root (last read shown)", False
        elif way.root_kind == Way.RootKind.PROJECT:
            name = way.project.name if way.project else "its project"
            shadows = " and shadows the user/core way there" if global_winner else ""
            note, resolves = f"read only in {name}{shadows}", True
        elif way is global_winner:
            note, resolves = "resolves outside projects that carry their own", True
        else:
            note, resolves = f"shadowed by the {global_winner.root_kind} way", False
        out.append(WayFileRow(way=way, note=note, resolves=resolves))
    primary = global_winner or (present[0] if present else (ways[0] if ways else None))
    return out, primary


def criteria_rows(way: Way) -> list[Criterion]:
    """Front matter as read today, gone fields marked (formats-agent-ways.md §10.3)."""
    out = []
    for key, value in (way.frontmatter or {}).items():
        out.append(
            Criterion(
                key=key,
                text=field_text(value),
                gone_note=GONE_FIELDS.get(key, ""),
                fire_bearing=key in CRITERIA_KEYS or key == "description",
            )
        )
    return out


def field_text(value) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list) and all(isinstance(item, (str, int, float)) for item in value):
        return ", ".join(str(item) for item in value)
    return json.dumps(value, ensure_ascii=False)
