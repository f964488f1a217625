"""Re-disclosures and their token distance from the injection before them, within one compaction
window (introspect/queries/redisclosures.py)."""

from __future__ import annotations

import pytest

from introspect.models import TurnWay
from introspect.queries import redisclosures as way_queries
from tests.introspect.ways_home import imported

pytestmark = pytest.mark.django_db


def test_it_measures_redisclosure_distance_within_a_window(home):
    imported(home)
    latest, earlier = way_queries.redisclosure_distances(TurnWay.objects.filter(way_id="d/a"))
    # Window 2: the keyword fire at 2000 tokens, then a re-disclosure with no token position.
    assert (latest.window, latest.epoch, latest.previous_epoch, latest.token_position) == (2, 6, 5, 0)
    assert latest.distance is None and latest.why_no_distance == "token position not recorded (0)"
    # Window 1: the semantic fire at 1000 tokens, re-disclosed at 31000.
    assert (earlier.window, earlier.epoch, earlier.previous_epoch, earlier.distance) == (1, 2, 1, 30000)


def test_a_redisclosures_distance_needs_an_earlier_injection_and_both_token_positions():
    def redisclosure(previous_epoch, previous_position, position):
        return way_queries.Redisclosure("s", 1, 3, None, position, previous_epoch, previous_position)

    measured = redisclosure(2, 1000, 31000)
    assert (measured.distance, measured.why_no_distance) == (30000, "")
    first = redisclosure(None, None, 31000)
    assert (first.distance, first.why_no_distance) == (None, "no earlier injection in this window")
    unrecorded = redisclosure(2, 0, 31000)
    assert (unrecorded.distance, unrecorded.why_no_distance) == (None, "token position not recorded (0)")
