"""Derived rows per session — windows, turns, turn rows, list counters — rebuilt from its events.

Rebuilding a whole session from its events (instead of patching counters) keeps the derived rows
a pure function of the imported lines, whatever order the sources were read in.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import batched
from pathlib import PurePosixPath

from django.db import transaction
from django.db.models import F

from introspect import turns as turn_model
from introspect.models import Project, Session, Turn, TurnWay, WaysEvent, Window

# Bump when the derived rows change meaning or shape: the next import pass rebuilds every session.
DERIVED_VERSION = 1
EVENT_ORDER = (F("ts_raw").asc(nulls_first=True), "order_rank", "order_generation", "order_offset", "order_index")


def events_in_order(session: Session) -> list[WaysEvent]:
    """The session's events in event order (formats-agent-ways.md §2.3 rule 4)."""
    return list(WaysEvent.objects.filter(session=session).order_by(*EVENT_ORDER))


def project_for(path: str) -> Project | None:
    if not path:
        return None
    name = PurePosixPath(path.rstrip("/") or "/").name or path
    project, _ = Project.objects.get_or_create(path=path, defaults={"name": name})
    return project


def rebuild_sessions(sids: Iterable[str]) -> int:
    """Rebuild every named session, and any built by an older version; returns how many."""
    count = 0
    # Chunks keep the IN list under SQLite's bound-parameter limit however many sessions a pass touched.
    for chunk in batched(sorted(set(sids)), 500):
        for session in Session.objects.filter(sid__in=chunk):
            rebuild_session(session)
            count += 1
    for session in Session.objects.filter(derived_version__lt=DERIVED_VERSION):
        rebuild_session(session)
        count += 1
    return count


def rebuild_session(session: Session) -> None:
    events = events_in_order(session)
    starts = [event for event in events if event.event == "session_start"]
    origin = starts[0] if starts else None
    first_project = next((event.project for event in events if event.project), "")
    built = turn_model.build_turns(events)
    summary = turn_model.summarise(built, keyed_turns=0)
    occurrences = [max(event.occurrences, 1) for event in events]
    last = events[-1] if events else None

    session.origin = Session.Origin.EVENTS if origin else Session.Origin.INFERRED
    session.recorded_project = (origin.project or "") if origin else ""
    session.origin_ts = (origin.ts_raw or "") if origin else ""
    valid_ts = [event.ts for event in events if event.ts is not None]
    session.started_at = (origin.ts if origin and origin.ts else (valid_ts[0] if valid_ts else None))
    session.last_event_at = max(valid_ts) if valid_ts else None
    session.duration_secs = duration(origin, last)
    session.event_count = sum(occurrences)
    session.way_fires = sum(n for event, n in zip(events, occurrences, strict=True) if event.event == "way_fired")
    session.turn_count = summary.turns
    session.total_fires = summary.total_fires
    session.distinct_ways = summary.distinct_ways
    session.redisclosures = summary.redisclosures
    session.gated = summary.gated_candidates
    session.suppressed = summary.suppressed_candidates
    session.judge_blocked = summary.judge_blocked
    session.keyed_turns = summary.keyed_turns
    session.near_misses = sum(n for event, n in zip(events, occurrences, strict=True) if event.event == "way_nearmiss")
    session.window_count = len(starts)
    session.derived_version = DERIVED_VERSION
    session.models_seen = ", ".join(sorted({event.model for event in events if event.model and event.model != "unknown"}))

    with transaction.atomic():
        session.project = project_for(session.recorded_project or first_project)
        session.save()
        Window.objects.filter(session=session).delete()
        Turn.objects.filter(session=session).delete()
        Window.objects.bulk_create(
            Window(session=session, number=number, start_ts=start.ts_raw or "")
            for number, start in enumerate(starts, start=1)
        )
        window_starts = [start.ts_raw or "" for start in starts]
        turn_rows = Turn.objects.bulk_create(
            Turn(session=session, epoch=turn.epoch, window=window_of(turn.ts_raw, window_starts), ts_raw=turn.ts_raw,
                 ts=turn.ts, token_position=turn.token_position, join_confidence=Turn.Join.HEURISTIC,
                 join_reason="no transcript")
            for turn in built
        )
        TurnWay.objects.bulk_create(
            TurnWay(turn=turn_row, position=position, event=row.event, judge_event=row.judge_event,
                    way_id=row.way_id, trigger_channel=row.trigger_channel, gated=row.gated,
                    suppressed=row.suppressed, redisclosed=row.redisclosed, fire_score=row.fire_score,
                    matched_span=row.matched_span)
            for turn_row, turn in zip(turn_rows, built, strict=True)
            for position, row in enumerate(turn.rows, start=1)
        )


def window_of(ts_raw: str, starts: list[str]) -> int:
    """The compaction window a moment falls in: how many session_starts came at or before it."""
    return max(1, sum(1 for start in starts if start and start <= ts_raw))


def duration(origin: WaysEvent | None, last: WaysEvent | None) -> int:
    """list --json duration_secs: last event's second minus the origin's, floored at 0."""
    if origin is None or last is None or origin.ts is None or last.ts is None:
        return 0
    return max(0, int((last.ts - origin.ts).total_seconds()))
