"""The status changes a person may make to a decision record, from each status (records/lifecycle.py)."""

from __future__ import annotations

import pytest

from ledger.records import lifecycle


@pytest.mark.parametrize(
    ("status", "verbs"),
    [
        ("draft", ["accept"]),
        ("proposed", ["accept"]),
        ("unknown", ["accept"]),
        ("accepted", ["deprecate", "supersede"]),
        ("deprecated", ["supersede"]),
        ("superseded", []),
        ("rejected", []),
        ("abandoned", []),
        ("archived", []),
    ],
)
def test_it_offers_only_the_changes_valid_from_a_status(status, verbs):
    assert lifecycle.verbs_from(status) == verbs


def test_it_says_why_a_change_is_refused_and_nothing_for_a_valid_one():
    assert lifecycle.refusal("proposed", "accept") is None
    assert lifecycle.refusal("proposed", "deprecate") == "a record that is proposed cannot become deprecated"
    assert lifecycle.refusal("accepted", "accept") == "a record that is accepted cannot become accepted"
    assert lifecycle.refusal("accepted", "delete") == "unknown action 'delete'"
