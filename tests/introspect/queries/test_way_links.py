"""The way page's links to other pages, built in Python so the template prints them
(introspect/queries/way_links.py)."""

from __future__ import annotations

from introspect.queries.way_links import way_links


def test_it_links_the_domains_ways_the_ways_effectiveness_and_its_labelling():
    links = way_links("softwaredev/delivery", "softwaredev")
    assert links.domain_ways == "/ways/?q=softwaredev"
    # The id's "/" stays itself, as the template's urlencode filter left it.
    assert links.effectiveness == "/ways/effectiveness/?way=softwaredev/delivery"
    assert links.labelling == "/ways/labels/?way=softwaredev/delivery"


def test_a_way_id_with_characters_a_query_cannot_hold_is_quoted():
    links = way_links("a b/c&d", "a b")
    assert links.domain_ways == "/ways/?q=a%20b"
    assert links.effectiveness == "/ways/effectiveness/?way=a%20b/c%26d"
    assert links.labelling == "/ways/labels/?way=a%20b/c%26d"
