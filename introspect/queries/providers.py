"""What other apps add to introspect's pages, without introspect importing them.

introspect sits below ledger: it never imports it. Where a session page shows what another app
knows about the session (ledger entries under the turns they follow, the decision records a
session's ledger names), that app registers a provider here from its `AppConfig.ready()`
(ledger/apps.py), and the session page query asks every provider. A provider returns `Note`s:
an item and the template (the provider's own) that renders it, so introspect's templates name no
other app's URL either.

A provider is registered by its dotted path and imported when a page first asks for it: the pages'
queries are no part of `ingest`, whose start would import them all (tests/waysweb/management/test_ingest_start.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from django.utils.module_loading import import_string

from introspect.models import Session, Turn


@dataclass(frozen=True)
class Note:
    """One thing another app shows on a session page, rendered by its own template as `item`."""

    template: str
    item: object


@dataclass
class SessionNotes:
    """What providers add to a page of a session: under the header, under each fire turn (by pk),
    and under a transcript entry (by pk) where the note is about that very line (a tool call)."""

    header: list[Note] = field(default_factory=list)
    by_turn: dict[int, list[Note]] = field(default_factory=dict)
    by_entry: dict[int, list[Note]] = field(default_factory=dict)

    def add(self, other: SessionNotes) -> None:
        self.header += other.header
        for turn_pk, notes in other.by_turn.items():
            self.by_turn.setdefault(turn_pk, []).extend(notes)
        for entry_pk, notes in other.by_entry.items():
            self.by_entry.setdefault(entry_pk, []).extend(notes)


SessionNotesProvider = Callable[[Session, list[Turn], bool], SessionNotes]
_SESSION_NOTES: list[str] = []


@functools.cache
def provider(path: str) -> Callable:
    """The provider registered as `path` (`"ledger.queries.stream.session_notes"`), imported once."""
    return import_string(path)


def register_session_notes(path: str) -> None:
    """Called once per provider, from its app's `ready()`, with the dotted path of a
    `SessionNotesProvider`."""
    if path not in _SESSION_NOTES:
        _SESSION_NOTES.append(path)


def session_notes(session: Session, turns: list[Turn], *, header: bool) -> SessionNotes:
    """Every provider's notes for these turns (and for the page header when `header`)."""
    notes = SessionNotes()
    for path in _SESSION_NOTES:
        notes.add(provider(path)(session, turns, header))
    return notes


@dataclass(frozen=True)
class SourceRoot:
    """One root a document importer reads (a ledger folder, a knowledge directory, a repository's ADRs):
    what its rows hold now, and when the importer last read it (None: no pass recorded it yet)."""

    kind: str
    label: str
    root: str
    records: int
    gone: int
    quarantined: int
    changed: int | None = None
    read_at: datetime | None = None
    changed_at: datetime | None = None
    files: int | None = None  # line files: how many hold the records; a document is its own file


@dataclass(frozen=True)
class SourceItem:
    """A document that was quarantined or did not check out, with why; `url` is its page, if it has one."""

    kind: str
    label: str
    root: str
    path: str
    reason: str
    at: datetime | None = None
    url: str = ""


@dataclass
class ImportSources:
    """What other importers add to the import status page: their roots, and a page of their problems."""

    roots: list[SourceRoot] = field(default_factory=list)
    items: list[SourceItem] = field(default_factory=list)
    item_count: int = 0


ImportSourcesProvider = Callable[[int, int], ImportSources]  # (page, per page)
_IMPORT_SOURCES: list[str] = []


def register_import_sources(path: str) -> None:
    """Called once per provider, from its app's `ready()`, with the dotted path of an
    `ImportSourcesProvider`."""
    if path not in _IMPORT_SOURCES:
        _IMPORT_SOURCES.append(path)


def import_sources(*, page: int, per_page: int) -> ImportSources:
    """Every provider's roots and problem items (each provider pages its own items)."""
    found = ImportSources()
    for path in _IMPORT_SOURCES:
        more = provider(path)(page, per_page)
        found.roots += more.roots
        found.items += more.items
        found.item_count += more.item_count
    return found
