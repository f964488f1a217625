"""waysweb's own knowledge deriver, run at the episode boundary (a session's end, each compaction).

Deterministic and closed, like majordomus' table (knowledge-and-records.md §5.1), over what
waysweb holds — no model, no transcript text:

| Evidence in the episode                       | class      | epistemics |
|-----------------------------------------------|------------|------------|
| a ledger line `Decision: …`                   | convention | decided    |
| a ledger line `Open threads: …`               | memory     | inferred   |
| a `handoff` ledger entry                      | memory     | observed   |
| a way with ≥ 2 near-misses                    | lesson     | observed   |
| a way the judge blocked                       | lesson     | observed   |

Ids are `ww-` + 16 hex of sha256 over the canonical evidence, so the same evidence gives the
same file byte for byte. A candidate a person promoted (it is in `curated/`) or rejected (its
status is no longer `candidate`) is skipped: a later boundary never undoes a human act.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.db.models import Count, Max

from introspect.models import Session, Turn, WaysEvent
from ledger import files
from ledger.importer import documents
from ledger.models import KnowledgeEvent, LedgerEntry

DECISION = re.compile(r"^\s*(?:[-*]\s*)?Decision:\s*(.+)$", re.I)
OPEN_THREADS = re.compile(r"^\s*(?:[-*]\s*)?Open threads?:\s*(.+)$", re.I)
NEAR_MISS_REPEAT = 2


@dataclass(frozen=True)
class Candidate:
    klass: str
    epistemics: str
    title: str
    description: str
    day: str
    tag: str
    refs: tuple[str, ...]
    body: str = ""

    @property
    def record_id(self) -> str:
        canonical = "\n".join([self.klass, self.title, *self.refs])
        return "ww-" + hashlib.sha256(canonical.encode()).hexdigest()[:16]

    def render(self) -> bytes:
        data = {
            "schema": "knowledge/v1", "id": self.record_id, "kind": "knowledge", "class": self.klass,
            "title": self.title, "description": self.description, "status": "candidate",
            "epistemics": self.epistemics, "date": self.day, "tags": ["derived", self.tag],
            "provenance": {"origin": "extracted", "derived_from": list(self.refs)},
        }
        return documents.render_knowledge(data, f"# {self.title}\n\n{self.description}\n\n{self.body}".strip())


@dataclass
class Outcome:
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def sentence(text: str, limit: int = 180, *, capital: bool = True) -> str:
    text = " ".join(text.split())
    first = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
    if capital:
        first = first[:1].upper() + first[1:]  # a title is an assertion, written as a sentence
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def window_bounds(session: Session, window: int) -> tuple[datetime | None, datetime | None]:
    starts = list(session.windows.order_by("number").values_list("start_ts", flat=True))
    from introspect.importer.parser import utc_second

    begin = utc_second(starts[window - 1]) if 0 < window <= len(starts) else None
    end = utc_second(starts[window]) if window < len(starts) else None
    return begin, end


def in_window(ts: datetime | None, begin: datetime | None, end: datetime | None) -> bool:
    return ts is not None and (begin is None or ts >= begin) and (end is None or ts < end)


def candidates_for(session: Session, window: int) -> list[Candidate]:
    """Every candidate the episode (a session's compaction window) supports, in a stable order."""
    begin, end = window_bounds(session, window)
    found: list[Candidate] = []
    session_ref = f"claude-session:{session.sid}"
    entries = [e for e in LedgerEntry.objects.filter(session_key=session.sid, quarantine_reason="", present=True)
               .order_by("epoch", "ts", "rel_path") if in_window(e.ts, begin, end) or (e.ts is None and window == 1)]
    for entry in entries:
        refs = (session_ref, f"ledger:{entry.project_slug}/e{entry.epoch if entry.epoch is not None else '?'}")
        day = entry.ts.date().isoformat() if entry.ts else ""
        where = f"{entry.label} ({entry.phase or 'no phase'}) of session {session.sid[:8]}"
        for line in entry.body.splitlines():
            if match := DECISION.match(line):
                found.append(Candidate("convention", "decided", sentence(match.group(1)),
                                       f"Recorded as a decision in {where}.", day, "decision", refs))
            elif match := OPEN_THREADS.match(line):
                found.append(Candidate("memory", "inferred", f"Still open: {sentence(match.group(1), capital=False)}",
                                       f"Left open in {where}; carry it into the next session.", day, "question",
                                       refs))
        if entry.phase == "handoff" and entry.body.strip():
            found.append(Candidate("memory", "observed", sentence(entry.body),
                                   f"The handoff written before a compaction in {where}.", day, "handoff", refs,
                                   body=entry.body.strip()))
    found += way_tuning(session, window, begin, end, session_ref)
    return found


def way_tuning(session: Session, window: int, begin, end, session_ref: str) -> list[Candidate]:
    """Ways that nearly fired again and again, or that the judge blocked, in the episode."""
    events = WaysEvent.objects.filter(session=session, ts__isnull=False)
    if begin:
        events = events.filter(ts__gte=begin)
    if end:
        events = events.filter(ts__lt=end)
    found = []
    misses = (events.filter(event="way_nearmiss").exclude(way=None).values("way")
              .annotate(n=Count("pk"), best=Max("prob_en"), last=Max("ts")).order_by("way"))
    for row in misses:
        if row["n"] < NEAR_MISS_REPEAT:
            continue
        best = f" (best probability {row['best']:.3f})" if row["best"] is not None else ""
        found.append(Candidate(
            "lesson", "observed", f"Way {row['way']} nearly fired {row['n']} times in one episode{best}",
            f"Repeated near-misses in window {window} of session {session.sid[:8]}: its vocabulary may miss "
            "how this project talks about the topic.", row["last"].date().isoformat(), "way-tuning",
            (session_ref, f"way:{row['way']}", *turn_refs(session, begin, end))))
    blocks = (events.filter(event="way_judged", verdict="block").exclude(way=None).values("way")
              .annotate(n=Count("pk"), last=Max("ts")).order_by("way"))
    for row in blocks:
        found.append(Candidate(
            "lesson", "observed", f"The judge blocked way {row['way']} {row['n']} time{'s' if row['n'] > 1 else ''} "
            "in one episode", f"Judge blocks in window {window} of session {session.sid[:8]}: the way's triggers "
            "match prompts the judge finds irrelevant.", row["last"].date().isoformat(), "way-tuning",
            (session_ref, f"way:{row['way']}", *turn_refs(session, begin, end))))
    return found


def turn_refs(session: Session, begin, end) -> tuple[str, ...]:
    turns = Turn.objects.filter(session=session)
    if begin:
        turns = turns.filter(ts__gte=begin)
    if end:
        turns = turns.filter(ts__lt=end)
    first_last = turns.order_by("epoch").values_list("epoch", flat=True)
    epochs = list(first_last)
    return (f"turn:{session.sid}#{epochs[0]}-{epochs[-1]}",) if epochs else ()


def write_candidates(directory: Path, found: list[Candidate]) -> Outcome:
    outcome = Outcome()
    for candidate in sorted({c.record_id: c for c in found}.values(), key=lambda c: c.record_id):
        curated = directory / "curated" / f"{candidate.record_id}.md"
        path = directory / "candidates" / f"{candidate.record_id}.md"
        if curated.exists():
            outcome.skipped.append(f"{candidate.record_id} (promoted)")
            continue
        data = candidate.render()
        if path.exists():
            current = path.read_bytes()
            if current == data:
                outcome.unchanged.append(candidate.record_id)
                continue
            parsed = documents.parse_knowledge(current, stem=candidate.record_id)
            if parsed.get("status") != "candidate" or b"Edited by " in current:
                # Rejected, or reworded by a person: theirs stands.
                outcome.skipped.append(f"{candidate.record_id} (decided)")
                continue
        files.write_atomic(path, data)
        outcome.written.append(candidate.record_id)
    return outcome


def derive(session: Session, *, window: int, trigger: str, directory: Path) -> KnowledgeEvent:
    """Derive one episode's candidates, once; the result (or the failure) is a visible event."""
    switch = {"end": settings.WAYSWEB_DERIVE_ON_END, "compact": settings.WAYSWEB_DERIVE_ON_COMPACT}.get(trigger, True)
    if not switch:
        event, _ = KnowledgeEvent.objects.get_or_create(
            session=session, window=window, trigger=trigger, kind=KnowledgeEvent.Kind.SKIPPED,
            defaults={"detail": f"WAYSWEB_DERIVE_ON_{trigger.upper()} is off"})
        return event
    try:
        outcome = write_candidates(directory, candidates_for(session, window))
    except OSError as exc:
        event, _ = KnowledgeEvent.objects.update_or_create(
            session=session, window=window, trigger=trigger, kind=KnowledgeEvent.Kind.FAILED,
            defaults={"detail": f"knowledge: {exc.strerror or exc} ({directory})"})
        return event
    event, _ = KnowledgeEvent.objects.update_or_create(
        session=session, window=window, trigger=trigger, kind=KnowledgeEvent.Kind.DERIVED,
        defaults={"written": len(outcome.written), "unchanged": len(outcome.unchanged),
                  "skipped": len(outcome.skipped), "detail": " ".join(outcome.written + outcome.skipped)})
    KnowledgeEvent.objects.filter(session=session, window=window, trigger=trigger,
                                  kind=KnowledgeEvent.Kind.FAILED).delete()
    return event


def boundaries(session: Session) -> list[tuple[int, str]]:
    """(window, trigger) pairs at which the session's episodes ended: each compaction, and the end."""
    out = [(window, "compact") for window in range(1, session.window_count)]
    if not session.is_live and (session.window_count or session.transcript_id):
        out.append((max(session.window_count, 1), "end"))
    return out


def sessions_with_evidence() -> set[int]:
    """Sessions that have anything the table reads: ledger entries, near-misses or judge blocks."""
    ledger = set(LedgerEntry.objects.filter(present=True, quarantine_reason="").exclude(session=None)
                 .values_list("session_id", flat=True).distinct())
    ways = set(WaysEvent.objects.filter(event__in=("way_nearmiss", "way_judged")).exclude(session=None)
               .values_list("session_id", flat=True).distinct())
    return ledger | ways


def derive_due(directory: Path, sessions=None) -> list[KnowledgeEvent]:
    """Every boundary not derived yet (a failed one is tried again on the next pass).

    A session with no evidence at all derives nothing; its boundaries are recorded as derived with
    nothing written in one statement, instead of querying each of them (a first import of thousands
    of sessions would otherwise spend minutes here).
    """
    done = set(KnowledgeEvent.objects.exclude(kind=KnowledgeEvent.Kind.FAILED)
               .values_list("session_id", "window", "trigger"))
    evidence = sessions_with_evidence()
    events, empty = [], []
    for session in sessions if sessions is not None else Session.objects.all():
        for window, trigger in boundaries(session):
            if (session.pk, window, trigger) in done:
                continue
            switch = {"end": settings.WAYSWEB_DERIVE_ON_END,
                      "compact": settings.WAYSWEB_DERIVE_ON_COMPACT}.get(trigger, True)
            if session.pk in evidence or not switch:
                events.append(derive(session, window=window, trigger=trigger, directory=directory))
            else:
                empty.append(KnowledgeEvent(session=session, window=window, trigger=trigger,
                                            kind=KnowledgeEvent.Kind.DERIVED, detail="no evidence in this episode"))
    KnowledgeEvent.objects.bulk_create(empty, ignore_conflicts=True, batch_size=500)
    return events + empty
