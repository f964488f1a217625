"""What a knowledge record's `provenance.derived_from` refs name, resolved to rows (ledger/importer/
knowledge.py indexes the records): the session, the ledger entry and the turns it came from, each
row looked up once per pass.
"""

from __future__ import annotations

from collections.abc import Iterable

from introspect.models import Session
from ledger.models import KnowledgeRecord, LedgerEntry, MjLedgerLine
from lib import bulk

SESSION_REF = "claude-session:"


class SessionsBySid(dict):
    """Sessions looked up by id once per pass (thousands of derived records name a few hundred)."""

    def __missing__(self, sid: str) -> Session | None:
        # The id is unique: no ORDER BY. `.first()` ordered by pk, and SQLite walked the whole
        # session table in pk order for each id instead of looking it up (20 of the 128 CPU s a
        # cold import's 8,955 candidates took to index; issue 29).
        self[sid] = found = next(iter(Session.objects.filter(sid=sid)[:1]), None)
        return found

    def prefetch(self, refs: Iterable[str]) -> None:
        """Every session the `claude-session:` refs among `refs` name, in a few queries: a cold
        pass's 8,955 derived records name 2,565 sessions, and a query each was 12 of its 58 CPU s
        (profiled) of indexing them. One named but not found is None, as `__missing__` finds it."""
        wanted = {ref[len(SESSION_REF) :] for ref in refs if ref.startswith(SESSION_REF)} - self.keys()
        for session in bulk.chunked_in(Session.objects.all(), "sid", sorted(wanted)):
            self[session.sid] = session
        self.update((sid, None) for sid in wanted - self.keys())


class Lookups(dict):
    """A pass's look-ups of the ledger entry a `ledger:<slug>/e<epoch>` ref names, each made once
    (thousands of derived records name a few entries each)."""

    def __missing__(self, key: tuple[str, int]) -> LedgerEntry | None:
        slug, epoch = key
        self[key] = found = LedgerEntry.objects.filter(project_slug=slug, epoch=epoch).order_by("ts").first()
        return found


def link_provenance(record: KnowledgeRecord, sessions: SessionsBySid, lookups: Lookups) -> None:
    """Resolve `claude-session:`, `ledger:` and `turn:` refs (waysweb's own) to rows and turns."""
    for ref in record.derived_from:
        kind, _, value = ref.partition(":")
        if kind == "claude-session":
            record.session = sessions[value]
        elif kind == "session" and record.session is None:
            # A majordomus episode: its provider.event.received lines name the Claude Code session.
            provider = (
                MjLedgerLine.objects.filter(episode=value)
                .exclude(provider_session="")
                .values_list("provider_session", flat=True)
                .first()
            )
            if provider:
                record.session = sessions[provider]
        elif kind == "ledger" and "/e" in value:
            slug, _, epoch = value.rpartition("/e")
            if epoch.isdigit():
                record.ledger_entry = lookups[slug, int(epoch)]
        elif kind == "turn" and "#" in value:
            span = value.split("#", 1)[1]
            first, _, last = span.partition("-")
            if first.isdigit():
                record.turn_epochs = [int(first), int(last) if last.isdigit() else int(first)]
