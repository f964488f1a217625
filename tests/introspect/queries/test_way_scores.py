"""The score chart's τ: the one the near-misses recorded, else the default
(introspect/queries/way_scores.py)."""

from __future__ import annotations

from introspect.queries import way_scores as way_queries
from introspect.rules.evidence import TAU_S
from tests.introspect.queries.test_near_misses import miss


def test_tau_is_the_one_the_near_misses_recorded_else_the_default():
    tau, note = way_queries.threshold([])
    assert tau == TAU_S and "default" in note
    assert way_queries.threshold([miss(schema_gen="calibrated", margin=None, tau_s=0.45)]) == (
        0.45,
        "τ 0.45 as the near-misses recorded it",
    )
    mixed = [miss(schema_gen="calibrated", margin=None, tau_s=t) for t in (0.5, 0.45, 0.5, None)]
    assert way_queries.threshold(mixed) == (0.5, "τ 0.5 as most near-misses recorded it; some recorded 0.45")
