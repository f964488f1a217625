"""What a search hands the page: the counts the pager prints and the URL of the place each hit was found."""

from __future__ import annotations

from introspect.queries import search_results


def test_it_prints_the_total_with_a_plus_when_counting_stopped_at_the_cap():
    big = search_results.SearchResults(hits=[], total=10_000, query="the", capped=True)
    assert (big.count_label, big.total_label) == ("10,000+", "10,000")
    assert search_results.SearchResults(hits=[], total=1204, query="x").count_label == "1,204"


def test_it_links_entries_by_permalink_and_fire_turns_by_their_epoch():
    assert search_results.session_url("abc", 3, "turn-3") == "/sessions/abc/?from=3#turn-3"
    assert search_results.session_url("abc", 120, "u-x", uuid="x") == "/sessions/abc/?u=x#u-x"
    assert search_results.session_url("abc", None, "") == "/sessions/abc/"
    # The search words ride along, for the page to open the hit's card at them and mark them.
    assert (
        search_results.session_url("abc", 120, "u-x", uuid="x", terms=["rate", "lim"])
        == "/sessions/abc/?u=x&q=rate+lim#u-x"
    )
