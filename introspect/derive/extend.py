"""Extending a session's derived rows with what was appended since its last build.

A live session grows at its end: new events after its last turn, new lines at the end of its
transcript. Rebuilding a 5,000-turn session on every poll costs seconds; here only the last turn
is rebuilt together with what follows it, and only the turns a new prompt can reach are joined
again. The result must equal a whole rebuild (tests/introspect/test_extend.py compares them).

Whatever the tail cannot decide alone — an event that lands before the last turn, an older line
repeated or re-ordered, a new trunk file, a turn whose neighbour is close enough to share a judge
verdict — makes `extend_session` answer False, and the caller rebuilds the whole session.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.db.models import Q

from introspect.derive import (
    fields,
    rejoin,
    session_inputs,
    subagents,
    trunk_facts,
    turn_counts,
    turn_outcomes,
    turn_rows,
)
from introspect.models import Session, SourceFile, Subagent, TranscriptEntry, Turn, WaysEvent, Window
from introspect.rules import join
from introspect.rules import turns as turn_model
from introspect.rules.timestamps import raw_second, shifted, utc_second

# A judge verdict reaches rows 3 s either way. The tail starts one reach (and a second of margin)
# before the last turn, so the verdicts that can mark its rows are rebuilt with it; and no row may
# lie within two reaches before it, so no verdict is shared with the turn before.
VERDICT_REACH = timedelta(seconds=turn_model.VERDICT_WINDOW_SECS + 1)
QUIET_BEFORE_LAST_TURN = 2 * VERDICT_REACH
ROWS = Q(event__in=turn_model.TURN_EVENTS) | Q(event="way_judged", verdict="block")
ORDER_FIELDS = ("ts_raw", "order_rank", "order_generation", "order_offset", "order_index")
TURN_CONFIDENCE = turn_rows.TURN_FIELDS.index("join_confidence")
# Appended lines an extension reads at once; past them the session is rebuilt whole, in bounded
# memory (derive/trunk_facts.py): an import pass derives between its batches, and a long
# transcript's tail since the last derive can be tens of thousands of lines.
LONGEST_TAIL = 2 * trunk_facts.CHUNK


def event_order_key(event: WaysEvent) -> tuple:
    """The event's key in event order: its stamp, then its source position (session_inputs.EVENT_ORDER)."""
    return tuple(getattr(event, name) for name in ORDER_FIELDS)


def extend_session(session: Session) -> bool:
    """Bring the session's derived rows up to date from its appended rows; False: rebuild it whole."""
    if session.derived_version != fields.DERIVED_VERSION or not (
        session.built_event_id or session.built_entry_id
    ):
        return False
    trunk = session_inputs.locate_trunk(session.sid, session.recorded_project)
    if (trunk.pk if trunk else None) != session.transcript_id:
        return False
    if trunk is None and session.origin == Session.Origin.TRANSCRIPT:
        return False  # subagent files alone: their lines decide its start and project; small, rebuilt whole
    new_entries = appended_entries(session)
    if new_entries is None:
        return False  # held as model rows, a long tail outweighs a whole rebuild's chunks
    new_events = session_inputs.derive_events(session, after=session.built_event_id)
    trunk_new = [entry for entry in new_entries if trunk is not None and entry.source_id == trunk.pk]
    if not events_extend(session, new_events):
        return False
    extends, waiting = entries_extend(session, trunk, trunk_new)
    if not extends:
        return False
    last_turn = Turn.objects.filter(session=session).order_by("-epoch").first()
    tail: list[WaysEvent] | None = None
    if new_events:
        tail = tail_events(session, last_turn)
        if tail is None:
            return False
    # What the files say is read before the transaction: only when a subagent link can have changed.
    agent_files = (
        subagents.subagent_files(session) if new_entries and subagents_touched(session, new_entries) else None
    )
    metas = subagents.read_metas(agent_files) if agent_files is not None else {}

    with transaction.atomic():
        if new_events:
            add_events(session, new_events)
            rebuild_tail(session, trunk, last_turn, tail)
        if new_entries:
            add_entries(session, trunk, new_entries, trunk_new)
            if trunk_new:
                turn_outcomes.extend(session, trunk)
            if agent_files is not None:
                subagents.rebuild_subagents(session, trunk, agent_files, metas)
        session.transcript_status = fields.transcript_status(trunk)
        session.built_event_id = max([session.built_event_id, *(event.pk for event in new_events)])
        session.built_entry_id = max([session.built_entry_id, *(entry.pk for entry in new_entries)])
        session.waiting_parents = waiting
        session.save()
    return True


def appended_entries(session: Session) -> list[TranscriptEntry] | None:
    """The session's transcript lines stored since its last build, in file order; None past LONGEST_TAIL."""
    after = session.built_entry_id
    ids = session_inputs.appended_ids(TranscriptEntry, session, after, limit=LONGEST_TAIL + 1)
    if len(ids) > LONGEST_TAIL:
        return None
    if not ids:
        return []
    rows = session_inputs.appended_rows(TranscriptEntry.objects.filter(session=session), ids, after)
    return list(rows.defer("raw", "flags").order_by("source_id", "offset", "index"))


def events_extend(session: Session, new_events: list[session_inputs.DeriveEvent]) -> bool:
    """New events extend the session only when every one sorts after every event built before."""
    if not new_events:
        return True
    if session.origin == Session.Origin.TRANSCRIPT:
        return False  # its first events: the origin, project and dates all change
    if any(event.ts_raw is None for event in new_events):
        return False
    if session.origin != Session.Origin.EVENTS and any(e.event == "session_start" for e in new_events):
        return False  # the first session_start becomes the origin
    if session.project_id is None and any(event.project for event in new_events):
        return False
    first_new = event_order_key(new_events[0])
    # Only older events stamped at or after the first new one can sort after it (an index range).
    later = WaysEvent.objects.filter(
        session=session, pk__lte=session.built_event_id, ts_raw__gte=first_new[0]
    )
    return all(event_order_key(event) < first_new for event in later.only(*ORDER_FIELDS))


def entries_extend(
    session: Session, trunk: SourceFile | None, trunk_new: list[TranscriptEntry]
) -> tuple[bool, list[str] | None]:
    """Whether new trunk lines extend the session (they change nothing its older lines meant), and
    the parents its trunk's lines leave waiting with them (Session.waiting_parents)."""
    waiting = session.waiting_parents
    if session.project_id is None and any(entry.cwd for entry in trunk_new):
        return False, waiting  # a session known only from its transcript takes its project from the first cwd
    uuids = {entry.uuid for entry in trunk_new if entry.uuid}
    # Parents only while they are kept: past WAITING_KEPT, no answer needs them.
    parents = (
        {entry.parent_uuid for entry in trunk_new if entry.parent_uuid} - uuids
        if waiting is not None
        else set()
    )
    if trunk is None or not (uuids or parents):
        return True, waiting
    # An older line naming a new one as parent could now walk to a prompt; a repeated uuid moves
    # the line a keyed turn points at. Both are rare enough to rebuild the session for. The older
    # lines with these uuids, by the (session_key, uuid) index: a new uuid among them is repeated;
    # a new line's parent among them waits for nothing.
    asked = uuids | parents
    stored = asked - trunk_facts.unstored(trunk, asked, session.built_entry_id)
    if stored & uuids:
        return False, waiting
    if waiting is None:  # too many to keep: ask every older line's parent (a scan of the file)
        named = TranscriptEntry.objects.filter(source=trunk, pk__lte=session.built_entry_id)
        return not named.filter(parent_uuid__in=uuids).exists(), None
    # An older line naming a new uuid names one that no older line has: a parent it was waiting for.
    if uuids & set(waiting):
        return False, waiting
    after = set(waiting) | (parents - stored)
    return True, sorted(after) if len(after) <= trunk_facts.WAITING_KEPT else None


def tail_events(session: Session, last_turn: Turn | None) -> list[WaysEvent] | None:
    """The events from one verdict reach before the last turn on; None when a row lies too close before it."""
    events = WaysEvent.objects.filter(session=session).order_by(*session_inputs.EVENT_ORDER)
    if last_turn is None:
        return list(events)
    quiet_from = raw_second(shifted(last_turn.ts, -QUIET_BEFORE_LAST_TURN))
    if WaysEvent.objects.filter(
        ROWS, session=session, ts_raw__gte=quiet_from, ts_raw__lt=last_turn.ts_raw
    ).exists():
        return None
    return list(events.filter(ts_raw__gte=raw_second(shifted(last_turn.ts, -VERDICT_REACH))))


def add_events(session: Session, new_events: list[session_inputs.DeriveEvent]) -> None:
    """The session's event counters, windows and dates, moved on by events that all come last."""
    counts = fields.event_counts(new_events)
    session.event_count += counts.events
    session.way_fires += counts.way_fires
    session.near_misses += counts.near_misses
    session.models_seen = fields.models_seen(new_events, session.models_seen)
    starts = [event for event in new_events if event.event == "session_start"]
    Window.objects.bulk_create(
        Window(session=session, number=session.window_count + number, start_ts=start.ts_raw or "")
        for number, start in enumerate(starts, start=1)
    )
    session.window_count += len(starts)
    origin_second = utc_second(session.origin_ts) if session.origin == Session.Origin.EVENTS else None
    valid_ts = [event.ts for event in new_events if event.ts is not None]
    if valid_ts:
        # Dates come from the events once any has a valid second, before that from the trunk's lines.
        earlier = [session.started_at, session.last_event_at] if events_have_ts(session) else []
        session.started_at = origin_second or min(filter(None, [*earlier, *valid_ts]))
    # The newest dated line of either source, as rebuild.plan has it.
    session.last_event_at = max(filter(None, [session.last_event_at, *valid_ts]), default=None)
    last = new_events[-1].ts
    session.duration_secs = (
        max(0, int((last - origin_second).total_seconds())) if origin_second and last else 0
    )


def events_have_ts(session: Session) -> bool:
    return WaysEvent.objects.filter(
        session=session, pk__lte=session.built_event_id, ts__isnull=False
    ).exists()


def rebuild_tail(
    session: Session, trunk: SourceFile | None, last_turn: Turn | None, tail: list[WaysEvent]
) -> None:
    """Replace the last turn with the turns its events and the new ones make, joined to the prompts."""
    built = turn_model.build_turns(tail)
    first_epoch = last_turn.epoch if last_turn else 1
    replaced, gone = turn_counts.stored(session, first_epoch)
    turn_rows.delete_turns(replaced)
    turns = []
    if built:
        window_starts = list(
            Window.objects.filter(session=session).order_by("number").values_list("start_ts", flat=True)
        )
        joins = rejoin.Joiner(session, trunk, [turn.ts for turn in built])
        for offset, turn in enumerate(built):
            joined = joins.join(turn.ts)
            turns.append(
                turn_rows.turn_row(
                    session.pk,
                    first_epoch + offset,
                    turn_rows.window_of(turn.ts_raw, window_starts),
                    turn,
                    joined,
                    prompt_entry=joins.prompt_entry(joined),
                    nearest_prompt=joins.nearest_prompt(joined, turn.ts),
                )
            )
        turn_rows.write_turns(session, turns, built)
    put = turn_counts.built(built, [values[TURN_CONFIDENCE] for values in turns])
    turn_counts.apply(session, gone, put, replaced_from=first_epoch)


def add_entries(
    session: Session,
    trunk: SourceFile | None,
    new_entries: list[TranscriptEntry],
    trunk_new: list[TranscriptEntry],
) -> None:
    """Transcript-derived fields from appended lines; turns near a new prompt are joined again."""
    if trunk_new:
        session.peak_context_tokens = fields.peak_context(trunk_new, session.peak_context_tokens)
        fields.apply_model(session, join.last_model(trunk_new) or session.model)
        prompt = session.first_prompt or fields.first_prompt(trunk_new)
        if prompt != session.first_prompt or any(e.type in fields.TITLE_ORDER for e in trunk_new):
            session.first_prompt = prompt
            session.title = fields.title(trunk, prompt)
        marks = fields.compaction_marks(trunk_new)
        if marks:
            session.compaction_marks = [*session.compaction_marks, *marks]
            session.transcript_compactions = len(session.compaction_marks)
        session.message_count += fields.message_count(trunk_new)
        rejoin.rejoin_near(session, trunk, trunk_new)
        rejoin.point_heuristic_turns_at(session, [e for e in trunk_new if e.is_prompt and e.ts is not None])
    add_usage(session, new_entries)
    known = set(session.models_seen.split(", "))
    if any(e.type == "assistant" and e.model and e.model not in known for e in new_entries):
        session.models_seen = fields.all_models(session, trunk)
    valid_ts = [entry.ts for entry in trunk_new if entry.ts is not None]
    # Written now is live now, with or without agent-ways events (Session.live_since).
    session.last_event_at = max(filter(None, [session.last_event_at, *valid_ts]), default=None)
    if valid_ts and not WaysEvent.objects.filter(session=session, ts__isnull=False).exists():
        session.started_at = min(filter(None, [session.started_at, *valid_ts]))
        if session.origin == Session.Origin.TRANSCRIPT:
            session.duration_secs = int((session.last_event_at - session.started_at).total_seconds())


def add_usage(session: Session, new_entries: list[TranscriptEntry]) -> None:
    """The session's usage moved by its new usage lines (fields.grown_usage), as a rebuild gives it.

    A new line may be a later row of a message already counted (its final count), so the totals
    are not a sum of the tail's rows: the messages it continues are counted again."""
    if any(fields.has_usage(entry) for entry in new_entries):
        fields.apply_usage(session, fields.grown_usage(session, new_entries))


def subagents_touched(session: Session, new_entries: list[TranscriptEntry]) -> bool:
    """A new spawn link, a new subagent file, or the tool call an unlinked subagent waited for."""
    if any(entry.spawned_agent_id for entry in new_entries):
        return True
    # A subagent known so far only by the trunk's link to it (no file of its own yet) counts as new
    # when its file lands: its row then gets the file, and the file's meta.json link.
    with_files = Subagent.objects.filter(session=session, source__isnull=False)
    files = SourceFile.objects.filter(kind=SourceFile.Kind.SUBAGENT_TRANSCRIPT, session_key=session.sid)
    if set(files.values_list("agent_key", flat=True)) - set(with_files.values_list("agent_id", flat=True)):
        return True
    waiting = set(
        Subagent.objects.filter(session=session, spawn_entry=None)
        .exclude(tool_use_id="")
        .values_list("tool_use_id", flat=True)
    )
    return any(entry.tool_use_id in waiting for entry in new_entries if entry.tool_use_id)
