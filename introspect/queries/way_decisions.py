"""One way in agent-ways' decision log, for its page: its outcomes week by week (by result), its
near misses with their shortfall, and the pulls of it that say it was needed but not given (recall
misses) or read again inside its refire window (out-of-band reads) (decisions-and-effectiveness.md
§8.5's exposure and pulls).

Five queries whatever the size of the log. A pull's class is the rules' (rules/decision_turns.py)
over the records of the sessions it was pulled in, as on the session page (queries/decision_scans.py):
the same as over the whole log unless a pull names another session's scan (then `unknown` here) or
the one-day idle close of a turn depends on other sessions' records. A refused pull (a `reason`
other than upstream's `no refire curve`) is counted apart, as upstream's stats count it.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import date

from django.db.models import Count, Q
from django.db.models.functions import TruncWeek

from introspect.models import DecisionOutcome, DecisionRecord
from introspect.rules.decision_reader import Records
from introspect.rules.decision_stats import RESULTS, SERVED_UNSTAMPED
from introspect.rules.decision_turns import Join, Joined, group

STREAM_ORDER = ("order_rank", "order_generation", "order_offset", "order_index")
WEEK_LIMIT = 104
NEAR_MISS_LIMIT = 200
PULL_LIMIT = 200  # the newest pulls of the way classified and listed; the page counts the rest


@dataclass(frozen=True)
class ResultWeek:
    start: date
    counts: tuple[int, ...]  # one per `WayDecisions.results`, in that order


@dataclass(frozen=True)
class NearMissRow:
    ts: str
    sid: str
    linked: bool  # the session has a row of its own (a page to link to)
    scan_id: str
    shortfall: float | None
    prob_en: float | None
    tau_s: float | None
    channel: str | None


@dataclass(frozen=True)
class PullRow:
    ts: str
    sid: str
    linked: bool
    agent: str
    window: str
    out_of_band: bool
    scan_id: str | None
    join: str  # delivered, recall_miss, no_scan_id or unknown


@dataclass
class WayDecisions:
    """What the decision log says about one way; `present` False when there is no decision log."""

    present: bool
    totals: dict[str, int] = field(default_factory=dict)  # result → outcomes, most first
    weeks: list[ResultWeek] = field(default_factory=list)
    weeks_truncated: bool = False
    undated: int = 0  # outcomes of scans whose ts is not a UTC second
    near_misses: list[NearMissRow] = field(default_factory=list)
    near_miss_total: int = 0
    mean_shortfall: float | None = None
    pulls: list[PullRow] = field(default_factory=list)
    pull_total: int = 0
    refused: int = 0
    out_of_band_total: int = 0  # every out-of-band read of the way, listed or not
    joins: dict[str, int] = field(default_factory=dict)  # join class → pulls among those listed

    @property
    def results(self) -> list[str]:
        return list(self.totals)

    @property
    def outcome_total(self) -> int:
        return sum(self.totals.values())

    @property
    def recall_misses(self) -> list[PullRow]:
        return [pull for pull in self.pulls if pull.join == Join.RECALL_MISS]

    @property
    def out_of_band(self) -> list[PullRow]:
        return [pull for pull in self.pulls if pull.out_of_band]

    @property
    def hidden_pulls(self) -> int:
        return self.pull_total - self.refused - len(self.pulls)

    @property
    def empty(self) -> bool:
        return not self.totals and not self.pull_total


def way_decisions(way_id: str, *, present: bool) -> WayDecisions:
    """The way's outcomes, near misses and pulls; `present` says whether a decision log was imported
    (the caller asks once for every source kind)."""
    if not present:
        return WayDecisions(present=False)
    out = WayDecisions(present=True)
    outcomes = DecisionOutcome.objects.filter(way=way_id)
    by_week = Counter[tuple[date | None, str]]()
    for week, result, count in (
        outcomes.annotate(week=TruncWeek("record__ts"))
        .values_list("week", "result")
        .annotate(n=Count("pk"))
        .order_by()
    ):
        by_week[(week.date() if week else None, result)] += count
    result_counts = Counter[str]()
    for (_, result), count in by_week.items():
        result_counts[result] += count
    known = {result: n for result, n in enumerate(RESULTS)}
    order = sorted(result_counts, key=lambda r: (-result_counts[r], known.get(r, len(RESULTS)), r))
    out.totals = {result: result_counts[result] for result in order}
    out.undated = sum(count for (week, _), count in by_week.items() if week is None)
    out.weeks, out.weeks_truncated = result_weeks(by_week, order)
    near_miss_rows(out, outcomes.filter(result="near_miss"))
    way_pulls(out, way_id)
    return out


def result_weeks(
    by_week: Counter[tuple[date | None, str]], order: list[str]
) -> tuple[list[ResultWeek], bool]:
    """Weeks with an outcome, newest first, at most WEEK_LIMIT (a gap of weeks is no row: a table)."""
    weeks = sorted({week for week, _ in by_week if week is not None}, reverse=True)
    shown = weeks[:WEEK_LIMIT]
    rows = [ResultWeek(week, tuple(by_week.get((week, result), 0) for result in order)) for week in shown]
    return rows, len(weeks) > len(shown)


def near_miss_rows(out: WayDecisions, near) -> None:
    """The newest near misses (NEAR_MISS_LIMIT), their count and mean shortfall (over those that carry one)."""
    shortfalls = list(near.values_list("shortfall", flat=True))
    out.near_miss_total, out.mean_shortfall = len(shortfalls), mean_shortfall(shortfalls)
    newest = near.select_related("record").order_by(*(f"-record__{name}" for name in STREAM_ORDER))
    out.near_misses = [
        NearMissRow(
            o.record.ts_raw,
            o.record.session_key,
            o.record.session_id is not None,
            o.record.scan_id or "",
            o.shortfall,
            o.prob_en,
            o.tau_s,
            o.channel,
        )
        for o in newest[:NEAR_MISS_LIMIT]
    ]


def mean_shortfall(shortfalls: list[float | None]) -> float | None:
    """The mean of the shortfalls that are set, from their exact sum: a database's AVG adds floats in
    the order it reads the rows, and a mean on a rounding boundary (0.0645) then printed 0.065 or
    0.064 from one import to the next; math.fsum rounds once, whatever the order."""
    carried = [value for value in shortfalls if value is not None]
    return math.fsum(carried) / len(carried) if carried else None


def way_pulls(out: WayDecisions, way_id: str) -> None:
    """The way's newest pulls, classified by the rules over their sessions' records."""
    pulls = DecisionRecord.objects.filter(kind=DecisionRecord.Kind.PULL, way=way_id)
    refused = ~Q(reason=None) & ~Q(reason=SERVED_UNSTAMPED)
    summary = pulls.aggregate(
        n=Count("pk"),
        refused=Count("pk", filter=refused),
        out_of_band=Count("pk", filter=Q(out_of_band=True)),
    )
    out.pull_total, out.refused = summary["n"], summary["refused"]
    out.out_of_band_total = summary["out_of_band"]
    newest = list(
        pulls.exclude(refused)
        .order_by(*(f"-{name}" for name in STREAM_ORDER))
        .values_list("pk", "session_key", "session_id")[:PULL_LIMIT]
    )
    if not newest:
        return
    wanted = {pk for pk, _, _ in newest}
    sessions = {key for _, key, _ in newest}
    linked = {key for _, key, sid in newest if sid is not None}
    records = (
        DecisionRecord.objects.filter(session_key__in=sessions)
        .order_by(*STREAM_ORDER)
        .values_list("pk", "kind", "raw")
    )
    pull_pks: list[int] = []
    lines: list[str] = []
    for pk, kind, raw in records.iterator(chunk_size=2000):
        lines.append(raw)
        if kind == DecisionRecord.Kind.PULL:
            pull_pks.append(pk)
    joined: list[Joined] = []
    # Every stored record is one upstream reads, and the rules judge each pull as it arrives: the
    # n-th Joined is the n-th pull record.
    group(Records(lines), lambda item: joined.append(item) if isinstance(item, Joined) else None)
    rows = []
    for pk, item in zip(pull_pks, joined, strict=True):
        if pk in wanted:
            pull = item.pull
            rows.append(
                PullRow(
                    pull.ts,
                    pull.session,
                    pull.session in linked,
                    pull.agent,
                    pull.window,
                    pull.out_of_band,
                    pull.scan_id,
                    item.join.value,
                )
            )
    rows.reverse()  # newest first, as the other lists of the page
    out.pulls = rows
    out.joins = dict(Counter(row.join for row in rows).most_common())
