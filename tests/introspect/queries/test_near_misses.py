"""Near-misses as formats-agent-ways.md §8 scores them: calibrated probabilities and raw scores
never compared (introspect/queries/near_misses.py)."""

from __future__ import annotations

import pytest

from introspect.queries import near_misses as way_queries
from tests.introspect.ways_home import S1, S2, imported


def miss(**fields) -> way_queries.NearMiss:
    return way_queries.NearMiss(ts=None, ts_raw="", sid="s", surface="prompt", **fields)


def test_a_calibrated_near_miss_shows_the_probability_that_fell_short():
    calibrated = {"schema_gen": "calibrated"}
    assert miss(**calibrated, margin=0.03, prob_en=0.47, prob_multi=0.41, tau_s=0.5).probability == 0.47
    # No probability under τ (the one that fell short was not logged): τ − margin.
    assert miss(**calibrated, margin=0.02, prob_en=0.6, tau_s=0.5).probability == 0.48
    assert miss(**calibrated, margin=0.1, tau_s=0.5).probability == 0.4
    assert miss(**calibrated, margin=None, prob_en=0.3, prob_multi=0.4).probability == 0.4  # no τ logged
    assert miss(**calibrated, margin=None).probability is None


def test_a_raw_score_near_miss_has_no_probability_and_says_its_generation():
    raw = miss(schema_gen="raw_score", margin=0.019, score_en=0.441, thr_en=0.46)
    assert (raw.calibrated, raw.probability, raw.generation_label) == (
        False,
        None,
        "raw score, before ADR-156",
    )
    assert miss(schema_gen="calibrated", margin=None).generation_label == "calibrated probability"
    assert miss(schema_gen="", margin=None).generation_label == "no score recorded"


@pytest.mark.django_db
def test_a_ways_near_misses_come_apart_by_generation_with_their_session(home):
    imported(home)
    calibrated, raw = way_queries.near_misses("d/a")
    assert [(m.sid, m.calibrated, m.shown_probability) for m in calibrated] == [(S1, True, 0.4791)]
    assert [(m.sid, m.raw, m.score) for m in raw] == [(S2, True, 0.441)]
