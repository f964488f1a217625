"""The effectiveness page's numbers (decisions-and-effectiveness.md §8.5): per way, its exposure and
its two arms over conversation turns for every outcome signal, in a window of days and a project.

Where the arms come from, per session: its decision log when it has one (each scan's outcomes), else
its event log (the fire turns' rows, and near-misses). A fire turn joined to its prompt by key sits
in that prompt's conversation turn; a heuristic fire turn, a near-miss event and a decision scan are
placed by the clock (the last prompt at most 3 s after them), and the page counts how many were.
Ten queries whatever the window holds: turns' outcomes; fire rows, near-misses and decision outcomes
each counted by the database (the exposure) and fetched only for the sessions with stored turns (the
arms: a large event log is mostly sessions without a transcript); pulls; the ways' body lengths; the
labels of the frame's fires (their precision and AUCs).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db.models import Count, OuterRef, Q, Subquery
from django.db.models.functions import Length
from django.utils import timezone

from introspect.models import (
    DecisionOutcome,
    DecisionRecord,
    ProposalApplied,
    TurnOutcome,
    TurnWay,
    Way,
    WaysEvent,
)
from introspect.queries import relevance as labels
from introspect.rules import outcome_signals as signals
from introspect.rules import way_arms as arms
from introspect.rules.arm_statistics import MIN_TURNS
from introspect.rules.relevance import Relevance
from introspect.rules.timestamps import shifted

SCAN_LEAD = timedelta(seconds=3)  # a scan is logged up to 3 s before its prompt's line (fire_turns)
RESOLUTION = {Way.RootKind.PROJECT: 0, Way.RootKind.USER: 1, Way.RootKind.CORE: 2}


@dataclass(frozen=True)
class Frame:
    project: str | None
    days: int | None
    way: str | None
    since: datetime | None
    minimum: int = MIN_TURNS


@dataclass(frozen=True)
class Report:
    frame: Frame
    turns: int  # conversation turns in the frame
    ways: list[arms.WayArms]
    relevance: Relevance | None = None  # from people's labels of the frame's fires (queries/relevance.py)

    @property
    def relevance_view(self) -> labels.RelevanceView | None:
        """The labels' numbers as the page prints them."""
        if self.relevance is None:
            return None
        query = {"project": self.frame.project, "days": self.frame.days, "way": self.frame.way}
        return labels.relevance_view(self.relevance, query)


def since_for(days: int | None, now: datetime | None = None) -> datetime | None:
    """00:00 UTC of the first of the last `days` UTC calendar days (as `introspect stats --days`)."""
    if days is None:
        return None
    now = (now or timezone.now()).astimezone(UTC)
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    return midnight - timedelta(days=max(days - 1, 0))


def session_filter(prefix: str, frame: Frame) -> Q:
    """Sessions of the project (the path or under it), by the session reached through `prefix`."""
    if not frame.project:
        return Q()
    root = frame.project.rstrip("/\\")
    field = f"{prefix}project__path"
    return Q(**{field: root}) | Q(**{f"{field}__startswith": root + "/"})


def turn_rows(frame: Frame):
    """The frame's conversation turns: those with a prompt (turn 0 has none) in the window."""
    rows = TurnOutcome.objects.filter(session_filter("session__", frame), prompt_entry__isnull=False)
    return rows.filter(prompt_entry__ts__gte=frame.since) if frame.since else rows


def stored_turns(frame: Frame) -> tuple[dict, dict]:
    """The frame's conversation turns by key, and each session's prompt times for placing by clock."""
    rows = turn_rows(frame)
    turns: dict[tuple[int, int], arms.Turn] = {}
    by_prompt: dict[int, tuple[int, int]] = {}
    clocks: dict[int, list[tuple[datetime, int]]] = {}
    for row in rows.values(
        "session_id", "number", "prompt_entry_id", "prompt_entry__ts", "tool_errors", "interrupts",
        "retries", "churn", "compactions", "correction_cue", "tokens", "cost_usd",
    ):  # fmt: skip
        key = (row["session_id"], row["number"])
        had = {name for name in arms.RATE_SIGNALS if name != signals.CORRECTION and row[name]}
        if row["correction_cue"]:
            had.add(signals.CORRECTION)
        cost = row["cost_usd"]
        turns[key] = arms.Turn(key, frozenset(had), row["tokens"], float(cost) if cost is not None else None)
        by_prompt[row["prompt_entry_id"]] = key
        if row["prompt_entry__ts"] is not None:
            clocks.setdefault(row["session_id"], []).append((row["prompt_entry__ts"], row["number"]))
    for times in clocks.values():
        times.sort()
    return turns, {"by_prompt": by_prompt, "clocks": clocks}


def by_clock(places: dict, session_id: int, ts: datetime | None) -> tuple[int, int] | None:
    """The conversation turn in progress at `ts` (its prompt at most SCAN_LEAD after it)."""
    times = places["clocks"].get(session_id)
    if not times or ts is None:
        return None
    at = bisect_right(times, (shifted(ts, SCAN_LEAD), float("inf"))) - 1
    return (session_id, times[at][1]) if at >= 0 else None


def way_of(found: dict[str, arms.WayArms], way: str) -> arms.WayArms:
    if way not in found:
        found[way] = arms.WayArms(way)
    return found[way]


def count(entry: arms.WayArms, result: str, n: int) -> None:
    """`n` outcomes of the way with this result in its exposure (every one, placed in a turn or not)."""
    entry.exposure[result] = entry.exposure.get(result, 0) + n
    if result in arms.SHOWN_RESULTS:
        entry.fires += n


def place(entry: arms.WayArms, result: str, key: tuple[int, int] | None, *, by_time: bool) -> None:
    """An outcome in its arm, by the conversation turn it fell in (none: before the first prompt)."""
    if key is None:
        return
    if result in arms.SHOWN_RESULTS:
        entry.shown.add(key)
    elif result in arms.NOT_SHOWN_RESULTS:
        entry.other.add(key)
    else:
        return
    entry.placed_by_time += by_time


def counted(rows, *fields: str):
    """(fields…, n) per distinct value of `fields`: the exposure, counted by the database."""
    return rows.order_by().values_list(*fields).annotate(n=Count("pk"))


def decided_sessions(frame: Frame):
    """The sessions with a decision log in the frame (any scan, of any way), as a subquery: such a
    session is read from its log alone, whichever way the frame names."""
    scans = DecisionRecord.objects.filter(
        session_filter("session__", frame), kind=DecisionRecord.Kind.SCAN, session__isnull=False
    )
    if frame.since:
        scans = scans.filter(ts__gte=frame.since)
    return scans.values("session_id")


def from_decisions(frame: Frame, found: dict, places: dict) -> None:
    """Each scan outcome of the frame: counted in the database, and those of sessions with stored
    turns fetched to be placed in their arm."""
    rows = DecisionOutcome.objects.filter(session_filter("record__session__", frame), record__kind="scan")
    rows = rows.filter(record__session__isnull=False)
    if frame.since:
        rows = rows.filter(record__ts__gte=frame.since)
    if frame.way:
        rows = rows.filter(way=frame.way)
    for way, result, n in counted(rows, "way", "result"):
        count(way_of(found, way), result, n)
    placed = rows.filter(record__session_id__in=turn_rows(frame).values("session_id"))
    for way, result, session_id, ts in placed.values_list(
        "way", "result", "record__session_id", "record__ts"
    ):
        place(way_of(found, way), result, by_clock(places, session_id, ts), by_time=True)


def event_result(gated: bool, suppressed: str, redisclosed: bool) -> str:
    """A fire turn's row as the decision log's result would name it."""
    if gated:
        return "keyword_gated"
    if suppressed:
        return (
            "held_context_cap"
            if "cap" in suppressed
            else "judge_block"
            if "judge" in suppressed
            else "held_refire"
        )
    return "redisclosed" if redisclosed else "fired"


def from_events(frame: Frame, found: dict, places: dict) -> None:
    """The fire turns' rows and the near-misses of sessions without a decision log: counted in the
    database, and those of sessions with stored turns fetched to be placed in their arm (most rows
    of a large log are of sessions without a transcript, which only count)."""
    decided = decided_sessions(frame)
    rows = TurnWay.objects.filter(session_filter("turn__session__", frame)).exclude(
        turn__session_id__in=decided
    )
    misses = WaysEvent.objects.filter(session_filter("session__", frame), event="way_nearmiss")
    misses = misses.exclude(session_id__in=decided).filter(session__isnull=False, way__gt="")
    if frame.since:
        rows, misses = rows.filter(turn__ts__gte=frame.since), misses.filter(ts__gte=frame.since)
    if frame.way:
        rows, misses = rows.filter(way_id=frame.way), misses.filter(way=frame.way)
    for way, gated, suppressed, redisclosed, n in counted(
        rows, "way_id", "gated", "suppressed", "redisclosed"
    ):
        count(way_of(found, way), event_result(gated, suppressed, redisclosed), n)
    for way, n in counted(misses, "way"):
        count(way_of(found, way), "near_miss", n)
    turned = turn_rows(frame).values("session_id")
    for way, gated, suppressed, redisclosed, session_id, ts, prompt_id in rows.filter(
        turn__session_id__in=turned
    ).values_list(
        "way_id",
        "gated",
        "suppressed",
        "redisclosed",
        "turn__session_id",
        "turn__ts",
        "turn__prompt_entry_id",
    ):
        keyed = places["by_prompt"].get(prompt_id)
        key = keyed or by_clock(places, session_id, ts)
        place(way_of(found, way), event_result(gated, suppressed, redisclosed), key, by_time=keyed is None)
    for way, session_id, ts in misses.filter(session_id__in=turned).values_list("way", "session_id", "ts"):
        place(way_of(found, way), "near_miss", by_clock(places, session_id, ts), by_time=True)


def from_pulls(frame: Frame, found: dict) -> None:
    """Each way's pulls and out-of-band reads (a way only pulled is listed too, with no arms)."""
    rows = DecisionRecord.objects.filter(session_filter("session__", frame), kind=DecisionRecord.Kind.PULL)
    if frame.since:
        rows = rows.filter(ts__gte=frame.since)
    if frame.way:
        rows = rows.filter(way=frame.way)
    # A read before a reviewer last shortened the way's refire: here is spent: it argued for that
    # step and is no evidence against the new window (services/proposals.out_of_band_reads).
    shortened = ProposalApplied.objects.filter(kind=ProposalApplied.Kind.REFIRE, way_id=OuterRef("way"))
    rows = rows.exclude(way="").annotate(shortened_at=Subquery(shortened.order_by("-at").values("at")[:1]))
    for way, out_of_band, ts, shortened_at in rows.values_list("way", "out_of_band", "ts", "shortened_at"):
        entry = way_of(found, way)
        entry.pulls += 1
        entry.out_of_band += out_of_band
        entry.unspent_out_of_band += out_of_band and (shortened_at is None or ts > shortened_at)


def body_lengths(ways: set[str]) -> dict[str, int]:
    """Each way's body length in characters, from the file that resolves its id (project, user, core)."""
    rows = Way.objects.filter(way_id__in=ways, present=True).annotate(chars=Length("body"))
    found: dict[str, tuple[int, int]] = {}
    for way_id, kind, chars in rows.values_list("way_id", "root_kind", "chars"):
        rank = RESOLUTION.get(kind, 3)
        if way_id not in found or rank < found[way_id][0]:
            found[way_id] = (rank, chars or 0)
    return {way: chars for way, (_, chars) in found.items()}


def effectiveness(
    *,
    project: str | None = None,
    days: int | None = None,
    way: str | None = None,
    now: datetime | None = None,
) -> Report:
    frame = Frame(project=project or None, days=days, way=way or None, since=since_for(days, now))
    turns, places = stored_turns(frame)
    found: dict[str, arms.WayArms] = {}
    from_decisions(frame, found, places)
    from_events(frame, found, places)
    from_pulls(frame, found)
    lengths = body_lengths(set(found))
    measured = [
        arms.measure(entry, turns, frame.minimum, injected_chars=lengths.get(entry.way, 0))
        for entry in found.values()
    ]
    relevance = labels.relevance(project=frame.project, since=frame.since, way=frame.way)
    return Report(frame=frame, turns=len(turns), ways=arms.order(measured), relevance=relevance)
