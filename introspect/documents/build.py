"""The introspection documents — dump, list, fires — built from the database as agent-ways builds them.

`manage.py introspect` prints these and `/api/…` serves them (introspection.md §2, §10). Turns are
recomputed from the session's events with the same pure functions the rebuild uses, so the export
never depends on when derived rows were last refreshed; criteria come from the way files on disk
now, as upstream reads them (introspection.md §3.1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from django.conf import settings

from introspect.derive import session_inputs
from introspect.documents import replay
from introspect.documents import schema as m
from introspect.models import LoggedField, Session, SourceFile, TranscriptEntry, Way, WaysEvent
from introspect.rules import event_fields, join
from introspect.rules import turns as turn_model

NO_EVENTS = "no events recorded yet"


@dataclass(frozen=True)
class Resolved:
    criteria: dict[str, str]
    path: str | None


def way_roots(project: str) -> list[str]:
    """The roots a session's way ids resolve in, highest precedence first (formats-agent-ways.md §10.1)."""
    locs = settings.WAYSWEB_LOCATIONS
    roots = [str(Path(project) / ".claude" / "ways")] if project and Path(project).is_absolute() else []
    return [*roots, str(locs.user_ways), str(locs.core_ways)]


def catalog(project: str) -> dict[str, Way]:
    """The way catalog as the last import pass found it on disk, first root first: requests read
    the catalog, never the way roots themselves (a root is scanned once per pass)."""
    roots = way_roots(project)
    rank = {root: n for n, root in enumerate(roots)}
    table: dict[str, Way] = {}
    rows = Way.objects.filter(root__in=roots, present=True).only(
        "root", "way_id", "rel_path", "criteria", "frontmatter"
    )
    for way in sorted(rows, key=lambda way: rank[way.root]):
        table.setdefault(way.way_id, way)
    return table


def way_resolver(project: str) -> Callable[[str], Resolved]:
    """Today's criteria and file for each way id: project root, then user, then core."""
    # The root joined with the file's path as found: a symlinked root stays unresolved.
    table = {
        way_id: Resolved(way.criteria, f"{way.root}/{way.rel_path}")
        for way_id, way in catalog(project).items()
    }
    return lambda way_id: table.get(way_id, Resolved({}, None))


def session_in_scope(session_id: str | None) -> Session | None:
    """The named session, or the one with the newest origin (upstream most_recent_session)."""
    if session_id:
        return Session.objects.filter(sid=session_id).first()
    return Session.objects.filter(origin=Session.Origin.EVENTS).order_by("-origin_ts", "-pk").first()


def dump_document(session_id: str | None, *, matched: bool) -> dict:
    """`ways session dump [--matched]` (introspection.md §2)."""
    if not WaysEvent.objects.exists():
        return m.dump(m.Error(error=NO_EVENTS))
    session = session_in_scope(session_id)
    if session is None and not session_id:
        return m.dump(m.Error(error="no sessions found in scope"))
    sid = session.sid if session else session_id
    events = session_inputs.events_in_order(session) if session else []
    starts = [event for event in events if event.event == "session_start"]
    project = (starts[0].project or "") if starts else ""
    entries = session_inputs.trunk_entries(session_inputs.locate_trunk(sid, project))
    built = turn_model.build_turns(events)
    prompts = join.PromptIndex(join.prompt_turns(entries))
    reason = join.no_match_reason(entries, list(prompts.ordered))
    joins = [join.join_turn(turn.ts, prompts, no_match_reason=reason) for turn in built]
    summary = turn_model.summarise(built, keyed_turns=sum(1 for j in joins if j.confidence == "keyed"))
    resolve = way_resolver(project)
    turns = []
    for turn, joined in zip(built, joins, strict=True):
        rows = [row for row in turn.rows if matched or row.suppressed != "judge"]
        if rows:
            turns.append(turn_document(turn, joined, rows, resolve))
    window, _ = join.window_for(join.last_model(entries))
    return m.dump(
        m.SessionIntrospection(
            id=sid,
            project=project,
            window_k=window // 1000,
            summary=m.IntrospectionSummary(
                turns=len(turns),
                distinct_ways=summary.distinct_ways,
                total_fires=summary.total_fires,
                redisclosures=summary.redisclosures or None,
                gated_candidates=summary.gated_candidates or None,
                suppressed_candidates=summary.suppressed_candidates or None,
                judge_blocked=summary.judge_blocked or None,
                keyed_turns=summary.keyed_turns,
            ),
            turns=turns,
        )
    )


def turn_document(
    turn: turn_model.TurnData,
    joined: join.Join,
    rows: list[turn_model.Row],
    resolve: Callable[[str], Resolved],
) -> m.Turn:
    return m.Turn(
        epoch=turn.epoch,
        token_position=turn.token_position,
        ts=turn.ts_raw,
        transcript_uuid=joined.user_uuid or None,
        join_confidence=joined.confidence,
        fired_ways=[fired_way(row, resolve(row.way_id)) for row in rows],
    )


def fired_way(row: turn_model.Row, resolved: Resolved) -> m.FiredWay:
    return m.FiredWay(
        way_id=row.way_id,
        trigger_channel=row.trigger_channel,
        gated=row.gated or None,
        suppressed=row.suppressed or None,
        redisclosed=row.redisclosed or None,
        fire_score=row.fire_score,
        way_path=resolved.path,
        criteria=resolved.criteria,
        match_detail=m.MatchDetail(matched_span=row.matched_span)
        if isinstance(row.matched_span, str)
        else None,
        judge=m.JudgeVerdict(**row.judge) if row.judge else None,
    )


def list_document(*, project: str | None = None, with_transcripts: bool = False) -> dict:
    """`ways session list --json` (introspection.md §10.1); waysweb adds `usage` and `transcript`."""
    origins = {}
    for session_id, ts_raw in (
        WaysEvent.objects.filter(event="session_start", session__isnull=False)
        .order_by(*session_inputs.EVENT_ORDER)
        .values_list("session_id", "ts_raw")
    ):
        origins.setdefault(session_id, ts_raw or "")
    kinds = [Session.Origin.EVENTS] + ([Session.Origin.TRANSCRIPT] if with_transcripts else [])
    sessions = {s.pk: s for s in Session.objects.filter(origin__in=kinds)}
    ordered = [sessions[pk] for pk in origins if pk in sessions]
    ordered += sorted(
        (s for s in sessions.values() if s.pk not in origins),
        key=lambda s: (s.started_at is None, s.started_at, s.pk),
    )
    if project is not None:
        wanted = project.rstrip("/")
        ordered = [s for s in ordered if s.recorded_project.rstrip("/") == wanted]
    entries = [list_entry(s, origins.get(s.pk)) for s in ordered]
    entries.sort(key=lambda entry: entry.ts, reverse=True)  # stable: equal ts keep event order
    return m.dump(m.SessionList(scope=project, count=len(entries), sessions=entries))


def list_entry(session: Session, origin_ts: str | None) -> m.ListEntry:
    first_entry_ts = ""
    if origin_ts is None:
        first_entry_ts = (
            session.entries.exclude(timestamp_raw=None)
            .order_by("ts")
            .values_list("timestamp_raw", flat=True)
            .first()
            or ""
        )
    return m.ListEntry(
        id=session.sid,
        ts=origin_ts if origin_ts is not None else first_entry_ts,
        project=session.recorded_project
        if origin_ts is not None
        else (session.project.path if session.project else ""),
        event_count=session.event_count,
        way_fires=session.way_fires,
        duration_secs=session.duration_secs,
        usage=m.Usage(
            input_tokens=session.input_tokens,
            output_tokens=session.output_tokens,
            cache_creation_input_tokens=session.cache_creation_input_tokens,
            cache_read_input_tokens=session.cache_read_input_tokens,
        ),
        transcript=session.transcript_status,
    )


def fires_document(
    session_id: str | None, *, matched: bool, max_score: float | None = None, limit: int | None = None
) -> dict:
    """`ways session fires --json` (introspection.md §10.2): semantic fires, lowest score first."""
    session = session_in_scope(session_id)
    if session is None and not session_id:
        return m.dump(m.Fires(session=None, total=0, fires=[], judge_blocks=[] if matched else None))
    events = session_inputs.events_in_order(session) if session else []
    fires = []
    for event in turn_model.expand(events):
        if event.event not in ("way_fired", "way_redisclosed") or not (event.trigger or "").startswith(
            "semantic:"
        ):
            continue
        if event.fire_score is None:
            continue
        fires.append(
            m.SemanticFire(
                score=event.fire_score,
                way=event.way or "?",
                surface=event.surface if event.surface is not None else "—",
                redisclosed=event.event == "way_redisclosed",
            )
        )
    fires.sort(key=lambda fire: fire.score)
    if max_score is not None:
        fires = [fire for fire in fires if fire.score <= max_score]
    total = len(fires)
    if limit is not None:
        fires = fires[:limit]
    blocks = None
    if matched:
        blocks = [
            m.JudgeBlock(way=event.way, ts=event.ts_raw or "", **turn_model.judge_fields(event))
            for event in turn_model.expand(events)
            if event.event == "way_judged"
            and event.verdict == "block"
            and event.way
            and event.p_yes is not None
        ]
    return m.dump(
        m.Fires(session=session.sid if session else session_id, total=total, fires=fires, judge_blocks=blocks)
    )


def replay_document(session_id: str | None, *, matched: bool) -> dict:
    """`ways session replay --json` (introspection.md §9)."""
    found = replay_inputs(session_id)
    if "error" in found:
        return found
    return replay.build_replay(**found, matched=matched)


def replay_window_document(session_id: str | None, *, matched: bool, window: int) -> dict:
    """One window's frames of the replay document, with every window's frame count (replay.py)."""
    found = replay_inputs(session_id)
    if "error" in found:
        return found
    del found["project"]
    return replay.build_replay_window(**found, matched=matched, window=window)


def replay_inputs(session_id: str | None) -> dict:
    """What the replay builders read from the database, or the error document (§9 "Errors")."""
    if not WaysEvent.objects.exists():
        return replay.replay_error("no_events")
    session = session_in_scope(session_id)
    if session is None and not session_id:
        return replay.replay_error("no_sessions")
    events = replay_events(session) if session else []
    if not events:
        return replay.replay_error("no_session_events", session_id)
    starts = [event for event in events if event.event == "session_start"]
    project = (starts[0].project or "") if starts else None
    entries = assistant_lines(session_inputs.locate_trunk(session.sid, project or ""))
    window_k = join.window_for(join.last_model(entries))[0] // 1000
    way_ids = {event.way for event in events if event.way}
    return {
        "session_id": session.sid,
        "project": project,
        "events": events,
        "token_timeline": join.token_timeline(entries),
        "refire_k": refire_thresholds(way_ids, project or "", window_k),
        "context_window_k": window_k,
        "agent_types": dict(session.subagents.values_list("agent_id", "agent_type")),
    }


@dataclass(frozen=True)
class ReplayEvent:
    """The columns of an event that the replay reads (replay.py `Item`), nothing else."""

    event: str | None
    ts_raw: str | None
    way: str | None
    trigger: str | None
    reason: str | None
    verdict: str | None
    project: str | None
    raw: str
    occurrences: int

    @cached_property
    def line_object(self) -> dict | None:
        """The raw line parsed once, for the fields the event's row does not hold (LoggedField)."""
        return event_fields.line_object(self.raw)

    # Read from the raw line as WaysEvent reads them (not dataclass fields: no annotation).
    agent_id = LoggedField()
    check_id = LoggedField("check")


def replay_events(session: Session) -> list[ReplayEvent]:
    """The session's events in event order (`session_inputs.events_in_order`), as plain tuples."""
    rows = (
        WaysEvent.objects.filter(session=session)
        .order_by(*session_inputs.EVENT_ORDER)
        .values_list(*ReplayEvent.__dataclass_fields__)
    )
    return [ReplayEvent(*row) for row in rows]


@dataclass(frozen=True)
class AssistantLine:
    """The columns of a transcript line that the replay reads (its model and its usage)."""

    type: str
    model: str | None
    timestamp_raw: str | None
    has_usage: bool
    input_tokens: int | None
    cache_read_input_tokens: int | None
    cache_creation_input_tokens: int | None


def assistant_lines(trunk: SourceFile | None) -> list[AssistantLine]:
    """The trunk's assistant lines in file order: all that `last_model` and `token_timeline` read
    (they skip every other line), as plain tuples rather than 25,000 model instances."""
    if trunk is None:
        return []
    rows = (
        TranscriptEntry.objects.filter(source=trunk, type="assistant")
        .order_by("offset", "index")
        .values_list(*(name for name in AssistantLine.__dataclass_fields__))
    )
    return [AssistantLine(*row) for row in rows]


# agent-ways config defaults (ADR-126 refire presets): a fraction of the context window.
REFIRE_PRESETS = {"once": 1.0, "rare": 0.4, "normal": 0.15, "frequent": 0.05}


def refire_thresholds(way_ids: set[str], project: str, window_k: int) -> dict[str, int]:
    """way_refire_threshold_k: today's `refire:` as an exponential half-life, crossed at half-life + 1."""
    found: dict[str, int] = {}
    for way_id, way in catalog(project).items():
        if way_id in way_ids:
            threshold = refire_k(way.frontmatter.get("refire"), window_k * 1000)
            if threshold is not None:
                found[way_id] = threshold
    return found


def refire_k(spec: object, window: int) -> int | None:
    if isinstance(spec, bool):
        return None
    fraction = (
        spec if isinstance(spec, (int, float)) else REFIRE_PRESETS.get(str(spec).strip()) if spec else None
    )
    if fraction is None:
        try:
            fraction = float(str(spec))
        except (TypeError, ValueError):
            return None
    half_life = int(fraction * window)
    return (half_life + 1) // 1000
