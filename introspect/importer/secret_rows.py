"""Secrets met at import (introspect/rules/secrets.py): each line scanned once as it is stored.

A line that holds one gets its `text` column masked (the full-text index is filled from that column,
so the index never holds a secret's characters), a `SecretFinding` row per secret for the Secrets
page, and in team mode (settings.WAYSWEB_SECRETS_MASKED_ONLY) its stored line masked too. A line with
none (nearly all) costs the scan alone. Values a person marked "no secret" (`SecretFalsePositive`) are
left as they are, in this import and every later one.

Events-log lines (`event_row`) and read-only documents (`DocumentScan`: memory files, ledger entries,
knowledge and decision records, read by ledger's importers) are scanned the same way: their findings
listed on the Secrets page, their stored text masked in team mode.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import orjson
from django.conf import settings
from django.db import models

from introspect.models import SecretFalsePositive, SecretFinding, TranscriptEntry
from introspect.rules import secrets
from lib import bulk

FINDING_NAMES = ("source_id", "offset", "index", "session_id", "spill_name", "place", "kind", "fingerprint")


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

    def found(
        self, data: bytes, found: list | None, fields: dict, place: tuple[int, int, int, int | None]
    ) -> bytes:
        """A line about to be stored, scanned already (entry_prep.prepare: `found`, the secrets in
        `data`): mask `fields["text"]` in place when it holds a secret, note the findings at `place`
        (source id, offset, index, session id), and answer the bytes to store."""
        if not found:
            return data
        text = data.decode("utf-8", "surrogateescape")
        # Every finding is noted, the false positives too (the Secrets page lists them as such).
        self.findings.extend((*place, "", "", span.kind, span.fingerprint) for span in found)
        found = secrets.shown(found, self.allowed)
        if not found:
            return data
        fields["text"] = secrets.mask_text(fields["text"], self.allowed)
        if self.masked_only:
            return secrets.mask(text, found).encode("utf-8", "surrogateescape")
        return data

    def rows(self) -> bulk.Rows:
        return finding_rows(self.findings)


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
                [
                    (source_id, offset, index, session_id, name, "", span.kind, span.fingerprint)
                    for span in found
                ],
            )
        )
    if not settings.WAYSWEB_SECRETS_MASKED_ONLY:
        return text
    return secrets.mask(text, secrets.shown(found, allowed_keys()))


@dataclass
class ScannedRows(bulk.Rows):
    """Rows of a batch and the secrets found in their lines, written with them (stores.write_rows)."""

    findings: bulk.Rows | None = None


EVENT_TEXTS = ("raw", "matched_span", "reason")


def event_row(
    values: list,
    texts: tuple[int, ...],
    place: tuple[int, int, int, int | None],
    findings: list[tuple],
    scan: DocumentScan,
) -> None:
    """An events-log line about to be stored (importer/event_rows.py), as its row: its findings added to
    `findings` (at `place`, the line's source, offset, index and session id), and in team mode its raw
    line and the texts an event quotes (`surface`, the prompt that fired a way; `matched_span`,
    `reason`) masked. `texts`: the places of EVENT_TEXTS in the row. `scan`: one batch's scan, used
    line after line (settings read once a batch, not once a line)."""
    scan.found = {}  # this line's findings only
    for at in texts:
        if values[at]:
            values[at] = scan.text(values[at])
    noted(place, scan.found, findings)


def noted(place: tuple[int, int, int, int | None], found, findings: list[tuple]) -> None:
    """An event's findings, (kind, fingerprint) each in `found`, added to `findings` at `place`."""
    findings.extend((*place, "", SecretFinding.Place.EVENT, kind, fingerprint) for kind, fingerprint in found)


def finding_rows(findings: list[tuple]) -> bulk.Rows:
    return bulk.Rows(SecretFinding, FINDING_NAMES, findings)


# The models whose rows a document finding may name (`SecretFinding.place`), registered by the app
# that owns them (ledger/apps.py), so that a reveal can read a value back without introspect
# importing them.
DOCUMENTS: dict[str, type[models.Model]] = {}


def register_document(model: type[models.Model]) -> None:
    DOCUMENTS[model._meta.label_lower] = model


class DocumentScan:
    """The secrets of one read-only document as it is stored (a memory file's version, a ledger entry,
    a knowledge or decision record, an event): each text passed through `text` (or `value`, for
    front matter and other JSON) is scanned, its findings noted, and answered masked in team mode
    (settings.WAYSWEB_SECRETS_MASKED_ONLY), so the value never leaves this machine; as read otherwise
    (pages mask it as they show it: the `|masked` filter). Values marked "not a secret" stay as read."""

    def __init__(self) -> None:
        self.enabled = settings.WAYSWEB_SECRET_SCAN
        self.masked_only = settings.WAYSWEB_SECRETS_MASKED_ONLY
        self.found: dict[tuple[str, str], None] = {}  # (kind, fingerprint), in the order found
        self._allowed: frozenset[str] | None = None

    def text(self, text: str) -> str:
        if not text or not (self.enabled or self.masked_only):
            return text
        found = secrets.find_secrets(text)
        if not found:
            return text
        if self.enabled:
            self.found.update(((span.kind, span.fingerprint), None) for span in found)
        if not self.masked_only:
            return text
        if self._allowed is None:
            self._allowed = allowed_keys()
        return secrets.mask(text, secrets.shown(found, self._allowed))

    def value(self, value):
        """A JSON value with each of its strings (keys too) as `text` answers it."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(item) for item in value]
        if isinstance(value, dict):
            return {self.text(key): self.value(item) for key, item in value.items()}
        return value

    def fields(self, instance: models.Model, names: tuple[str, ...]) -> None:
        """The named text and JSON fields of `instance` as `value` answers them, in place."""
        for name in names:
            setattr(instance, name, self.value(getattr(instance, name)))

    def save(self, instance: models.Model, *, where: str, url: str, session_id: int | None = None) -> None:
        """The document's findings (as now read) in place of those it had: a secret edited out of a
        file is no longer listed. Called once its row is saved (it names the row)."""
        save_scans([(instance, self, where, url, session_id)])


def save_scans(scanned: list[tuple[models.Model, DocumentScan, str, str, int | None]]) -> None:
    """`DocumentScan.save` of many new rows of one model at once: (row, its scan, where, url,
    session id) each, their findings in their order, in a statement or two instead of two per row."""
    if not scanned:
        return
    place = scanned[0][0]._meta.label_lower
    pks = [instance.pk for instance, *_ in scanned]
    for start in range(0, len(pks), 500):
        SecretFinding.objects.filter(place=place, place_pk__in=pks[start : start + 500]).delete()
    SecretFinding.objects.bulk_create(
        [
            SecretFinding(
                place=place,
                place_pk=instance.pk,
                where=where[:255],
                url=url,
                session_id=session_id,
                offset=0,
                kind=kind,
                fingerprint=fingerprint,
            )
            for instance, scan, where, url, session_id in scanned
            for kind, fingerprint in scan.found
        ]
    )


def document_texts(place: str, pk: int | None) -> list[str]:
    """Every text of a registered document's row as stored (JSON fields as JSON), to read a value
    back from; empty when the row is gone or its model is not registered."""
    model = DOCUMENTS.get(place)
    row = model.objects.filter(pk=pk).first() if model is not None and pk is not None else None
    if row is None:
        return []
    texts = []
    for column in model._meta.concrete_fields:
        value = getattr(row, column.attname)
        if isinstance(column, models.JSONField):
            texts.append(orjson.dumps(value).decode())
        elif isinstance(value, str):
            texts.append(value)
    return texts
