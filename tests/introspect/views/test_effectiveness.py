"""The effectiveness page: each way's arms with their n and intervals, titled with their sources,
the statement that they are correlations and not effects, "too few turns" where an arm is small, and
an honest empty state; bounded in queries."""

from __future__ import annotations

import pytest

from tests.introspect import effectiveness_corpus as corpus

pytestmark = pytest.mark.django_db
URL = "/ways/effectiveness/"


@pytest.fixture
def built(home):
    corpus.build(home)


def test_the_page_shows_the_arms_counted_by_hand_and_says_they_are_correlations(client, built):
    body = client.get(URL).content.decode()
    assert "Correlations, not effects." in body
    often = body[body.index(">w/often</a>") :]
    # Any trouble = the tool errors here (turns 1–6 and 13–14) plus turn 7's correction: 7 of 12 vs 2 of 12.
    assert "7 of 12 · 58 %" in often and "2 of 12 · 17 %" in often
    assert "+42 points" in often and '<svg class="ci-strip"' in often
    assert "Where the numbers come from" in body


def test_a_way_with_three_turns_says_too_few(client, built):
    body = client.get(URL, {"way": "w/rare"}).content.decode()
    assert ">w/rare</a>" in body and "w/often" not in body.split("<table", 1)[1]
    assert "too few turns (needs 10 in each arm)" in body


def test_an_empty_frame_says_so_and_offers_every_project(client, built):
    body = client.get(URL, {"project": "/nowhere", "days": "abc"}).content.decode()
    assert "No way was shown or matched in this frame" in body and "in /nowhere" in body


def test_the_page_is_bounded_in_queries(client, built, django_assert_max_num_queries):
    # Ten for the numbers (queries/effectiveness.py, the labels' included), one for the project list,
    # one for the nav counts.
    with django_assert_max_num_queries(12):
        assert client.get(URL).status_code == 200


def test_each_way_page_links_to_its_effectiveness(client, built):
    body = client.get("/ways/w/often/").content.decode()
    assert 'href="/ways/effectiveness/?way=w/often"' in body


@pytest.mark.parametrize("days", ["9" * 5000, "²", "-3", "0", "36501"])
def test_a_window_that_is_no_whole_number_in_range_is_every_day(client, days):
    """The hostile-request fuzz found a 5,000-digit window raising in int(); every such value is ignored."""
    response = client.get("/ways/effectiveness/", {"days": days})
    assert response.status_code == 200
    assert response.context["days"] == ""  # the form shows no window: every day
