"""One pass of the whole pipeline, as `ingest`, `serve`, the bench and the tests run it.

Each step's module does one thing; this is where they are put in order: import the events and
transcripts (introspect/importer), derive the sessions they touched once that has committed
(introspect/derive), import the ledger's documents, derive knowledge candidates at the episode
boundaries (ledger/derive), then import the knowledge directories — the candidates just derived
included.
"""

from __future__ import annotations

from collections.abc import Callable

from introspect.derive import sessions
from introspect.importer import loader
from introspect.importer.run import Options, PassResult, import_pass
from introspect.models import Session
from ledger.derive import candidates
from ledger.importer.run import LedgerPass, import_documents, import_knowledge
from lib.locations import Locations


def sessions_pass(
    locs: Locations,
    options: Options,
    *,
    on_file: Callable[[loader.FileResult], None] | None = None,
    progress: Callable[[loader.FileResult, int, int], None] | None = None,
    record_only_changes: bool = False,
) -> PassResult:
    """Import every events log and transcript once, then derive the sessions the pass touched."""
    result = import_pass(
        locs, options, on_file=on_file, progress=progress, record_only_changes=record_only_changes
    )
    sessions.rebuild_sessions(result.sessions)
    return result


def ledger_pass(locs: Locations, *, derive: bool = True) -> LedgerPass:
    """Ledger documents, knowledge candidates derived at the episode boundaries, knowledge records."""
    result = import_documents(locs)
    if derive:
        result.derived = candidates.derive_due(locs.knowledge_dir, Session.objects.all())
    return import_knowledge(locs, result)
