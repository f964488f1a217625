"""The demo's labels, read without the checks of a person's file, are the rows the checked reading gives."""

from __future__ import annotations

from dataclasses import astuple

from introspect.documents.labels import read_lines
from introspect.documents.sample_labels import sample_rows
from lib.locations import SAMPLE_LABELS


def test_the_bundled_labels_read_plainly_are_the_checked_rows():
    lines = SAMPLE_LABELS.read_bytes().split(b"\n")
    checked = read_lines(lines)
    assert len(checked) >= 20
    assert sample_rows(lines) == checked
    assert list(map(typed, sample_rows(lines))) == list(map(typed, checked))


def typed(row) -> list:
    """A row's values with their types: a whole-number score is a float either way (a time's zone is
    UTC either way, pydantic's own class of it or the standard library's)."""
    return [(type(value), value) for value in astuple(row)]


def test_a_whole_number_score_and_a_missing_one_read_as_the_checked_reading_reads_them():
    line = (
        b'{"fire":"' + b"a" * 64 + b'","session":"s","way":"w","label":"unsure","labeller":"ann",'
        b'"labelled_at":"2026-11-21T09:00:00Z","fire_score":1,"ts":null}'
    )
    assert list(map(typed, sample_rows([line, b""]))) == list(map(typed, read_lines([line, b""])))
