"""Near-misses of a way: `way_nearmiss` events as the way page and the session page show them.

Scores follow formats-agent-ways.md §8: calibrated probabilities (`prob_*`, `tau_s`) and raw
scores from before ADR-156 (`score_*`, `thr_*`) are never compared with each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from introspect.models import WaysEvent

NEAR_MISS_LIMIT = 200


@dataclass(frozen=True)
class NearMiss:
    """A `way_nearmiss`: calibrated (`prob_*` vs `tau_s`) or raw (`score_*` vs `thr_*`), never mixed."""

    ts: datetime | None
    ts_raw: str
    sid: str
    surface: str
    schema_gen: str
    margin: float | None
    prob_en: float | None = None
    prob_multi: float | None = None
    tau_s: float | None = None
    score_en: float | None = None
    score_multi: float | None = None
    thr_en: float | None = None
    thr_multi: float | None = None
    way: str | None = None  # the event's own field, printed as it is

    @property
    def calibrated(self) -> bool:
        return self.schema_gen == "calibrated"

    @property
    def raw(self) -> bool:
        """Scored before ADR-156: a raw `score_*` against a per-model `thr_*`, no probability."""
        return self.schema_gen == "raw_score"

    @property
    def score(self) -> float | None:
        """The raw score shown for it: the English model's, else the multilingual one's."""
        return self.score_en if self.score_en is not None else self.score_multi

    @property
    def threshold(self) -> float | None:
        return self.thr_en if self.thr_en is not None else self.thr_multi

    @property
    def shown_probability(self) -> float | None:
        """The probability shown beside τ: the English model's, else the multilingual one's."""
        return self.prob_en if self.prob_en is not None else self.prob_multi

    @property
    def probability(self) -> float | None:
        """The probability that fell short: the highest one under τ, else τ − margin."""
        if not self.calibrated:
            return None
        probs = [p for p in (self.prob_en, self.prob_multi) if p is not None]
        below = [p for p in probs if self.tau_s is None or p < self.tau_s]
        if below:
            return max(below)
        if self.tau_s is not None and self.margin is not None:
            return round(self.tau_s - self.margin, 4)
        return max(probs) if probs else None

    @property
    def generation_label(self) -> str:
        if self.schema_gen == "calibrated":
            return "calibrated probability"
        if self.raw:
            return "raw score, before ADR-156"
        return "no score recorded"


def near_miss(event: WaysEvent, sid: str) -> NearMiss:
    """A `way_nearmiss` event of session `sid` as the pages show it."""
    return NearMiss(
        ts=event.ts,
        ts_raw=event.ts_raw or "",
        sid=sid,
        surface=event.trigger or "",
        schema_gen=event.schema_gen or "",
        margin=event.margin,
        prob_en=event.prob_en,
        prob_multi=event.prob_multi,
        tau_s=event.tau_s,
        score_en=event.score_en,
        score_multi=event.score_multi,
        thr_en=event.thr_en,
        thr_multi=event.thr_multi,
        way=event.way,
    )


def near_misses(way_id: str) -> tuple[list[NearMiss], list[NearMiss]]:
    """The latest near-misses, split by generation: (calibrated, raw-score or unscored)."""
    calibrated, raw = [], []
    for event in (
        WaysEvent.objects.filter(event="way_nearmiss", way=way_id)
        .select_related("session")
        .order_by("-ts_raw", "-pk")[:NEAR_MISS_LIMIT]
    ):
        miss = near_miss(event, event.session.sid if event.session else (event.session_key or ""))
        (calibrated if miss.calibrated else raw).append(miss)
    return calibrated, raw
