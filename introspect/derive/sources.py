"""Which imported rows a session is derived from: its events in event order, its trunk transcript."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import F

from introspect.models import Session, SourceFile, TranscriptEntry, WaysEvent
from introspect.rules import join

# formats-agent-ways.md §2.3 rule 4: ts, then the lowest (rank, generation, offset, index).
EVENT_ORDER = (
    F("ts_raw").asc(nulls_first=True),
    "order_rank",
    "order_generation",
    "order_offset",
    "order_index",
)


def events_in_order(session: Session) -> list[WaysEvent]:
    """The session's events in event order (formats-agent-ways.md §2.3 rule 4)."""
    return list(WaysEvent.objects.filter(session=session).order_by(*EVENT_ORDER))


def locate_trunk(sid: str, project: str) -> SourceFile | None:
    """introspection.md §4.1: the project's slug folder first, else the first folder holding the file.

    Like agent-ways, an id that would leave its folder when joined to a path (`/`, `..`) has none.
    """
    if not sid or "/" in sid or "\\" in sid or sid == "..":
        return None
    candidates = {}
    for row in SourceFile.objects.filter(kind=SourceFile.Kind.TRANSCRIPT, session_key=sid).order_by(
        "generation"
    ):
        candidates[row.rel_path] = row  # the newest generation of each path
    if not candidates:
        return None
    if project:
        slug = join.project_slug(project)
        wanted = f"{slug}/{sid}.jsonl"
        if wanted in candidates:
            return candidates[wanted]
        if len(slug) > 200:
            prefixed = [path for path in candidates if path.startswith(slug[:200] + "-")]
            if len(prefixed) == 1:
                return candidates[prefixed[0]]
    first = min(candidates, key=lambda path: path.split("/")[0])
    return candidates[first]


def trunk_entries(trunk: SourceFile | None) -> list[TranscriptEntry]:
    """Every line of the trunk file in file order, without the columns the derivation never reads."""
    if trunk is None:
        return []
    return list(
        TranscriptEntry.objects.filter(source=trunk).order_by("offset", "index").defer("raw", "cwd", "flags")
    )


def subagent_entries(files: Iterable[SourceFile]) -> list[TranscriptEntry]:
    """The lines of subagent files in time order (a session folder with no trunk: they are all it has)."""
    return list(
        TranscriptEntry.objects.filter(source__in=list(files))
        .order_by(F("ts").asc(nulls_last=True), "source_id", "offset", "index")
        .only("type", "ts", "cwd", "is_prompt", "text", "model")
    )
