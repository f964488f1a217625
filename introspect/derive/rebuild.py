"""A whole session's derived rows — windows, turns, turn rows, subagents, list counters — from its rows.

Rebuilding a whole session from its events and trunk lines (instead of patching counters) keeps
the derived rows a pure function of the imported lines, whatever order the sources were read in.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from operator import attrgetter
from pathlib import PurePosixPath

from django.db import transaction

from introspect.derive import fields, session_inputs, subagents, trunk_facts, trunk_pass, turn_rows
from introspect.models import Project, Session, SourceFile, Subagent, Turn, TurnOutcome, TurnWay, Window
from introspect.rules import join
from introspect.rules import turns as turn_model
from lib import bulk, column_fit, safefs


def project_for(path: str) -> Project | None:
    """The project a session names; None for none, or for a path no file system has (longer than
    an index key may be: the events keep it as written)."""
    if not path or len(path.encode("utf-8", "surrogatepass")) > safefs.MAX_PATH_BYTES:
        return None
    name = PurePosixPath(path.rstrip("/") or "/").name or path
    project, _ = Project.objects.get_or_create(
        path=path, defaults={"name": column_fit.cut(name, Project, "name")}
    )
    return project


WINDOW_FIELDS = ("session_id", "number", "start_ts")
PK = attrgetter("pk")


@dataclass
class Plan:
    """One session's derived rows, computed before the write transaction opens."""

    session: Session
    project_path: str
    starts: list[str]  # each window's start, as its session_start event stamped it ("" for none)
    turns: list[tuple]  # turn_rows.TURN_FIELDS values, in epoch order
    ways: list[list[tuple]]  # each turn's fired_ways rows (turn_rows.way_values)
    trunk: SourceFile | None
    agent_files: dict[str, SourceFile]
    metas: dict[str, dict]
    outcomes: list[TurnOutcome]


def rebuild_session(session: Session) -> None:
    """Every derived row of the session from all its events and transcript lines."""
    rebuild_many([session])


def rebuild_many(sessions: list[Session]) -> None:
    """`rebuild_session` for each of these sessions, its reads shared (one query each for all the
    sessions' events, transcript files and newest line) and its writes in one transaction.

    Most sessions of a long history have events and no transcript (Claude Code deletes them after
    30 days): for those, nothing more is read, and a rebuild costs a few rows, not twenty queries.
    """
    write_plans(plans_for(sessions))


def plans_for(sessions: list[Session]) -> list[Plan]:
    """Each session's Plan, from its committed rows: reads only, so that a second process may compute
    them while this one writes (derive/planner.py)."""
    if not sessions:
        return []
    ids = [session.pk for session in sessions]
    events = session_inputs.events_of(ids)
    tops = session_inputs.top_entry_ids(ids)
    files = session_inputs.transcript_files_of(session.sid for session in sessions)
    return [
        plan(session, events.get(session.pk, []), tops.get(session.pk, 0), files.get(session.sid, []))
        for session in sessions
    ]


def write_plans(plans: list[Plan]) -> None:
    """The sessions' derived rows as planned, in one transaction: each session's older ones replaced."""
    if not plans:
        return
    ids = [item.session.pk for item in plans]
    with transaction.atomic():
        projects: dict[str, Project | None] = {}
        for item in plans:
            if item.project_path not in projects:
                projects[item.project_path] = project_for(item.project_path)
            item.session.project = projects[item.project_path]
        bulk.update_all([item.session for item in plans])
        Window.objects.filter(session_id__in=ids).delete()
        TurnWay.objects.filter(turn__session_id__in=ids).delete()
        Turn.objects.filter(session_id__in=ids).delete()  # their rows are gone: nothing cascades
        TurnOutcome.objects.filter(session_id__in=ids).delete()
        TurnOutcome.objects.bulk_create(row for item in plans for row in item.outcomes)
        bulk.insert_rows(
            bulk.Rows(
                Window,
                WINDOW_FIELDS,
                [
                    (item.session.id, number, start)
                    for item in plans
                    for number, start in enumerate(item.starts, start=1)
                ],
            ),
            ignore_conflicts=False,
        )
        turn_rows.write_planned([(item.session, item.turns, item.ways) for item in plans])
        plain = [item.session.pk for item in plans if item.trunk is None and not item.agent_files]
        Subagent.objects.filter(session_id__in=plain).delete()  # none to link: no trunk, no files
        for item in plans:
            if item.trunk is not None or item.agent_files:
                subagents.rebuild_subagents(item.session, item.trunk, item.agent_files, item.metas)


def plan(
    session: Session, events: list[session_inputs.DeriveEvent], built_entry_id: int, files: list[SourceFile]
) -> Plan:
    """Compute the session's fields (set on `session`) and its derived rows, reading only what a
    session with transcript lines needs read beyond its events."""
    starts = [event for event in events if event.event == "session_start"]
    origin = starts[0] if starts else None
    first_project = next((event.project for event in events if event.project), "")
    built = turn_model.build_turns(events, verdicts=False)  # the rows keep the verdict's event only
    recorded_project = (origin.project or "") if origin else ""
    trunk = session_inputs.pick_trunk(
        session.sid, recorded_project, (row for row in files if row.kind == SourceFile.Kind.TRANSCRIPT)
    )
    lines, outcomes = trunk_pass.read(session, trunk, built=built_entry_id)
    prompts = join.PromptIndex(trunk_facts.prompt_turns(trunk, lines.injections))
    unmatched = lines.no_match_reason()
    joins = join.join_turns([turn.ts for turn in built], prompts, no_match_reason=unmatched)
    by_uuid = trunk_facts.last_lines(trunk, {joined.user_uuid for joined in joins if joined.user_uuid})
    nearest = NearestPrompt(lines.prompts)
    summary = turn_model.summarise(built, keyed_turns=sum(1 for j in joins if j.confidence == "keyed"))
    counts = fields.event_counts(events)
    last = events[-1] if events else None
    agent_files = subagents.subagent_files_in(files)
    metas = subagents.read_metas(agent_files)

    # A session folder holding subagent files but no trunk: its subagents' lines stand in for the
    # trunk's (start, project, first prompt), in time order.
    side = [] if lines.lines or events else session_inputs.subagent_entries(agent_files.values())

    session.origin = (
        Session.Origin.EVENTS if origin else Session.Origin.INFERRED if events else Session.Origin.TRANSCRIPT
    )
    session.recorded_project = recorded_project
    session.transcript = trunk
    session.transcript_status = fields.transcript_status(trunk)
    session.peak_context_tokens = lines.peak_context
    fields.apply_model(session, lines.last_model or "")
    session.first_prompt = lines.first_prompt if lines.lines else fields.first_prompt(side)
    session.title = fields.title(trunk, session.first_prompt)
    session.compaction_marks = lines.compaction_marks
    session.transcript_compactions = len(session.compaction_marks)
    session.message_count = lines.message_count
    # No transcript line has this session: no usage to read, and only the fires' models.
    fields.apply_usage(session, fields.session_usage(session) if built_entry_id else fields.NO_USAGE)
    if not events and (lines.lines or side):
        first_cwd = lines.first_cwd if lines.lines else next((e.cwd for e in side if e.cwd), "")
        first_project = first_project or first_cwd
    session.origin_ts = (origin.ts_raw or "") if origin else ""
    valid_ts = [event.ts for event in events if event.ts is not None] or (
        lines.dates if lines.lines else [entry.ts for entry in side if entry.ts is not None]
    )
    session.started_at = origin.ts if origin and origin.ts else (min(valid_ts) if valid_ts else None)
    # The newest dated line of either source (events, trunk transcript): what "live" reads
    # (Session.live_since). The events may stop while the conversation goes on.
    session.last_event_at = max((max(dates) for dates in (valid_ts, lines.dates) if dates), default=None)
    session.duration_secs = (
        duration(origin, last)
        if events
        else (int((session.last_event_at - session.started_at).total_seconds()) if valid_ts else 0)
    )
    session.event_count, session.way_fires, session.near_misses = (
        counts.events,
        counts.way_fires,
        counts.near_misses,
    )
    session.turn_count = summary.turns
    session.total_fires = summary.total_fires
    session.distinct_ways = summary.distinct_ways
    session.redisclosures = summary.redisclosures
    session.gated = summary.gated_candidates
    session.suppressed = summary.suppressed_candidates
    session.judge_blocked = summary.judge_blocked
    session.keyed_turns = summary.keyed_turns
    session.window_count = len(starts)
    session.derived_version = fields.DERIVED_VERSION
    session.built_event_id = max(map(PK, events), default=0)
    session.built_entry_id = built_entry_id
    session.waiting_parents = lines.waiting_parents
    session.models_seen = fields.all_models(session, trunk) if built_entry_id else fields.models_seen(events)
    window_of = turn_rows.Windows([start.ts_raw or "" for start in starts]).of
    turns = [
        turn_rows.turn_row(
            session.pk,
            turn.epoch,
            window_of(turn.ts_raw),
            turn,
            joined,
            prompt_entry=by_uuid.get(joined.user_uuid) if joined.user_uuid else None,
            nearest_prompt=None if joined.user_uuid or not lines.prompts else nearest.at(turn.ts),
        )
        for turn, joined in zip(built, joins, strict=True)
    ]
    return Plan(
        session=session,
        project_path=session.recorded_project or first_project,
        starts=[start.ts_raw or "" for start in starts],
        turns=turns,
        ways=turn_rows.way_values(built),
        trunk=trunk,
        agent_files=agent_files,
        metas=metas,
        outcomes=outcomes,
    )


class NearestPrompt:
    """For a heuristic turn: the last prompt in file order at or before its second (a fire follows
    its prompt). Prompts sorted by second with a running maximum of file position, so each turn
    costs a bisect instead of a pass over every prompt."""

    def __init__(self, prompts: list[trunk_facts.PromptLine]):
        by_second = sorted(enumerate(prompts), key=lambda item: item[1].ts.replace(microsecond=0))
        self.seconds = [entry.ts.replace(microsecond=0) for _, entry in by_second]
        self.latest: list[trunk_facts.PromptLine] = []
        best = -1
        for position, entry in by_second:
            if position > best:
                best, chosen = position, entry
            self.latest.append(chosen)

    def at(self, second) -> trunk_facts.PromptLine | None:
        found = bisect_right(self.seconds, second)
        return self.latest[found - 1] if found else None


def duration(origin: session_inputs.DeriveEvent | None, last: session_inputs.DeriveEvent | None) -> int:
    """list --json duration_secs: last event's second minus the origin's, floored at 0."""
    if origin is None or last is None or origin.ts is None or last.ts is None:
        return 0
    return max(0, int((last.ts - origin.ts).total_seconds()))
