"""Secrets met at import (introspect/rules/secrets.py): each line scanned once as it is stored.

A line that holds one gets its `text` column masked (the full-text index is filled from that column,
so the index never holds a secret's characters), a `SecretFinding` row per secret for the Secrets
page, and in team mode (settings.WAYSWEB_SECRETS_MASKED_ONLY) its stored line masked too. A line with
none (nearly all) costs the scan alone. Values a person marked "no secret" (`SecretFalsePositive`) are
left as they are, in this import and every later one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings

from introspect.models import SecretFalsePositive, SecretFinding, TranscriptEntry
from introspect.rules import secrets
from lib import bulk

FINDING_NAMES = ("source_id", "offset", "index", "session_id", "spill_name", "kind", "fingerprint")


def allowed_keys() -> frozenset[str]:
    """The finding keys people marked "not a secret" (a small table, read whole)."""
    return frozenset(SecretFalsePositive.objects.values_list("key", flat=True))


@dataclass
class LineScan:
    """The scan of one import batch: the findings to write with its entries."""

    enabled: bool = field(default_factory=lambda: settings.WAYSWEB_SECRET_SCAN)
    masked_only: bool = field(default_factory=lambda: settings.WAYSWEB_SECRETS_MASKED_ONLY)
    findings: list[tuple] = field(default_factory=list)
    _allowed: frozenset[str] | None = None

    @property
    def allowed(self) -> frozenset[str]:
        if self._allowed is None:  # read only by a batch that found something
            self._allowed = allowed_keys()
        return self._allowed

    def line(self, data: bytes, fields: dict, place: tuple[int, int, int, int | None]) -> bytes:
        """Scan a line about to be stored: mask `fields["text"]` in place when it holds a secret, note
        the findings at `place` (source id, offset, index, session id), and answer the bytes to store."""
        fields["has_secret"] = None
        if not self.enabled or not data:
            return data
        text = data.decode("utf-8", "surrogateescape")
        found = secrets.find_secrets(text)
        fields["has_secret"] = bool(found)
        if not found:
            return data
        # Every finding is noted, the false positives too (the Secrets page lists them as such).
        self.findings.extend((*place, "", span.kind, span.fingerprint) for span in found)
        found = secrets.shown(found, self.allowed)
        if not found:
            return data
        fields["text"] = secrets.mask_text(fields["text"], self.allowed)
        if self.masked_only:
            return secrets.mask(text, found).encode("utf-8", "surrogateescape")
        return data

    def rows(self) -> bulk.Rows:
        return bulk.Rows(SecretFinding, FINDING_NAMES, self.findings)


def spill_text(pk: int, name: str, text: str) -> str:
    """A spill's text as read (importer/spills.py): its findings noted under its line, and the text
    to store (masked in team mode)."""
    if not settings.WAYSWEB_SECRET_SCAN:
        return text
    found = secrets.find_secrets(text)
    if not found:
        return text
    place = TranscriptEntry.objects.filter(spills__pk=pk).values_list(
        "source_id", "offset", "index", "session_id"
    )
    for source_id, offset, index, session_id in place[:1]:
        bulk.insert_rows(
            bulk.Rows(
                SecretFinding,
                FINDING_NAMES,
                [(source_id, offset, index, session_id, name, span.kind, span.fingerprint) for span in found],
            )
        )
    if not settings.WAYSWEB_SECRETS_MASKED_ONLY:
        return text
    return secrets.mask(text, secrets.shown(found, allowed_keys()))


def stored_text(text: str) -> str:
    """A read-only document's text as it is to be stored (ledger entries, memory files): masked in team
    mode, so it never leaves this machine; as read otherwise (pages mask it as they show it)."""
    return secrets.mask_text(text) if settings.WAYSWEB_SECRETS_MASKED_ONLY else text
