"""Secrets masked where stored text becomes display text: the one call every page, live tail and
export makes on the entries and spills it shows (entry_cards.entry_cards, entry_code); it returns
the masked values and leaves the rows as stored.

Computed on read over what is shown, but only for the lines the importer's scan found a secret in or
never scanned (`TranscriptEntry.has_secret` true or null: a line stored by an importer with
WAYSWEB_SECRET_SCAN off is masked all the same). Scanning every shown line cost 25-440 ms for 400
entries (0.4-2.5 MB of lines) of the bench corpus, 30-50 % of preparing them for display; a line found clean at
import now costs nothing. Spills are scanned on read (few, not flagged). The false positives people
marked are read (one query) only when something was found.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from introspect.importer import secret_rows
from introspect.models import SecretFinding
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


def masked_line(entry: Any, allowed: Allowed | None = None) -> bytes | None:
    """`entry`'s line with its secrets masked, or None when it is shown as stored (found clean at
    import, nothing found now, or a corrupt compressed row): the row itself is left as stored, and a
    line found clean is never read here."""
    if getattr(entry, "has_secret", None) is False:
        return None  # scanned at import, nothing found (None: never scanned, so scanned here)
    try:
        line = entry.line
    except ValueError:  # a corrupt compressed row (lib/linepack.CorruptLine): nothing to show
        return None
    text = bytes(line).decode("utf-8", "surrogateescape")
    masked = (allowed or Allowed()).text(text)
    return None if masked is text else masked.encode("utf-8", "surrogateescape")


def masked_text(text: str, allowed: Allowed | None = None) -> str:
    """`text` with its secrets masked: an entry's text once its line held one (the text is read out
    of the line, so a line with no secret has a text with none), a spilled output's always."""
    return (allowed or Allowed()).text(text)


@dataclass(frozen=True, slots=True)
class SecretRef:
    """A secret masked on a page, as a reviewer's reveal button names it (never its value)."""

    pk: int  # the SecretFinding
    label: str  # "GitHub token"
    where: str  # "" in the line itself, else the spilled output's name


def secret_refs(entries: list[Any], allowed: Allowed, *, spilled: bool) -> dict[int, list[SecretRef]]:
    """The findings of `entries` (by entry pk) still masked: one query, and none when no entry was
    found to hold a secret at import and none has a spill."""
    held = [entry for entry in entries if entry.pk and (spilled or getattr(entry, "has_secret", None))]
    if not held:
        return {}
    by_place = {(entry.source_id, entry.offset, entry.index): entry.pk for entry in held}
    sources: dict[int, set[int]] = {}
    for source_id, offset, _ in by_place:
        sources.setdefault(source_id, set()).add(offset)
    where = Q(pk__in=[])
    for source_id, offsets in sources.items():
        where |= Q(source_id=source_id, offset__in=offsets)
    refs: dict[int, list[SecretRef]] = {}
    rows = SecretFinding.objects.filter(where, place=SecretFinding.Place.LINE).order_by("spill_name", "pk")
    for finding in rows:
        pk = by_place.get((finding.source_id, finding.offset, finding.index))
        if pk is None or secrets.finding_key(finding.kind, finding.fingerprint) in allowed.keys:
            continue
        label = secrets.LABELS.get(finding.kind, finding.kind)
        refs.setdefault(pk, []).append(SecretRef(finding.pk, label, finding.spill_name))
    return refs
