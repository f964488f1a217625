"""The query strings of the introspection pages read as forms (introspect/forms.py): a bad value
reads as absent, never an error."""

from __future__ import annotations

import pytest
from django.http import QueryDict

from introspect.forms import EffectivenessForm


def read(form, query: str) -> dict:
    form = form(QueryDict(query))
    assert form.is_valid()  # always: a bad value reads as absent
    return form.cleaned_data


def test_the_effectiveness_form_reads_a_project_a_window_and_a_way():
    ask = read(EffectivenessForm, "project=+/p/app+&days=30&way=softwaredev/delivery")
    assert ask == {"project": "/p/app", "days": 30, "way": "softwaredev/delivery"}
    assert read(EffectivenessForm, "") == {"project": "", "days": None, "way": ""}


@pytest.mark.parametrize("days", ["9" * 5000, "²", "-3", "0", "36501", "1.5", "nan", "x"])
def test_a_window_that_is_no_whole_number_in_range_reads_as_every_day(days):
    query = QueryDict(mutable=True)
    query["days"] = days
    assert read(EffectivenessForm, query.urlencode())["days"] is None


def test_the_last_day_of_the_range_is_a_window_and_spaces_around_it_are_dropped():
    assert read(EffectivenessForm, "days=+36500+")["days"] == 36_500


def test_a_project_and_a_way_are_cut_to_the_length_of_their_columns():
    ask = read(EffectivenessForm, f"project={'p' * 2000}&way={'w' * 2000}")
    assert (len(ask["project"]), len(ask["way"])) == (1000, 512)
