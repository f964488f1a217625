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

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce, Greatest

from introspect.models import Session, Turn, WaysEvent, Window
from introspect.rules.timestamps import utc_second
from ledger.derive.candidate_files import Candidate, Outcome, Writes, write_candidates
from ledger.models import KnowledgeEvent, LedgerEntry
from lib import stamps
from lib.bulk import chunked_in, insert_ignore, select_in

DECISION = re.compile(r"^\s*(?:[-*]\s*)?Decision:\s*(.+)$", re.IGNORECASE)
OPEN_THREADS = re.compile(r"^\s*(?:[-*]\s*)?Open threads?:\s*(.+)$", re.IGNORECASE)
NEAR_MISS_REPEAT = 2


def sentence(text: str, limit: int = 180, *, capital: bool = True) -> str:
    """The first sentence of `text`, capitalised for a title, cut to `limit` characters."""
    text = " ".join(text.split())
    first = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
    if capital:
        first = first[:1].upper() + first[1:]  # a title is an assertion, written as a sentence
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


@dataclass
class Evidence:
    """What the table reads for a set of sessions, fetched for all of them at once.

    A handful of queries whatever the number of sessions (each IN list chunked under SQLite's
    bound-parameter limit), grouped here per session; every window is then cut out in memory.
    """

    starts: dict[int, list[datetime | None]] = field(default_factory=dict)
    entries: dict[str, list[LedgerEntry]] = field(default_factory=dict)
    ways: dict[int, list[tuple[str, str, float | None, datetime]]] = field(default_factory=dict)
    turns: dict[int, list[tuple[datetime, int]]] = field(default_factory=dict)  # (ts, epoch), no order

    @classmethod
    def read(cls, sessions: list[Session]) -> Evidence:
        evidence = cls()
        pks = {session.pk for session in sessions}
        windows = Window.objects.order_by("session_id", "number").values_list("session_id", "start_ts")
        for session_id, start_ts in rows_for(windows, "session_id", pks, first):
            evidence.starts.setdefault(session_id, []).append(utc_second(start_ts))
        entries = (
            LedgerEntry.objects.filter(quarantine_reason="", present=True)
            .order_by("epoch", "ts", "rel_path")
            .only("session_key", "project_slug", "epoch", "ts", "phase", "body")
        )
        for entry in rows_for(
            entries, "session_key", {session.sid for session in sessions}, by_key, ranged=False
        ):
            evidence.entries.setdefault(entry.session_key, []).append(entry)
        # Read through the event index (there is none on session and event): one scan per query.
        ways = (
            WaysEvent.objects.filter(
                Q(event="way_nearmiss") | Q(event="way_judged", verdict="block"), ts__isnull=False
            )
            .exclude(way=None)
            .values_list("session_id", "event", "way", "prob_en", stamps.column("ts"))
        )
        # Stamps parsed here, not by Django's converter (lib/stamps.py): a long history's turns
        # are read by the hundred thousand.
        parse = stamps.reader() or (lambda ts: ts)
        for session_id, event, way, prob_en, ts in rows_for(ways, "session_id", pks, first):
            evidence.ways.setdefault(session_id, []).append((event, way, prob_en, parse(ts)))
        # By a plain cursor, in no order (turn_refs takes the least and greatest epoch): the ORM's
        # rows and its stamp converter were most of the read, and a session's turns by the hundred.
        # Only the sessions a way-tuning candidate can come from (`tuned`): the others' turns are
        # never named, and they were half the large tier's 416,506 turns.
        tuned = tuned_sessions(evidence.ways)
        turns = select_in(Turn, ("session_id", "ts", "epoch"), "session_id", tuned, stored=("ts",))
        for session_id, ts, epoch in turns:
            evidence.turns.setdefault(session_id, []).append((parse(ts), epoch))
        return evidence

    def window_bounds(self, session: Session, window: int) -> tuple[datetime | None, datetime | None]:
        starts = self.starts.get(session.pk, [])
        begin = starts[window - 1] if 0 < window <= len(starts) else None
        end = starts[window] if window < len(starts) else None
        return begin, end


# More values than one IN list holds (bulk.chunked_in's chunks): one query over their range instead,
# the rows of values not asked for dropped here. A chunk's query of the near-misses and verdicts
# scanned all of them through the event index, once per 500 sessions (13 times for the large tier's
# 6,462); a following pass derives a handful of sessions, still asked for by IN.
ONE_SCAN_OVER = 500


def rows_for(
    queryset, field: str, values: set, key: Callable[[Any], Any], *, ranged: bool = True
) -> Iterable:
    """`queryset`'s rows whose `field` (read from a row by `key`) is one of `values`: by IN lists for
    a few values, else in one scan (`ONE_SCAN_OVER`), over the values' range when `ranged` (ids; not
    for text, which a PostgreSQL collation may order otherwise than Python). Each value's rows come
    in the queryset's order either way."""
    if len(values) <= ONE_SCAN_OVER:
        return chunked_in(queryset, field, values)
    if ranged:
        # gte and lte, not range: a foreign key has no range lookup.
        queryset = queryset.filter(**{f"{field}__gte": min(values), f"{field}__lte": max(values)})
    return [row for row in queryset if key(row) in values]


def tuned_sessions(ways: dict[int, list[tuple[str, str, float | None, datetime]]]) -> set[int]:
    """The sessions whose episodes can hold a way-tuning candidate (`way_tuning`): a way the judge
    blocked, or one that nearly fired NEAR_MISS_REPEAT times in the whole session (an episode holds
    no more near-misses than its session)."""
    tuned = set()
    for session_id, rows in ways.items():
        misses = Counter(way for event, way, _, _ in rows if event == "way_nearmiss")
        blocked = misses.total() < len(rows)  # a row that is no near-miss is a verdict that blocked
        if blocked or any(count >= NEAR_MISS_REPEAT for count in misses.values()):
            tuned.add(session_id)
    return tuned


def first(row: tuple) -> Any:
    return row[0]


def by_key(entry: LedgerEntry) -> str:
    return entry.session_key


def in_window(ts: datetime | None, begin: datetime | None, end: datetime | None) -> bool:
    """Whether `ts` falls in [begin, end); an open bound is unbounded, no timestamp is outside."""
    return ts is not None and (begin is None or ts >= begin) and (end is None or ts < end)


def candidates_for(session: Session, window: int, evidence: Evidence) -> list[Candidate]:
    """Every candidate the episode (a session's compaction window) supports, in a stable order."""
    begin, end = evidence.window_bounds(session, window)
    found: list[Candidate] = []
    session_ref = f"claude-session:{session.sid}"
    entries = [
        e
        for e in evidence.entries.get(session.sid, [])
        if in_window(e.ts, begin, end) or (e.ts is None and window == 1)
    ]
    for entry in entries:
        refs = (
            session_ref,
            f"ledger:{entry.project_slug}/e{entry.epoch if entry.epoch is not None else '?'}",
        )
        day = entry.ts.date().isoformat() if entry.ts else ""
        where = f"{entry.label} ({entry.phase or 'no phase'}) of session {session.sid[:8]}"
        for line in entry.body.splitlines():
            if match := DECISION.match(line):
                found.append(
                    Candidate(
                        "convention",
                        "decided",
                        sentence(match.group(1)),
                        f"Recorded as a decision in {where}.",
                        day,
                        "decision",
                        refs,
                    )
                )
            elif match := OPEN_THREADS.match(line):
                found.append(
                    Candidate(
                        "memory",
                        "inferred",
                        f"Still open: {sentence(match.group(1), capital=False)}",
                        f"Left open in {where}; carry it into the next session.",
                        day,
                        "question",
                        refs,
                    )
                )
        if entry.phase == "handoff" and entry.body.strip():
            found.append(
                Candidate(
                    "memory",
                    "observed",
                    sentence(entry.body),
                    f"The handoff written before a compaction in {where}.",
                    day,
                    "handoff",
                    refs,
                    body=entry.body.strip(),
                )
            )
    found += way_tuning(session, window, begin, end, session_ref, evidence)
    return found


def way_tuning(
    session: Session, window: int, begin, end, session_ref: str, evidence: Evidence
) -> list[Candidate]:
    """Ways that nearly fired again and again, or that the judge blocked, in the episode."""
    misses: dict[str, list[tuple[float | None, datetime]]] = {}
    blocks: dict[str, list[tuple[float | None, datetime]]] = {}
    for event, way, prob_en, ts in evidence.ways.get(session.pk, []):
        if in_window(ts, begin, end):
            (misses if event == "way_nearmiss" else blocks).setdefault(way, []).append((prob_en, ts))
    turns = turn_refs(session, evidence.turns.get(session.pk, []), begin, end) if misses or blocks else ()
    found = []
    for way, rows in sorted(misses.items()):
        if len(rows) < NEAR_MISS_REPEAT:
            continue
        probabilities = [prob for prob, _ in rows if prob is not None]
        best = f" (best probability {max(probabilities):.3f})" if probabilities else ""
        found.append(
            Candidate(
                "lesson",
                "observed",
                f"Way {way} nearly fired {len(rows)} times in one episode{best}",
                f"Repeated near-misses in window {window} of session {session.sid[:8]}: its vocabulary may "
                "miss how this project talks about the topic.",
                max(ts for _, ts in rows).date().isoformat(),
                "way-tuning",
                (session_ref, f"way:{way}", *turns),
            )
        )
    for way, rows in sorted(blocks.items()):
        n = len(rows)
        found.append(
            Candidate(
                "lesson",
                "observed",
                f"The judge blocked way {way} {n} time{'s' if n > 1 else ''} in one episode",
                f"Judge blocks in window {window} of session {session.sid[:8]}: the way's triggers "
                "match prompts the judge finds irrelevant.",
                max(ts for _, ts in rows).date().isoformat(),
                "way-tuning",
                (session_ref, f"way:{way}", *turns),
            )
        )
    return found


def turn_refs(session: Session, turns: list[tuple[datetime, int]], begin, end) -> tuple[str, ...]:
    """The first and last turn of the window (by epoch); `turns` is the session's (ts, epoch)."""
    epochs = [epoch for ts, epoch in turns if in_window(ts, begin, end)]
    return (f"turn:{session.sid}#{min(epochs)}-{max(epochs)}",) if epochs else ()


def boundaries(session: Session) -> list[tuple[int, str]]:
    """(window, trigger) pairs at which the session's episodes ended: each compaction, and the end."""
    return boundaries_of(session.window_count, session.is_live, session.transcript_id)


def boundaries_of(window_count: int, live: bool, transcript_id: int | None) -> list[tuple[int, str]]:
    """`boundaries` of a session known by these three of its columns."""
    out = [(window, KnowledgeEvent.Trigger.COMPACT) for window in range(1, window_count)]
    if not live and (window_count or transcript_id):
        out.append((max(window_count, 1), KnowledgeEvent.Trigger.END))
    return out


def with_due_boundaries(sessions: QuerySet[Session], done: set[tuple[int, int, str]]) -> list[Session]:
    """Those of `sessions` with a boundary not derived yet, found from three columns of each: an
    idle pass built every one of thousands of sessions as a model instance to find none due."""
    low, high = Session.live_since()
    columns = sessions.values_list("pk", "window_count", "last_event_at", "transcript_id")
    due = [
        pk
        for pk, window_count, last, transcript_id in columns
        if any(
            (pk, window, trigger) not in done
            for window, trigger in boundaries_of(
                window_count, last is not None and low <= last <= high, transcript_id
            )
        )
    ]
    return list(chunked_in(sessions, "pk", due))


def any_due(sessions: QuerySet[Session]) -> bool:
    """Whether any of `sessions` has a boundary (`boundaries_of`) with no event but a failure, asked
    of the database in one query: an idle pass read the event of every boundary and three columns of
    every session to find none due (0.06-0.27 s of a no-op ingest on the large tier). Counted per
    session from the unique index on (session, window, trigger, kind): its compactions' windows 1 to
    window_count - 1 that have an event, and whether its end has one, once it is no longer live."""
    low, high = Session.live_since()
    done = KnowledgeEvent.objects.filter(session=OuterRef("pk")).exclude(kind=KnowledgeEvent.Kind.FAILED)
    compactions = (
        done.filter(
            trigger=KnowledgeEvent.Trigger.COMPACT, window__gte=1, window__lt=OuterRef("window_count")
        )
        .order_by()
        .values("session")
        .annotate(windows=Count("window", distinct=True))
        .values("windows")
    )
    ends = done.filter(
        trigger=KnowledgeEvent.Trigger.END, window=Greatest(OuterRef("window_count"), Value(1))
    )
    due = sessions.annotate(compacted=Coalesce(Subquery(compactions), 0)).filter(
        Q(window_count__gt=1, compacted__lt=F("window_count") - 1)
        | (
            (Q(window_count__gt=0) | Q(transcript__isnull=False))
            & ~Q(last_event_at__range=(low, high))
            & ~Exists(ends)
        )
    )
    return due.exists()


def switched_on(trigger: str) -> bool:
    """Whether the settings derive at this trigger (WAYSWEB_DERIVE_ON_END / _ON_COMPACT)."""
    switches = {
        KnowledgeEvent.Trigger.END: settings.WAYSWEB_DERIVE_ON_END,
        KnowledgeEvent.Trigger.COMPACT: settings.WAYSWEB_DERIVE_ON_COMPACT,
    }
    return switches.get(trigger, True)


def sessions_with_evidence(pks: list[int]) -> set[int]:
    """Those of the sessions that have anything the table reads: ledger entries, near-misses or judge
    verdicts.

    Asked per session (EXISTS), so that each answer comes from the session's own index entries: a
    plain `session_id IN (…)` lets SQLite scan every near-miss and verdict through the event index.
    """
    ledger = LedgerEntry.objects.filter(session=OuterRef("pk"), present=True, quarantine_reason="")
    ways = WaysEvent.objects.filter(session=OuterRef("pk"), event__in=("way_nearmiss", "way_judged"))
    return set(
        chunked_in(
            Session.objects.filter(Exists(ledger) | Exists(ways)).values_list("pk", flat=True), "pk", pks
        )
    )


def by_sid(session: Session) -> str:
    return session.sid


def derive_due(directory: Path, sessions=None, written: dict | None = None) -> list[KnowledgeEvent]:
    """Every boundary not derived yet (a failed one is tried again on the next pass); each result, or
    the failure, is a visible event.

    Set-based: the evidence of every due session is read up front in a few queries (`Evidence`), the
    candidates are built in memory boundary by boundary, their files written together (`Writes`), and
    the events written in bulk at the end. A session with no evidence at all derives nothing; its
    boundaries are recorded as derived with nothing written. `written`, when given, gets each file
    written with its bytes, (size, mtime_ns) and front matter (`Writes.written`), for the knowledge
    import (ledger/importer/knowledge.py `Written`).
    """
    if sessions is None:
        sessions = Session.objects.all()
    if isinstance(sessions, QuerySet) and not any_due(sessions):
        return []
    done, failed = set(), {}
    for session_id, window, trigger, kind, pk in KnowledgeEvent.objects.values_list(
        "session_id", "window", "trigger", "kind", "pk"
    ):
        if kind == KnowledgeEvent.Kind.FAILED:
            failed[session_id, window, trigger] = pk
        else:
            done.add((session_id, window, trigger))
    if isinstance(sessions, QuerySet):
        sessions = with_due_boundaries(sessions, done)
    due = [
        (session, window, trigger)
        # In session-id order: the events are written in this order, and a page lists those of one
        # instant by it; the order the rows were imported in differs from one import to the next.
        for session in sorted(sessions, key=by_sid)
        for window, trigger in boundaries(session)
        if (session.pk, window, trigger) not in done
    ]
    wanted = {session.pk: session for session, _, trigger in due if switched_on(trigger)}
    with_evidence = sessions_with_evidence(list(wanted))
    evidence = Evidence.read([session for pk, session in wanted.items() if pk in with_evidence])
    events, empty, cleared = [], [], []
    writes = Writes(directory)
    for session, window, trigger in due:
        if not switched_on(trigger):
            events.append(
                KnowledgeEvent(
                    session=session,
                    window=window,
                    trigger=trigger,
                    kind=KnowledgeEvent.Kind.SKIPPED,
                    detail=f"WAYSWEB_DERIVE_ON_{trigger.upper()} is off",
                )
            )
            continue
        if session.pk not in with_evidence:
            empty.append(
                KnowledgeEvent(
                    session=session,
                    window=window,
                    trigger=trigger,
                    kind=KnowledgeEvent.Kind.DERIVED,
                    detail="no evidence in this episode",
                )
            )
            continue
        try:
            outcome = write_candidates(directory, candidates_for(session, window, evidence), writes)
        except OSError as exc:  # the directory itself could not be made
            outcome = Outcome(error=exc)
        events.append((session, window, trigger, outcome))
    writes.flush()
    if written is not None:
        written.update(writes.written)
    events = [
        event if isinstance(event, KnowledgeEvent) else outcome_event(*event, failed, cleared, directory)
        for event in events
    ]
    if not events and not empty:
        return []
    with transaction.atomic():
        insert_ignore([event for event in events if event.pk is None] + empty)
        KnowledgeEvent.objects.bulk_update(
            [event for event in events if event.pk is not None], ["detail"], batch_size=500
        )
        for start in range(0, len(cleared), 500):
            KnowledgeEvent.objects.filter(pk__in=cleared[start : start + 500]).delete()
    return events + empty


def outcome_event(
    session: Session,
    window: int,
    trigger: str,
    outcome: Outcome,
    failed: dict[tuple[int, int, str], int],
    cleared: list[int],
    directory: Path,
) -> KnowledgeEvent:
    """The event of a boundary whose candidates were written (or failed to be)."""
    key = (session.pk, window, trigger)
    if outcome.error is not None:  # updates the boundary's earlier failure, if any: it is the same one
        exc = outcome.error
        return KnowledgeEvent(
            pk=failed.get(key),
            session=session,
            window=window,
            trigger=trigger,
            kind=KnowledgeEvent.Kind.FAILED,
            detail=f"knowledge: {exc.strerror or exc} ({directory})",
        )
    if key in failed:
        cleared.append(failed[key])
    return KnowledgeEvent(
        session=session,
        window=window,
        trigger=trigger,
        kind=KnowledgeEvent.Kind.DERIVED,
        written=len(outcome.written),
        unchanged=len(outcome.unchanged),
        skipped=len(outcome.skipped),
        detail=" ".join(outcome.written + outcome.skipped),
    )
