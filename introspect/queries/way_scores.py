"""The score chart of a way: semantic fire scores and calibrated near-misses against τ.

Raw scores from before ADR-156 are never plotted: their scale is not the calibrated one
(formats-agent-ways.md §8).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from introspect.queries.near_misses import NearMiss
from introspect.queries.way_counts import INJECTED
from introspect.rules.evidence import TAU_S

SERIES_LIMIT = 500


@dataclass(frozen=True)
class ScorePoint:
    """One point of the score chart: a semantic fire's `fire_score` or a calibrated near-miss."""

    ts: datetime
    value: float
    kind: str  # fire, redisclosure, near-miss
    sid: str
    epoch: int | None = None
    channel: str = ""


def score_points(rows, near: list[NearMiss]) -> tuple[list[ScorePoint], int]:
    """Semantic fire scores (calibrated `g(s)`) and calibrated near-misses, oldest first.

    Raw-score near-misses are never points here: their scale is not the calibrated one.
    """
    scored = rows.filter(INJECTED, fire_score__isnull=False, event__ts__isnull=False)
    points = [
        ScorePoint(
            ts=item["event__ts"],
            value=item["fire_score"],
            kind="redisclosure" if item["redisclosed"] else "fire",
            sid=item["turn__session__sid"],
            epoch=item["turn__epoch"],
            channel=item["trigger_channel"],
        )
        for item in scored.order_by("-event__ts", "-pk").values(
            "event__ts",
            "fire_score",
            "redisclosed",
            "turn__session__sid",
            "turn__epoch",
            "trigger_channel",
        )[:SERIES_LIMIT]
    ]
    total = scored.count() if len(points) == SERIES_LIMIT else len(points)
    points += [
        ScorePoint(ts=miss.ts, value=miss.probability, kind="near-miss", sid=miss.sid, channel=miss.surface)
        for miss in near
        if miss.ts is not None and miss.probability is not None
    ]
    points.sort(key=lambda point: point.ts)
    return points, total


def threshold(near: list[NearMiss]) -> tuple[float, str]:
    """τ for the chart: the τ_s the near-misses recorded, else the 0.5 default."""
    seen = Counter(miss.tau_s for miss in near if miss.tau_s is not None)
    if not seen:
        return TAU_S, f"τ {TAU_S} is the default semantic_fire_probability; no near-miss recorded another"
    tau, _ = seen.most_common(1)[0]
    if len(seen) > 1:
        others = ", ".join(f"{value:g}" for value in sorted(seen) if value != tau)
        return tau, f"τ {tau:g} as most near-misses recorded it; some recorded {others}"
    return tau, f"τ {tau:g} as the near-misses recorded it"
