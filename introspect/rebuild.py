"""Derived rows per session — windows, turns, turn rows, list counters — rebuilt from its events.

Rebuilding a whole session from its events (instead of patching counters) keeps the derived rows
a pure function of the imported lines, whatever order the sources were read in.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from itertools import batched
from pathlib import Path, PurePosixPath

import orjson
from django.db import transaction
from django.db.models import F, Max

from introspect import extend, join, spills
from introspect import turns as turn_model
from introspect.models import (
    Project,
    Session,
    SourceFile,
    Subagent,
    TranscriptEntry,
    Turn,
    TurnWay,
    WaysEvent,
    Window,
)
from lib import bulk, fit, safefs

# Bump when the derived rows change meaning or shape: the next import pass rebuilds every session.
DERIVED_VERSION = 3
EVENT_ORDER = (F("ts_raw").asc(nulls_first=True), "order_rank", "order_generation", "order_offset", "order_index")


def events_in_order(session: Session) -> list[WaysEvent]:
    """The session's events in event order (formats-agent-ways.md §2.3 rule 4)."""
    return list(WaysEvent.objects.filter(session=session).order_by(*EVENT_ORDER))


def project_for(path: str) -> Project | None:
    """The project a session names; None for none, or for a path no file system has (longer than
    an index key may be: the events keep it as written)."""
    if not path or len(path.encode("utf-8", "surrogatepass")) > safefs.MAX_PATH_BYTES:
        return None
    name = PurePosixPath(path.rstrip("/") or "/").name or path
    project, _ = Project.objects.get_or_create(path=path, defaults={"name": fit.cut(name, Project, "name")})
    return project


def rebuild_sessions(sids: Iterable[str]) -> int:
    """Bring every named session up to date, and any built by an older version; returns how many.

    A session that only grew at its end is extended (introspect/extend.py); any other is rebuilt whole.
    """
    count = 0
    # Chunks keep the IN list under SQLite's bound-parameter limit however many sessions a pass touched.
    for chunk in batched(sorted(set(sids)), 500):
        for session in Session.objects.filter(sid__in=chunk):
            if not extend.extend_session(session):
                rebuild_session(session)
            count += 1
    for session in Session.objects.filter(derived_version__lt=DERIVED_VERSION):
        rebuild_session(session)
        count += 1
    return count


def locate_trunk(sid: str, project: str) -> SourceFile | None:
    """introspection.md §4.1: the project's slug folder first, else the first folder holding the file."""
    if not sid or "/" in sid or "\\" in sid or sid == "..":
        return None
    candidates = {}
    for row in SourceFile.objects.filter(kind=SourceFile.Kind.TRANSCRIPT, session_key=sid).order_by("generation"):
        candidates[row.rel_path] = row  # the newest generation of each path
    if not candidates:
        return None
    if project:
        slug = join.project_slug(project)
        wanted = f"{slug}/{sid}.jsonl"
        if wanted in candidates:
            return candidates[wanted]
        if len(slug) > 200:
            prefixed = [path for path in candidates if path.startswith(slug[:200] + "-")]
            if len(prefixed) == 1:
                return candidates[prefixed[0]]
    first = min(candidates, key=lambda path: path.split("/")[0])
    return candidates[first]


def trunk_entries(trunk: SourceFile | None) -> list[TranscriptEntry]:
    if trunk is None:
        return []
    return list(TranscriptEntry.objects.filter(source=trunk).order_by("offset", "index").defer("raw", "cwd", "flags"))


def session_usage(session: Session) -> dict[str, int]:
    """Token totals over the session's files, de-duplicated by message.id + requestId as ccusage does.

    ccusage 17.2.1 keeps the FIRST usage seen for a key (files read oldest first) and never merges
    lines lacking either id; we match it so totals agree with the tool people already trust.
    """
    totals = dict.fromkeys(USAGE_FIELDS, 0)
    rows = (TranscriptEntry.objects.filter(session=session)
            .exclude(input_tokens=None, output_tokens=None, cache_creation_input_tokens=None,
                     cache_read_input_tokens=None)
            .values_list("source_id", "offset", "index", "ts", "message_id", "request_id", *USAGE_FIELDS))
    first_seen: dict[int, object] = {}
    for source_id, _, _, ts, *_ in rows:
        if ts is not None and (source_id not in first_seen or ts < first_seen[source_id]):
            first_seen[source_id] = ts
    ordered = sorted(rows, key=lambda r: (first_seen.get(r[0]) is None, first_seen.get(r[0]) or 0, r[0], r[1], r[2]))
    seen: set[tuple[str, str]] = set()
    for row in ordered:
        message_id, request_id = row[4], row[5]
        if message_id and request_id:
            if (message_id, request_id) in seen:
                continue
            seen.add((message_id, request_id))
        for name, value in zip(USAGE_FIELDS, row[6:], strict=True):
            totals[name] += value or 0
    return totals


USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def rebuild_session(session: Session) -> None:
    """Every derived row of the session from all its events and transcript lines."""
    built_entry_id = TranscriptEntry.objects.filter(session=session).aggregate(top=Max("id"))["top"] or 0
    events = events_in_order(session)
    starts = [event for event in events if event.event == "session_start"]
    origin = starts[0] if starts else None
    first_project = next((event.project for event in events if event.project), "")
    built = turn_model.build_turns(events)
    recorded_project = (origin.project or "") if origin else ""
    trunk = locate_trunk(session.sid, recorded_project)
    entries = trunk_entries(trunk)
    prompts = join.PromptIndex(join.prompt_turns(entries))
    unmatched = join.no_match_reason(entries, list(prompts.ordered))
    joins = [join.join_turn(turn.ts, prompts, no_match_reason=unmatched) for turn in built]
    by_uuid = {entry.uuid: entry for entry in entries if entry.uuid}
    nearest = NearestPrompt([entry for entry in entries if entry.is_prompt and entry.ts is not None])
    summary = turn_model.summarise(built, keyed_turns=sum(1 for j in joins if j.confidence == "keyed"))
    occurrences = [max(event.occurrences, 1) for event in events]
    last = events[-1] if events else None

    session.origin = (Session.Origin.EVENTS if origin else
                      Session.Origin.INFERRED if events else Session.Origin.TRANSCRIPT)
    session.recorded_project = recorded_project
    session.transcript = trunk
    session.transcript_status = (Session.TranscriptStatus.NONE if trunk is None else
                                 Session.TranscriptStatus.GONE if trunk.status == SourceFile.Status.GONE else
                                 Session.TranscriptStatus.PRESENT)
    session.model = join.last_model(entries) or ""
    window, session.window_from_model = join.window_for(session.model or None)
    session.window_k = window // 1000
    session.title = next((e.text for e in reversed(entries) if e.type in ("ai-title", "custom-title") and e.text), "")
    session.message_count = sum(1 for e in entries if e.is_prompt or e.type == "assistant")
    for name, value in session_usage(session).items():
        setattr(session, name, value)
    if not events and entries:
        first_cwd = next((e.cwd for e in entries if e.cwd), "")
        first_project = first_project or first_cwd
    session.origin_ts = (origin.ts_raw or "") if origin else ""
    valid_ts = [event.ts for event in events if event.ts is not None] or \
        [entry.ts for entry in entries if entry.ts is not None]
    session.started_at = (origin.ts if origin and origin.ts else (min(valid_ts) if valid_ts else None))
    session.last_event_at = max(valid_ts) if valid_ts else None
    session.duration_secs = duration(origin, last) if events else (
        int((session.last_event_at - session.started_at).total_seconds()) if valid_ts else 0)
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
    session.built_event_id = max((event.pk for event in events), default=0)
    session.built_entry_id = built_entry_id
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
        write_turns(session, [
            (session.pk, turn.epoch, window_of(turn.ts_raw, window_starts), turn.ts_raw, turn.ts, turn.token_position,
             joined.confidence, joined.reason, joined.user_uuid,
             pk_of(by_uuid.get(joined.user_uuid)) if joined.user_uuid else None, pk_of(joined.injection),
             None if joined.user_uuid else pk_of(nearest.at(turn.ts)))
            for turn, joined in zip(built, joins, strict=True)
        ], built)
        rebuild_subagents(session, trunk)
        if trunk is not None:
            spills.import_spills([e for e in entries if "<persisted-output>" in (e.text or "")], trunk)


TURN_FIELDS = ("session_id", "epoch", "window", "ts_raw", "ts", "token_position", "join_confidence", "join_reason",
               "transcript_uuid", "prompt_entry_id", "context_entry_id", "nearest_prompt_id")
TURN_WAY_FIELDS = ("turn_id", "position", "event_id", "judge_event_id", "way_id", "trigger_channel", "gated",
                   "suppressed", "redisclosed", "fire_score", "matched_span")


def pk_of(row) -> int | None:
    return row.pk if row is not None else None


def write_turns(session: Session, turns: list[tuple], built: list[turn_model.TurnData]) -> None:
    """Insert turns (values of TURN_FIELDS, in epoch order) and each one's `fired_ways` rows."""
    if not turns:
        return
    bulk.insert_values(Turn, TURN_FIELDS, turns)
    ids = dict(Turn.objects.filter(session=session, epoch__gte=turns[0][1]).values_list("epoch", "id"))
    bulk.insert_values(TurnWay, TURN_WAY_FIELDS, (
        (ids[values[1]], position, row.event.pk, pk_of(row.judge_event), row.way_id, row.trigger_channel,
         row.gated, row.suppressed, row.redisclosed, row.fire_score, row.matched_span)
        for values, turn in zip(turns, built, strict=True)
        for position, row in enumerate(turn.rows, start=1)
    ))


class NearestPrompt:
    """For a heuristic turn: the last prompt in file order at or before its second (a fire follows
    its prompt). Prompts sorted by second with a running maximum of file position, so each turn
    costs a bisect instead of a pass over every prompt."""

    def __init__(self, prompts: list[TranscriptEntry]):
        by_second = sorted(enumerate(prompts), key=lambda item: item[1].ts.replace(microsecond=0))
        self.seconds = [entry.ts.replace(microsecond=0) for _, entry in by_second]
        self.latest: list[TranscriptEntry] = []
        best = -1
        for position, entry in by_second:
            if position > best:
                best, chosen = position, entry
            self.latest.append(chosen)

    def at(self, second) -> TranscriptEntry | None:
        found = bisect_right(self.seconds, second)
        return self.latest[found - 1] if found else None


def window_of(ts_raw: str, starts: list[str]) -> int:
    """The compaction window a moment falls in: how many session_starts came at or before it."""
    return max(1, sum(1 for start in starts if start and start <= ts_raw))


def duration(origin: WaysEvent | None, last: WaysEvent | None) -> int:
    """list --json duration_secs: last event's second minus the origin's, floored at 0."""
    if origin is None or last is None or origin.ts is None or last.ts is None:
        return 0
    return max(0, int((last.ts - origin.ts).total_seconds()))


def rebuild_subagents(session: Session, trunk: SourceFile | None) -> None:
    """Link each subagent run to its spawning tool call (formats-claude-code.md §11, in that order)."""
    files = {row.agent_key: row for row in SourceFile.objects.filter(
        kind=SourceFile.Kind.SUBAGENT_TRANSCRIPT, session_key=session.sid).order_by("generation")}
    links: dict[str, tuple[str, str]] = {}
    for agent_id, row in files.items():
        meta = read_meta(row)
        if meta.get("toolUseId"):
            links[agent_id] = (meta["toolUseId"], "meta.json")
    trunk_entries = TranscriptEntry.objects.filter(source=trunk).defer("raw", "cwd", "flags").order_by("offset", "index")
    if trunk is not None:
        for entry in trunk_entries.exclude(spawned_agent_id=None).exclude(spawned_agent_id="").exclude(
                tool_result_id=None).exclude(tool_result_id=""):
            if entry.spawned_agent_id not in links:
                links[entry.spawned_agent_id] = (entry.tool_result_id,
                                                 "agent_progress" if entry.type == "progress" else "tool_result")
    wanted = {tool_use_id for tool_use_id, _ in links.values() if tool_use_id}
    spawns = {entry.tool_use_id: entry for entry in bulk.chunked_in(trunk_entries, "tool_use_id", wanted)} \
        if trunk is not None else {}
    Subagent.objects.filter(session=session).delete()
    rows = []
    for agent_id in sorted(set(files) | set(links)):
        tool_use_id, method = links.get(agent_id, ("", ""))
        spawn = spawns.get(tool_use_id)
        meta = read_meta(files[agent_id]) if agent_id in files else {}
        spawn_input = tool_input(spawn)
        rows.append(Subagent(
            session=session, agent_id=agent_id, source=files.get(agent_id), tool_use_id=tool_use_id,
            spawn_entry=spawn, link=method,
            agent_type=fit.cut(str(spawn_input.get("subagent_type") or meta.get("agentType") or ""), Subagent,
                               "agent_type"),
            description=str(spawn_input.get("description") or meta.get("description") or ""),
        ))
    Subagent.objects.bulk_create(rows)


def read_meta(row: SourceFile) -> dict:
    """The `.meta.json` beside a subagent file the importer discovered (never a path from data)."""
    path = Path(row.root) / (row.rel_path[: -len(".jsonl")] + ".meta.json")
    try:
        raw = safefs.read_capped(Path(row.root), path, 65536)
    except OSError:
        return {}  # missing, unreadable, a FIFO, or a link out of the transcripts folder: no meta
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def tool_input(entry: TranscriptEntry | None) -> dict:
    if entry is None:
        return {}
    try:
        message = orjson.loads(entry.line).get("message") or {}
    except (orjson.JSONDecodeError, AttributeError):
        return {}
    for block in message.get("content") or []:
        if isinstance(block, dict) and block.get("type") == "tool_use" and isinstance(block.get("input"), dict):
            return block["input"]
    return {}
