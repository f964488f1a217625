"""The way list: the catalog as a tree of `/` segments, fires counted as introspection.md §7 counts
(introspect/queries/way_tree.py). What the page prints of it: tests/introspect/views/test_ways.py."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from introspect.queries import way_tree as way_queries
from tests.introspect.ways_home import imported, leaves

pytestmark = pytest.mark.django_db


def test_it_builds_the_catalog_tree_from_files_and_events(home):
    imported(home)
    tree = way_queries.way_tree()
    assert [node.name for node in tree] == ["d", "ghost"]
    d = tree[0]
    assert [child.name for child in d.children] == ["a", "quiet"]
    assert (d.fires, d.way_count) == (3, 2)
    found = leaves(tree)
    a = found["d/a"]
    assert (a.fires, a.redisclosures, a.withheld, a.near_misses) == (3, 2, 3, 2)
    assert a.root_kinds == ["user", "core"] and a.root_kind == "user"
    assert a.last_fired.isoformat() == "2026-11-10T09:00:05+00:00"
    assert found["ghost/only-events"].no_file and not found["ghost/only-events"].file_gone
    assert found["d/quiet"].fires == 0 and found["d/quiet"].last_fired is None
    assert [node.name for node in way_queries.way_tree(q="ghost")] == ["ghost"]


def test_it_flags_a_way_whose_file_is_gone(home):
    imported(home)
    (home.core_ways / "d" / "quiet" / "quiet.md").unlink()
    call_command("ingest", stdout=StringIO())
    quiet = leaves(way_queries.way_tree())["d/quiet"]
    assert quiet.file_gone and not quiet.no_file and quiet.root_kind == ""


def test_it_nests_a_deep_way_id_no_deeper_than_the_tree_allows():
    deep = "w/" * 150 + "leaf"
    [top] = way_queries.build_tree([way_queries.WayLeaf(deep)])
    node, depth = top, 1
    while node.children:
        [node] = node.children
        depth += 1
    assert depth == way_queries.MAX_TREE_DEPTH
    assert node.way.way_id == node.path == deep  # the rest of the id is one node, slashes and all


def test_a_node_sums_the_fires_and_ways_below_it_and_sorts_its_children_by_name():
    nodes = way_queries.build_tree(
        [
            way_queries.WayLeaf("a/c", fires=3),
            way_queries.WayLeaf("a", fires=1),
            way_queries.WayLeaf("a/b", fires=2),
            way_queries.WayLeaf("z/y/x", fires=4),
        ]
    )
    [a, z] = nodes
    assert (a.path, a.way.way_id, a.fires, a.way_count, a.depth) == ("a", "a", 6, 3, 0)
    assert [(child.name, child.path, child.depth) for child in a.children] == [
        ("b", "a/b", 1),
        ("c", "a/c", 1),
    ]
    assert (z.way, z.fires, z.way_count) == (None, 4, 1)  # a prefix that is no way id of its own


def test_a_leaf_says_which_root_reads_it_or_that_no_file_or_only_a_gone_one_has_its_id():
    read = way_queries.WayLeaf("w", root_kinds=["project", "user"])
    assert (read.root_kind, read.no_file, read.file_gone) == ("project", False, False)
    gone = way_queries.WayLeaf("w", gone_kinds=["core"])
    assert (gone.root_kind, gone.no_file, gone.file_gone) == ("", False, True)
    events_only = way_queries.WayLeaf("w")
    assert (events_only.root_kind, events_only.no_file, events_only.file_gone) == ("", True, False)
