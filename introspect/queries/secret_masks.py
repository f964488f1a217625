"""Secrets masked where stored text becomes display text: the one call every page, live tail and
export makes on the entries and spills it shows (entry_cards.entry_cards, entry_code).

Computed on read over what is shown, but only for the lines the importer's scan found a secret in or
never scanned (`TranscriptEntry.has_secret` true or null: a line stored by an importer with
WAYSWEB_SECRET_SCAN off is masked all the same). Scanning every shown line cost 25-440 ms for 400
entries (0.4-2.5 MB of lines) of the bench corpus, 30-50 % of preparing them for display; a line found clean at
import now costs nothing. Spills are scanned on read (few, not flagged). The false positives people
marked are read (one query) only when something was found.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from introspect.importer import secret_rows
from introspect.rules import secrets


class Allowed:
    """The keys of values marked "not a secret", read once per page and only if a page finds one."""

    def __init__(self) -> None:
        self._keys: frozenset[str] | None = None

    @property
    def keys(self) -> frozenset[str]:
        if self._keys is None:
            self._keys = secret_rows.allowed_keys()
        return self._keys

    def text(self, text: str) -> str:
        found = secrets.find_secrets(text) if text else []
        return secrets.mask(text, secrets.shown(found, self.keys)) if found else text


def mask_entries(entries: Iterable[Any], allowed: Allowed | None = None) -> None:
    """Each entry's line (what tool cards, system lines and exports read) and `text` masked in place.
    The text is read out of the line, so a line with no secret has a text with none."""
    allowed = allowed or Allowed()
    for entry in entries:
        if getattr(entry, "has_secret", None) is False:
            continue  # scanned at import, nothing found (None: never scanned, so scanned here)
        try:
            line = entry.line
        except ValueError:  # a corrupt compressed row (lib/linepack.CorruptLine): nothing to show
            continue
        text = bytes(line).decode("utf-8", "surrogateescape")
        masked = allowed.text(text)
        if masked is text:
            continue
        entry.raw, entry.raw_compressed = masked.encode("utf-8", "surrogateescape"), False
        entry.text = allowed.text(entry.text)


def mask_spills(spills: Iterable[Any], allowed: Allowed | None = None) -> None:
    allowed = allowed or Allowed()
    for spill in spills:
        spill.text = allowed.text(spill.text)
