"""What counts as a fire of a way, and one way's counts: outcomes, weeks, channels, sessions.

Counting follows introspection.md §7: only injected rows (neither gated nor suppressed) are fires;
re-disclosures are injected too but are counted apart; gated, suppressed and judge-blocked rows are
never fires. Everything is aggregated in the database, a fixed number of queries per way.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.db.models import Count, Max, Min, Q
from django.db.models.functions import TruncWeek

from introspect.models import WaysEvent

SESSION_LIMIT = 100
WEEK_LIMIT = 104

INJECTED = Q(gated=False, suppressed="")
FIRST_FIRE = INJECTED & Q(redisclosed=False)
REDISCLOSED = INJECTED & Q(redisclosed=True)
WITHHELD = Q(gated=True) | ~Q(suppressed="")


@dataclass
class Counts:
    rows: int = 0
    fires: int = 0
    redisclosures: int = 0
    gated: int = 0
    suppressed_refire: int = 0
    suppressed_cap: int = 0
    suppressed_other: int = 0
    judge_blocked: int = 0
    events: int = 0
    near_misses: int = 0
    judged_pass: int = 0
    judged_would_block: int = 0
    first_fired: datetime | None = None
    last_fired: datetime | None = None


@dataclass(frozen=True)
class WeekBucket:
    """One ISO week (Monday start): injected first fires and re-disclosures, apart."""

    start: date
    fires: int
    redisclosures: int

    @property
    def label(self) -> str:
        year, week, _ = self.start.isocalendar()
        return f"{year}-W{week:02d}"


@dataclass(frozen=True)
class ChannelMix:
    channel: str
    total: int
    fires: int
    redisclosures: int
    withheld: int


@dataclass(frozen=True)
class SessionFires:
    """A session where the way appears in a turn, with links to its first and last turn."""

    sid: str
    project: str
    project_path: str
    fires: int
    redisclosures: int
    withheld: int
    first_epoch: int
    last_epoch: int
    first_ts: datetime | None
    last_ts: datetime | None


def way_counts(way_id: str, rows) -> Counts:
    """Turn-row counts by outcome, plus event counts (near-misses, judge verdicts): two queries."""
    # Aliases must not shadow field names (`gated`), or Django reads them as aggregates.
    totals = rows.aggregate(
        n_rows=Count("pk"),
        n_fires=Count("pk", filter=FIRST_FIRE),
        n_redisclosures=Count("pk", filter=REDISCLOSED),
        n_gated=Count("pk", filter=Q(gated=True)),
        n_suppressed_refire=Count("pk", filter=Q(gated=False, suppressed="refire")),
        n_suppressed_cap=Count("pk", filter=Q(gated=False, suppressed="context_cap")),
        n_suppressed_other=Count(
            "pk", filter=Q(gated=False) & ~Q(suppressed__in=["", "refire", "context_cap", "judge"])
        ),
        n_judge_blocked=Count("pk", filter=Q(suppressed="judge")),
        n_first_fired=Min("event__ts", filter=INJECTED),
        n_last_fired=Max("event__ts", filter=INJECTED),
    )
    events = WaysEvent.objects.filter(way=way_id).aggregate(
        n_events=Count("pk"),
        n_near_misses=Count("pk", filter=Q(event="way_nearmiss")),
        n_judged_pass=Count("pk", filter=Q(event="way_judged", verdict="pass")),
        n_judged_would_block=Count("pk", filter=Q(event="way_judged", verdict="would_block")),
    )
    return Counts(**{key.removeprefix("n_"): value for key, value in (totals | events).items()})


def fires_per_week(rows) -> tuple[list[WeekBucket], bool]:
    """Injected first fires and re-disclosures per ISO week, empty weeks filled in (at most two years)."""
    found = {
        item["week"].date(): (item["fires"], item["re"])
        for item in rows.filter(INJECTED, event__ts__isnull=False)
        .annotate(week=TruncWeek("event__ts"))
        .values("week")
        .annotate(fires=Count("pk", filter=Q(redisclosed=False)), re=Count("pk", filter=Q(redisclosed=True)))
        .order_by("week")
    }
    if not found:
        return [], False
    first, last = min(found), max(found)
    count = (last - first).days // 7 + 1
    truncated = count > WEEK_LIMIT
    if truncated:
        first, count = last - timedelta(weeks=WEEK_LIMIT - 1), WEEK_LIMIT
    weeks = []
    # Counted, not stepped past `last`: the week after one in the year 9999 is not in the calendar.
    for n in range(count):
        current = first + timedelta(weeks=n)
        fires, re = found.get(current, (0, 0))
        weeks.append(WeekBucket(start=current, fires=fires, redisclosures=re))
    return weeks, truncated


def channel_mix(rows) -> list[ChannelMix]:
    """Rows per trigger channel (synthetic `keyword:gated` and `judge` included), most used first."""
    return [
        ChannelMix(
            channel=item["trigger_channel"],
            total=item["total"],
            fires=item["fires"],
            redisclosures=item["re"],
            withheld=item["withheld"],
        )
        for item in rows.values("trigger_channel")
        .annotate(
            total=Count("pk"),
            fires=Count("pk", filter=FIRST_FIRE),
            re=Count("pk", filter=REDISCLOSED),
            withheld=Count("pk", filter=WITHHELD),
        )
        .order_by("-total", "trigger_channel")
    ]


def sessions_for_way(rows) -> list[SessionFires]:
    """Sessions where the way appears in a turn, latest first, with first/last turn of injection."""
    out = []
    for item in (
        rows.values(
            "turn__session__sid",
            "turn__session__project__name",
            "turn__session__project__path",
            "turn__session__recorded_project",
        )
        .annotate(
            fires=Count("pk", filter=FIRST_FIRE),
            re=Count("pk", filter=REDISCLOSED),
            withheld=Count("pk", filter=WITHHELD),
            first_injected=Min("turn__epoch", filter=INJECTED),
            last_injected=Max("turn__epoch", filter=INJECTED),
            first_any=Min("turn__epoch"),
            last_any=Max("turn__epoch"),
            first_ts=Min("turn__ts"),
            last_ts=Max("turn__ts"),
        )
        .order_by("-last_ts", "turn__session__sid")[:SESSION_LIMIT]
    ):
        path = item["turn__session__project__path"] or item["turn__session__recorded_project"] or ""
        out.append(
            SessionFires(
                sid=item["turn__session__sid"],
                project=item["turn__session__project__name"] or path,
                project_path=path,
                fires=item["fires"],
                redisclosures=item["re"],
                withheld=item["withheld"],
                first_epoch=item["first_injected"] or item["first_any"],
                last_epoch=item["last_injected"] or item["last_any"],
                first_ts=item["first_ts"],
                last_ts=item["last_ts"],
            )
        )
    return out
