"""The way detail page: everything shown about one way id, gathered from the modules beside it.

A fixed number of queries (about ten) whatever the number of sessions; lists are capped and say so.
"""

from __future__ import annotations

from dataclasses import dataclass

from introspect.models import TurnWay, Way
from introspect.queries.near_misses import NearMiss, near_misses
from introspect.queries.redisclosures import Redisclosure, redisclosure_distances
from introspect.queries.way_counts import (
    ChannelMix,
    Counts,
    SessionFires,
    WeekBucket,
    channel_mix,
    fires_per_week,
    sessions_for_way,
    way_counts,
)
from introspect.queries.way_files import Criterion, WayFileRow, criteria_rows, way_files
from introspect.queries.way_scores import ScorePoint, score_points, threshold


@dataclass
class WayStats:
    """Everything the way page shows about one way id."""

    way_id: str
    files: list[WayFileRow]
    primary: Way | None
    criteria: list[Criterion]
    counts: Counts
    weeks: list[WeekBucket]
    weeks_truncated: bool
    channels: list[ChannelMix]
    sessions: list[SessionFires]
    session_total: int
    near_misses: list[NearMiss]
    raw_near_misses: list[NearMiss]
    score_points: list[ScorePoint]
    fire_score_total: int
    tau: float
    tau_note: str
    redisclosures: list[Redisclosure]

    @property
    def domain(self) -> str:
        return self.way_id.split("/", 1)[0]

    @property
    def known(self) -> bool:
        """A file was read with this id, or an event names it: anything else is a 404."""
        return bool(self.files) or self.counts.events > 0 or self.counts.rows > 0

    @property
    def file_state(self) -> str:
        if any(row.way.present for row in self.files):
            return "present"
        return "gone" if self.files else "none"

    @property
    def changed_after_last_fire(self) -> bool:
        """Today's file changed after the last fire: the criteria shown may not be those that fired."""
        # The first version's `changed_at` is only when waysweb first read the file; a later
        # version's is when its content was first seen, which is the evidence of a change.
        last = self.counts.last_fired
        versions = getattr(self.primary, "version_count", 0)
        return bool(self.primary and last and versions > 1 and self.primary.changed_at > last)

    @property
    def plotted_near_misses(self) -> int:
        return sum(1 for point in self.score_points if point.kind == "near-miss")


def way_stats(way_id: str) -> WayStats:
    """One way's files, fires, channels, sessions, near-misses, scores and re-disclosure distances.

    A fixed number of queries (about ten) whatever the number of sessions; lists are capped
    (`SESSION_LIMIT`, `NEAR_MISS_LIMIT`, `SERIES_LIMIT`, `REDISCLOSURE_LIMIT`) and say so.
    """
    files, primary = way_files(way_id)
    rows = TurnWay.objects.filter(way_id=way_id)
    counts = way_counts(way_id, rows)
    weeks, truncated = fires_per_week(rows)
    near, raw = near_misses(way_id)
    points, fire_total = score_points(rows, near)
    tau, tau_note = threshold(near)
    return WayStats(
        way_id=way_id,
        files=files,
        primary=primary,
        criteria=criteria_rows(primary) if primary else [],
        counts=counts,
        weeks=weeks,
        weeks_truncated=truncated,
        channels=channel_mix(rows),
        sessions=sessions_for_way(rows),
        session_total=rows.values("turn__session").distinct().count(),
        near_misses=near,
        raw_near_misses=raw,
        score_points=points,
        fire_score_total=fire_total,
        tau=tau,
        tau_note=tau_note,
        redisclosures=redisclosure_distances(rows),
    )
