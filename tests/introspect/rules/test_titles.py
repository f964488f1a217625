"""Session titles cut for a list: at a word boundary, with an ellipsis, never longer than asked."""

from __future__ import annotations

import pytest

from introspect.rules.titles import cut_title


def test_it_keeps_a_title_that_fits():
    assert cut_title("Fix the flaky import test", 40) == "Fix the flaky import test"


def test_it_cuts_at_the_last_word_that_fits_and_adds_an_ellipsis():
    assert cut_title("Refactor the session page query into smaller parts", 30) == "Refactor the session page…"


def test_it_never_cuts_a_word_in_half_when_the_cut_falls_just_after_it():
    # "Refactor the session page" is 26 characters: the 27th is the space after it.
    assert cut_title("Refactor the session page query", 27) == "Refactor the session page…"


def test_it_joins_lines_and_runs_of_spaces_into_one_line():
    assert cut_title("first line\n\n  second   line", 80) == "first line second line"


def test_it_drops_punctuation_left_dangling_before_the_ellipsis():
    assert cut_title("Check this, then that, then the other thing", 17) == "Check this, then…"
    assert cut_title("Deploy: staging (then prod)", 17) == "Deploy: staging…"


def test_it_cuts_one_long_token_mid_word_rather_than_leave_almost_nothing():
    path = "src/introspect/queries/search_results_for_sessions.py explained"
    assert cut_title(path, 20) == "src/introspect/quer…"


@pytest.mark.parametrize("limit", [1, 2, 5, 12, 40])
def test_it_never_returns_more_than_the_limit(limit):
    title = "a very long title with many words in it " * 3
    assert len(cut_title(title, limit)) <= limit
    assert cut_title(title, limit).endswith("…")


def test_it_returns_an_empty_title_empty():
    assert cut_title("   ", 10) == ""
