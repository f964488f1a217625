"""The Secrets page: what the importer found (SecretFinding), by session and kind, each with a link to
its place (a card in the conversation, a session's events, the page of a memory file, ledger entry,
knowledge or decision record); the values people marked "not a secret"; and the two acts on a finding
(revealing its value to a reviewer, audited; marking it a false positive, remembered by kind and hash).

Findings are stored at import, not computed here: this page lists every session's, and a scan of every
stored line on each visit would cost the whole database (~5-8 MB/s, bench/secret_scan.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.conf import settings
from django.db import transaction
from django.urls import reverse

from introspect.importer import parser, secret_rows, transcripts
from introspect.models import (
    SecretFalsePositive,
    SecretFinding,
    SecretReveal,
    Session,
    SourceFile,
    Spill,
    TranscriptEntry,
    WaysEvent,
)
from introspect.queries.search_results import session_url
from introspect.rules import entry_kinds, secrets
from lib import converters

SHOWN = 1000  # findings on the page; more are counted
NO_SESSION = "Memory files, ledger entries and records of no one session"


@dataclass(frozen=True)
class Finding:
    pk: int
    kind: str
    label: str
    key: str
    false_positive: bool
    where: str  # "prompt", "tool output", "spill tool-results/x.txt"
    url: str
    revealable: bool


@dataclass
class SessionFindings:
    sid: str
    title: str
    url: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def kinds(self) -> list[tuple[str, int]]:
        """Each kind's label and how many findings of it, most first."""
        counts: dict[str, int] = {}
        for finding in self.findings:
            counts[finding.label] = counts.get(finding.label, 0) + 1
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


@dataclass(frozen=True)
class SecretsPage:
    sessions: list[SessionFindings]
    total: int
    false_positives: int
    masked_only: bool
    # Whether this reader may act on a finding (reveal it, mark it no secret): a reviewer. Anyone
    # else sees the same list without the buttons, which would only answer 403.
    reviewer: bool = False


def entries_at(findings: list[SecretFinding]) -> dict[tuple[int, int, int], TranscriptEntry]:
    """The entries at the findings' positions (source, offset, index), one query per source."""
    by_source: dict[int, set[int]] = {}
    for finding in findings:
        if finding.place == SecretFinding.Place.LINE:
            by_source.setdefault(finding.source_id, set()).add(finding.offset)
    found = {}
    for source_id, offsets in by_source.items():
        rows = TranscriptEntry.objects.filter(source_id=source_id, offset__in=offsets).select_related(
            "source"
        )
        for entry in rows.defer("raw"):
            found[(entry.source_id, entry.offset, entry.index)] = entry
    return found


def place_url(session: Session | None, entry: TranscriptEntry | None) -> str:
    """The finding's card in the conversation (a subagent's page for a subagent's line)."""
    if session is None:
        return ""
    if entry is None or not entry.uuid:
        return reverse("introspect:session-detail", args=[session.sid])
    anchor = f"u-{converters.dom_id(entry.uuid)}"
    if entry.source.kind == SourceFile.Kind.SUBAGENT_TRANSCRIPT and entry.source.agent_key:
        url = reverse("introspect:subagent-detail", args=[session.sid, entry.source.agent_key])
        return f"{url}?{urlencode({'hit': entry.uuid})}#{anchor}"
    return session_url(session.sid, None, anchor, uuid=entry.uuid)


def event_url(session: Session | None) -> str:
    return reverse("introspect:session-events", args=[session.sid]) if session else ""


def where(entry: TranscriptEntry | None, spill_name: str) -> str:
    if spill_name:
        return f"spilled output {spill_name}"
    if entry is None:
        return "a line no longer stored"
    kind = entry_kinds.kind_label(entry_kinds.search_kind(entry))
    return f"{kind} ({entry.tool_name})" if entry.tool_name else kind


def secrets_page(*, reviewer: bool = False) -> SecretsPage:
    allowed = secret_rows.allowed_keys()
    total = SecretFinding.objects.count()
    findings = list(
        SecretFinding.objects.select_related("session").order_by("session_id", "kind", "pk")[:SHOWN]
    )
    entries = entries_at(findings)
    sessions: dict[int | None, SessionFindings] = {}
    for finding in findings:
        session = finding.session
        group = sessions.get(finding.session_id)
        if group is None:
            group = sessions[finding.session_id] = SessionFindings(
                sid=session.sid if session else "",
                title=(session.title or session.sid) if session else NO_SESSION,
                url=reverse("introspect:session-detail", args=[session.sid]) if session else "",
            )
        key = secrets.finding_key(finding.kind, finding.fingerprint)
        if finding.place == SecretFinding.Place.LINE:
            entry = entries.get((finding.source_id, finding.offset, finding.index))
            place, url, stored = (
                where(entry, finding.spill_name),
                place_url(session, entry),
                entry is not None,
            )
        elif finding.place == SecretFinding.Place.EVENT:
            place, url, stored = "agent-ways event", event_url(session), True
        else:  # a document: named at import (its app's page)
            place, url, stored = finding.where, finding.url, True
        group.findings.append(
            Finding(
                pk=finding.pk,
                kind=finding.kind,
                label=secrets.LABELS.get(finding.kind, finding.kind),
                key=key,
                false_positive=key in allowed,
                where=place,
                url=url,
                revealable=reviewer and not settings.WAYSWEB_SECRETS_MASKED_ONLY and stored,
            )
        )
    return SecretsPage(
        sessions=list(sessions.values()),
        total=total,
        false_positives=SecretFalsePositive.objects.count(),
        masked_only=settings.WAYSWEB_SECRETS_MASKED_ONLY,
        reviewer=reviewer,
    )


class NotRevealable(LookupError):
    """The value is no longer stored (team mode keeps masked lines only, or the line is gone)."""


def stored_texts(finding: SecretFinding) -> tuple[list[str], TranscriptEntry | None]:
    """The texts the finding's value was found in, as stored now, and its transcript entry if any."""
    if finding.place == SecretFinding.Place.EVENT:
        events = WaysEvent.objects.filter(
            source_id=finding.source_id, order_offset=finding.offset, order_index=finding.index
        )
        return list(events.values_list("raw", flat=True)[:1]), None
    if finding.place != SecretFinding.Place.LINE:
        return secret_rows.document_texts(finding.place, finding.place_pk), None
    entry = entries_at([finding]).get((finding.source_id, finding.offset, finding.index))
    if entry is None:
        raise NotRevealable("the line is no longer stored")
    entry = TranscriptEntry.objects.get(pk=entry.pk)
    if finding.spill_name:
        spill = Spill.objects.filter(entry=entry, name=finding.spill_name).first()
        return [spill.text if spill else ""], entry
    return [bytes(entry.line).decode("utf-8", "surrogateescape")], entry


def finding_value(finding: SecretFinding) -> tuple[str, TranscriptEntry | None]:
    """The secret's characters, read back from where it was found (JSON escapes undone), and its entry."""
    texts, entry = stored_texts(finding)
    for text in texts:
        for span in secrets.find_secrets(text):
            if span.kind == finding.kind and span.fingerprint == finding.fingerprint:
                value = text[span.start : span.end]
                return secrets.UNESCAPE.sub(lambda m: secrets.UNESCAPED[m.group(1)], value), entry
    raise NotRevealable("the value is stored masked only (team mode), or no longer stored")


def reveal(finding_id: int, user) -> str:
    """The value of one finding, for a reviewer; the reveal audited (SecretReveal) before it is answered."""
    finding = SecretFinding.objects.get(pk=finding_id)
    value, entry = finding_value(finding)
    SecretReveal.objects.create(
        user=user,
        user_name=user.get_username(),
        session_id=finding.session_id,
        entry=entry,
        spill_name=finding.spill_name,
        kind=finding.kind,
        fingerprint=finding.fingerprint,
    )
    return value


def mark_false_positive(finding_id: int, user) -> SecretFalsePositive:
    """Remember the finding's value (kind and hash) as no secret, and unmask the text column of every
    line that holds it (what search indexes and lists show); pages unmask it as they read."""
    finding = SecretFinding.objects.get(pk=finding_id)
    key = secrets.finding_key(finding.kind, finding.fingerprint)
    with transaction.atomic():
        marked, _ = SecretFalsePositive.objects.get_or_create(
            key=key, defaults={"kind": finding.kind, "marked_by": user, "marked_by_name": user.get_username()}
        )
        allowed = secret_rows.allowed_keys()
        same = SecretFinding.objects.filter(kind=finding.kind, fingerprint=finding.fingerprint, spill_name="")
        for entry in entries_at(list(same)).values():
            entry = TranscriptEntry.objects.get(pk=entry.pk)
            records = parser.parse_line(entry.line).records
            if records:
                text = transcripts.fields_of(records[0].obj).text
                TranscriptEntry.objects.filter(pk=entry.pk).update(text=secrets.mask_text(text, allowed))
    return marked
