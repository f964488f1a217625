"""The replay's inputs: the token timeline read at a frame's second (introspection.md §8 step 2)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from introspect.documents import replay_items

BASE = datetime(2026, 1, 1, tzinfo=UTC)


def test_the_bisected_timeline_reads_what_the_walk_reads_even_when_time_goes_back():
    rng = random.Random(7)
    for _ in range(200):
        entries = [(BASE + timedelta(seconds=rng.randrange(0, 60)), rng.randrange(0, 900)) for _ in range(12)]
        timeline = replay_items.Timeline.of(entries)
        for second in range(-1, 62):
            at_second = BASE + timedelta(seconds=second)
            assert timeline.k_at(at_second) == replay_items.token_k_at(entries, at_second)
    assert replay_items.Timeline.of([]).k_at(BASE) == 0
