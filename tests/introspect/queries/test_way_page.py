"""The way detail page's record of one way id: known when a file was read or an event names it
(introspect/queries/way_page.py). What the page prints of it: tests/introspect/views/test_ways.py."""

from __future__ import annotations

import pytest

from introspect.models import Way
from introspect.queries import way_page as way_queries
from tests.introspect.ways_home import way_file

pytestmark = pytest.mark.django_db


def test_a_way_whose_files_are_all_gone_shows_the_last_read_and_is_still_known():
    gone = way_file("d/w", Way.RootKind.CORE, "/core", present=False)
    stats = way_queries.way_stats("d/w")
    assert (stats.primary, stats.file_state, stats.known) == (gone, "gone", True)


def test_a_way_never_read_nor_named_by_an_event_is_unknown():
    stats = way_queries.way_stats("never/seen")
    assert (stats.known, stats.file_state, stats.primary, stats.criteria) == (False, "none", None, [])
    assert stats.domain == "never"
