"""The query-string readers (lib/params.py): a malformed or out-of-range value reads as absent."""

from __future__ import annotations

from datetime import date

import pytest
from django.test import RequestFactory

from lib import params


def get(**query):
    return RequestFactory().get("/", query)


@pytest.mark.parametrize(
    "raw, value", [("12", 12), ("-3", -3), (" 7 ", 7), ("9223372036854775807", 2**63 - 1)]
)
def test_it_reads_a_whole_number_that_fits_a_column(raw, value):
    assert params.int_param(get(n=raw), "n") == value


@pytest.mark.parametrize(
    "raw",
    ["99999999999999999999", "-9223372036854775808", "1e3", "nan", "-1e999", "x", "", "9" * 5000, "1.5"],
)
def test_it_reads_any_other_number_as_absent(raw):
    assert params.int_param(get(n=raw), "n", 4) == 4


def test_it_keeps_a_number_inside_the_bounds_a_parameter_gives():
    assert params.int_param(get(n="36501"), "n", low=0, high=36_500) is None
    assert params.int_param(get(n="-1"), "n", low=0, high=36_500) is None
    assert params.int_param(get(n="14"), "n", low=0, high=36_500) == 14


@pytest.mark.parametrize("raw", ["nan", "inf", "-inf", "-1e999", "1e999", "x", "", "1" * 100])
def test_it_reads_a_float_that_is_not_finite_as_absent(raw):
    assert params.float_param(get(f=raw), "f") is None


def test_it_reads_a_finite_float():
    assert params.float_param(get(f="0.6"), "f") == 0.6


@pytest.mark.parametrize("raw", ["9999-12-31", "0001-01-01", "99999-01-01", "2026-02-30", "", "x" * 100])
def test_it_reads_a_date_at_the_end_of_the_calendar_or_no_date_as_absent(raw):
    assert params.date_param(get(d=raw), "d") is None


def test_it_reads_a_date():
    assert params.date_param(get(d="2026-11-02"), "d") == date(2026, 11, 2)
