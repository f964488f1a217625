"""agent-ways `ways tune stats`, its decisions section (`cmd/stats/decisions.rs` @906894e9), to the letter.

`report` streams the records through `decision_turns.group` and counts as it goes:
- turns by `turn_start` scan, per calendar day of the opening scan's ts (a ts without a date is
  counted but has no day); the scans of counted turns plus orphan scans; per way, its outcomes by result;
- the judge: `judged`/`fallback` scans, scans and ways the cap left unjudged, and verdicts: an outcome's
  `verdict` `pass`/`would_block`/`block`, else a `judge_block` result counts as a block (an ancestor block
  is no verdict of the judge's);
- near misses per way with their mean shortfall (over the near misses that carry one), top 10;
- pulls: a refused pull (a `reason` other than `no refire curve`) counts only as refused; any other
  counts out of band when it is, and by its join class.
`--project P` keeps turns opened in P (or under it), orphan scans in P, and pulls whose named scan is
in P; `records` and `skipped_lines` count the whole window whatever the project.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from introspect.rules.agent_fmt_when import DAY_SECS, parse_utc_iso, utc_date, utc_iso
from introspect.rules.decision_reader import Records, Window
from introspect.rules.decision_records import Scan
from introspect.rules.decision_turns import Join, Joined, Orphan, Turn, group
from introspect.rules.project_scope import in_project
from introspect.rules.rust_json import round4

RESULTS = (
    "fired",
    "redisclosed",
    "held_refire",
    "held_context_cap",
    "keyword_gated",
    "near_miss",
    "judge_block",
    "ancestor_block",
    "withheld_for_parent",
    "stashed",
)
SERVED_UNSTAMPED = "no refire curve"
TOP = 10


@dataclass(slots=True)
class TurnsPerDay:
    days: int = 0
    mean: float = 0.0
    median: float = 0.0
    p90: int = 0


@dataclass(slots=True)
class JudgeTally:
    judged_scans: int = 0
    fallback_scans: int = 0
    capped_scans: int = 0
    capped_ways: int = 0
    pass_: int = 0
    block: int = 0
    would_block: int = 0

    @property
    def verdicts(self) -> int:
        return self.pass_ + self.block + self.would_block

    def rate(self, n: int) -> float:
        total = self.verdicts
        return 0.0 if total == 0 else n / total


@dataclass(slots=True)
class PullTally:
    total: int = 0
    refused: int = 0
    null_scan_id: int = 0
    unjoined: int = 0
    recall_miss: int = 0
    delivered: int = 0
    out_of_band: int = 0
    recall_miss_by_way: list[tuple[str, int]] = field(default_factory=list)
    out_of_band_by_way: list[tuple[str, int]] = field(default_factory=list)


@dataclass(slots=True)
class DecisionsReport:
    records: int = 0
    skipped: int = 0
    turns: int = 0
    turns_per_day: TurnsPerDay = field(default_factory=TurnsPerDay)
    scans: int = 0
    orphan_scans: int = 0
    by_way: list[tuple[str, dict[str, int]]] = field(default_factory=list)  # results sorted by name
    judge: JudgeTally = field(default_factory=JudgeTally)
    near_miss_leaders: list[tuple[str, int, float]] = field(default_factory=list)
    pulls: PullTally = field(default_factory=PullTally)
    rejected: dict[str, int] = field(default_factory=dict)  # waysweb's: skipped lines by reason


def ranked(counts: dict[str, int]) -> list[tuple[str, int]]:
    """A count table, most first, ties by name."""
    return sorted(counts.items(), key=lambda row: (-row[1], row[0]))


def _day_key(ts: str) -> str | None:
    # Rust's `ts.get(..10)`: ten bytes, on a character boundary, that parse as a date.
    head = ts.encode()[:10]
    if len(head) < 10:
        return None
    try:
        day = head.decode()
    except UnicodeDecodeError:
        return None
    return day if parse_utc_iso(f"{day}T00:00:00Z") is not None else None


class _Acc:
    def __init__(self, project: str | None) -> None:
        self.project = project
        self.by_day: dict[str, int] = defaultdict(int)
        self.turns = 0
        self.scans = 0
        self.orphan_scans = 0
        self.by_way: dict[str, dict[str, int]] = {}
        self.judge = JudgeTally()
        self.near: dict[str, list] = {}  # way -> [count, shortfall sum, with shortfall]
        self.pulls = PullTally()
        self.miss_by_way: dict[str, int] = defaultdict(int)
        self.oob_by_way: dict[str, int] = defaultdict(int)

    def in_project(self, project: str) -> bool:
        return self.project is None or in_project(project, self.project)

    def scan(self, scan: Scan) -> None:
        if not self.in_project(scan.project):
            return
        self.scans += 1
        judge = self.judge
        for outcome in scan.outcomes:
            results = self.by_way.setdefault(outcome.way, {})
            results[outcome.result] = results.get(outcome.result, 0) + 1
            verdict = outcome.verdict
            if verdict == "pass":
                judge.pass_ += 1
            elif verdict == "would_block":
                judge.would_block += 1
            elif verdict == "block" or outcome.result == "judge_block":
                judge.block += 1
            if outcome.result == "near_miss":
                entry = self.near.setdefault(outcome.way, [0, 0.0, 0])
                entry[0] += 1
                if outcome.shortfall is not None:
                    entry[1] += outcome.shortfall
                    entry[2] += 1
        if scan.judge is not None:
            if scan.judge.status == "judged":
                judge.judged_scans += 1
            elif scan.judge.status == "fallback":
                judge.fallback_scans += 1
            if scan.judge.capped:
                judge.capped_scans += 1
                judge.capped_ways += len(scan.judge.capped)

    def turn(self, turn: Turn) -> None:
        if not self.in_project(turn.start.project):
            return
        self.turns += 1
        day = _day_key(turn.start.ts)
        if day is not None:
            self.by_day[day] += 1
        for scan in turn.all_scans():
            self.scan(scan)

    def orphan(self, scan: Scan) -> None:
        if self.in_project(scan.project):
            self.orphan_scans += 1
        self.scan(scan)

    def pull(self, joined: Joined) -> None:
        if self.project is not None and not (joined.project is not None and self.in_project(joined.project)):
            return
        pull, tally = joined.pull, self.pulls
        tally.total += 1
        if pull.reason is not None and pull.reason != SERVED_UNSTAMPED:
            tally.refused += 1
            return
        if pull.out_of_band:
            tally.out_of_band += 1
            self.oob_by_way[pull.way] += 1
        if joined.join is Join.DELIVERED:
            tally.delivered += 1
        elif joined.join is Join.RECALL_MISS:
            tally.recall_miss += 1
            self.miss_by_way[pull.way] += 1
        elif joined.join is Join.NO_SCAN_ID:
            tally.null_scan_id += 1
        else:
            tally.unjoined += 1

    def finish(self, span: tuple[int, int] | None, records: Records) -> DecisionsReport:
        by_way = sorted(
            ((way, dict(sorted(results.items()))) for way, results in self.by_way.items()),
            key=lambda row: (-sum(row[1].values()), row[0]),
        )
        near = sorted(
            ((way, n, 0.0 if with_ == 0 else total / with_) for way, (n, total, with_) in self.near.items()),
            key=lambda row: (-row[1], row[0]),
        )[:TOP]
        self.pulls.recall_miss_by_way = ranked(self.miss_by_way)
        self.pulls.out_of_band_by_way = ranked(self.oob_by_way)
        return DecisionsReport(
            records=records.read,
            skipped=records.skipped,
            turns=self.turns,
            turns_per_day=turns_per_day(self.by_day, span),
            scans=self.scans,
            orphan_scans=self.orphan_scans,
            by_way=by_way,
            judge=self.judge,
            near_miss_leaders=near,
            pulls=self.pulls,
            rejected=dict(sorted(records.rejected.items())),
        )


def turns_per_day(by_day: dict[str, int], span: tuple[int, int] | None) -> TurnsPerDay:
    """Turns per calendar day over `span` (first and last second, inclusive), else over the first to the
    last day that had a turn; a day with no turn counts as zero; p90 by nearest rank."""
    if span is None and by_day:
        keys = sorted(by_day)
        first = parse_utc_iso(f"{keys[0]}T00:00:00Z")
        last = parse_utc_iso(f"{keys[-1]}T00:00:00Z")
        span = (first, last) if first is not None and last is not None else None
    if span is None:
        return TurnsPerDay()
    first, last = span
    counts = []
    day = first // DAY_SECS * DAY_SECS
    while day <= last:
        counts.append(by_day.get(utc_date(day), 0))
        day += DAY_SECS
    if not counts:
        return TurnsPerDay()
    n = len(counts)
    mean = sum(counts) / n
    counts.sort()
    median = float(counts[n // 2]) if n % 2 == 1 else (counts[n // 2 - 1] + counts[n // 2]) / 2
    p90 = counts[max(-(-n * 9 // 10), 1) - 1]
    return TurnsPerDay(n, mean, median, p90)


def days_window(days: int | None, now: int) -> tuple[Window, tuple[int, int] | None]:
    """`--days d` at Unix second `now`: from 00:00 UTC of the first of the `d` calendar days ending today,
    with no upper end, and the calendar from that midnight to now. Without it every record, and a
    calendar spanning the days that had a turn."""
    if days is None:
        return Window(), None
    start = max(now // DAY_SECS - (max(days, 1) - 1), 0) * DAY_SECS
    return Window(since=utc_iso(start)), (start, now)


def report(
    lines: Iterable[bytes | str],
    *,
    window: Window | None = None,
    project: str | None = None,
    span: tuple[int, int] | None = None,
) -> DecisionsReport:
    """The decisions section over `lines` (every source's lines, in source order)."""
    records = Records(lines, window)
    acc = _Acc(project)

    def take(item: Turn | Orphan | Joined) -> None:
        if isinstance(item, Turn):
            acc.turn(item)
        elif isinstance(item, Orphan):
            acc.orphan(item.scan)
        else:
            acc.pull(item)

    group(records, take)
    return acc.finish(span, records)


def json_value(report: DecisionsReport | None) -> dict:
    """The section as upstream's `json_value` builds it (key order included); `None` is no decision log."""
    if report is None:
        return {"present": False}
    judge, pulls, per_day = report.judge, report.pulls, report.turns_per_day
    return {
        "present": True,
        "records": report.records,
        "skipped_lines": report.skipped,
        "turns": report.turns,
        "turns_per_day": {
            "days": per_day.days,
            "mean": round4(per_day.mean),
            "median": float(per_day.median),
            "p90": per_day.p90,
        },
        "scans": report.scans,
        "orphan_scans": report.orphan_scans,
        "by_way": dict(report.by_way),
        "judge": {
            "judged_scans": judge.judged_scans,
            "fallback_scans": judge.fallback_scans,
            "capped_scans": judge.capped_scans,
            "capped_ways": judge.capped_ways,
            "verdicts": judge.verdicts,
            "pass": judge.pass_,
            "block": judge.block,
            "would_block": judge.would_block,
            "pass_rate": round4(judge.rate(judge.pass_)),
            "block_rate": round4(judge.rate(judge.block)),
            "would_block_rate": round4(judge.rate(judge.would_block)),
        },
        "near_miss_leaders": [
            {"way": way, "near_miss": n, "mean_shortfall": round4(shortfall)}
            for way, n, shortfall in report.near_miss_leaders
        ],
        "pulls": {
            "total": pulls.total,
            "refused": pulls.refused,
            "null_scan_id": pulls.null_scan_id,
            "unjoined": pulls.unjoined,
            "recall_miss": pulls.recall_miss,
            "delivered": pulls.delivered,
            "out_of_band": pulls.out_of_band,
            "recall_miss_by_way": dict(pulls.recall_miss_by_way),
            "out_of_band_by_way": dict(pulls.out_of_band_by_way),
        },
    }
