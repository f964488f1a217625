"""Reads for the Memory screens: the projects with auto-memory, one project's memory, and the
"memory written" marks a session page shows (a provider LedgerConfig.ready registers)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.db.models import Count, OuterRef, Prefetch, Q, QuerySet, Subquery, Value
from django.db.models.functions import Concat
from django.urls import reverse

from introspect.models import Project, Session
from introspect.queries import providers
from ledger.models import Memory, MemoryAction, MemoryVersion

# Claude Code loads the first 200 lines of MEMORY.md into every session; the rest is not seen.
INDEX_LINES_LOADED = 200
DIFF_LINES_SHOWN = 400


@dataclass
class VersionView:
    version: MemoryVersion
    diff: list[tuple[str, str]] = field(default_factory=list)  # (kind: "+", "-", "@", " ", line)
    turn_url: str = ""


@dataclass(frozen=True)
class MemoryView:
    memory: Memory
    versions: list[VersionView]
    actions: list[MemoryAction]
    # Its decision forms and the notice of the decision just made, given by the view that draws it
    # (ledger/views/memory.py with_forms: ledger.forms' MemoryPromoteForm and MemoryWrongForm).
    promote_form: Any = None
    wrong_form: Any = None
    message: str = ""

    @property
    def current(self) -> MemoryVersion:
        return self.versions[-1].version

    @property
    def index_lines(self) -> list[tuple[int, str, bool]]:
        """(number, line, loaded) for the index: what Claude Code loads, and what it never sees."""
        lines = self.current.content.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return [(n, line, n <= INDEX_LINES_LOADED) for n, line in enumerate(lines, start=1)]


def turn_url(version: MemoryVersion) -> str:
    """The session page at the call that wrote the version (its permalink lands on its turn's page)."""
    if version.session is None or version.entry is None:
        return ""
    url = reverse("introspect:session-detail", args=[version.session.sid])
    return f"{url}?{urlencode({'u': version.entry.uuid})}" if version.entry.uuid else url


def diff_lines(before: str, after: str) -> list[tuple[str, str]]:
    """A unified diff of two versions as (kind, text) rows, capped."""
    rows = []
    for line in difflib.unified_diff(before.split("\n"), after.split("\n"), lineterm="", n=2):
        if line.startswith(("---", "+++")):
            continue
        rows.append(
            ("@" if line.startswith("@@") else line[:1] or " ", line[1:] if line[:1] in "+- " else line)
        )
        if len(rows) >= DIFF_LINES_SHOWN:
            rows.append(("@", "… diff cut here"))
            break
    return rows


def project_of_folder() -> QuerySet[Project]:
    """The project whose transcripts are in the projects/ folder named by the outer `project_slug`
    (first by id): the folder name is a lossy slug of its path, so it is shown only when no session
    of the folder is imported."""
    folder = Concat(OuterRef("project_slug"), Value("/"))
    return Project.objects.filter(sessions__transcript__rel_path__startswith=folder).order_by("pk")


def folder_project(slug: str) -> dict | None:
    """The name and path of the project whose transcripts are in projects/<slug>/, as project_of_folder."""
    projects = Project.objects.filter(sessions__transcript__rel_path__startswith=f"{slug}/").order_by("pk")
    return projects.values("name", "path").first()


def memory_projects() -> QuerySet:
    """Each project slug with auto-memory: how many memories, how many deleted, versions in all,
    and its project's name and path (None when none of its sessions is imported)."""
    return (
        Memory.objects.values("project_slug")
        .annotate(
            memories=Count("pk", distinct=True),
            deleted=Count("pk", filter=Q(present=False), distinct=True),
            versions=Count("versions"),
            project_name=Subquery(project_of_folder().values("name")[:1]),
            project_path=Subquery(project_of_folder().values("path")[:1]),
        )
        .order_by("project_slug")
    )


def memory_index_page() -> dict:
    return {"projects": memory_projects()}


def versions_with_calls() -> QuerySet[MemoryVersion]:
    # The call's line is not needed to name it: its raw bytes stay in the database.
    return (
        MemoryVersion.objects.select_related("session", "entry")
        .only(
            *(f.name for f in MemoryVersion._meta.concrete_fields),
            "session__sid",
            "entry__uuid",
            "entry__tool_name",
            "entry__tool_use_id",
        )
        .order_by("number")
    )


def memory_views(memories: QuerySet[Memory]) -> list[MemoryView]:
    """Each memory with its versions (oldest first, each with its diff from the one before) and its
    audit, in a fixed number of queries."""
    rows = memories.prefetch_related(
        Prefetch("versions", queryset=versions_with_calls()),
        Prefetch("actions", queryset=MemoryAction.objects.select_related("knowledge")),
    )
    views = []
    for memory in rows:
        versions = list(memory.versions.all())
        if not versions:
            continue
        shown = []
        for before, version in zip([None, *versions], versions, strict=False):
            diff = diff_lines(before.content if before else "", version.content)
            shown.append(VersionView(version, diff, turn_url(version)))
        views.append(MemoryView(memory, shown, list(memory.actions.all())))
    return views


def memory_project_page(slug: str) -> dict:
    """One project's memory: the index as Claude Code loads it, then every topic file (deleted last)."""
    views = memory_views(Memory.objects.filter(project_slug=slug).order_by("-present", "name"))
    index = next((view for view in views if view.memory.is_index), None)
    return {
        "slug": slug,
        "project": folder_project(slug),
        "index": index,
        "topics": [view for view in views if not view.memory.is_index],
        "loaded_lines": INDEX_LINES_LOADED,
    }


def memory_card(pk: int) -> MemoryView | None:
    """One memory, as its card on the project page shows it."""
    found = memory_views(Memory.objects.filter(pk=pk))
    return found[0] if found else None


def session_notes(session: Session, turns: list, header: bool) -> providers.SessionNotes:
    """The "memory written" marks on a session page (registered in LedgerConfig.ready): all the
    versions this session wrote in the header, and each under the fire turn of the page it followed."""
    written = list(
        MemoryVersion.objects.filter(session=session)
        .select_related("memory", "entry", "session")
        .only(
            "number",
            "match",
            "turn",
            "memory__name",
            "memory__project_slug",
            "session__sid",
            "entry__uuid",
            "entry__ts",
        )
        .order_by("entry__ts", "pk")
    )
    notes = providers.SessionNotes()
    for version in written:
        # At the call itself on the conversation; under its fire turn where only fire turns show.
        notes.by_entry.setdefault(version.entry_id, []).append(
            providers.Note("ledger/notes/turn_memory.html", version)
        )
    if header and written:
        views = [VersionView(version, turn_url=turn_url(version)) for version in written]
        notes.header.append(providers.Note("ledger/notes/memory_written.html", views))
    if not turns or not written:
        return notes
    later = session.turns.filter(epoch=turns[-1].epoch + 1).values_list("ts", flat=True).first()
    for version in written:
        when = version.entry.ts
        owners = [turn for turn in turns if when is not None and turn.ts <= when]
        if owners and (later is None or when < later):
            notes.by_turn.setdefault(owners[-1].pk, []).append(
                providers.Note("ledger/notes/turn_memory.html", version)
            )
    return notes
