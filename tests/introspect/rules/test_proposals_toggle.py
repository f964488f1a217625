"""A project toggle written as one line into `<project>/.claude/ways.yaml`, as agent-ways reads it."""

from __future__ import annotations

import pytest

from introspect.rules.proposals_diff import changed_lines
from introspect.rules.proposals_toggle import CannotToggle, toggle_off

ID = "softwaredev/code/testing"


def test_no_overlay_gets_one_flow_line():
    assert toggle_off("", ID).after == "ways: {softwaredev/code/testing: false}\n"


def test_an_overlay_without_ways_gets_the_line_appended_and_keeps_the_rest():
    done = toggle_off("# overlay\nlanguage: en", ID)
    assert done.after == "# overlay\nlanguage: en\nways: {softwaredev/code/testing: false}\n"


def test_a_block_gets_one_entry_in_its_own_indentation_after_its_last():
    text = "ways:\n    meta/intro: false\n    # a comment\n\nparent_boost_floor: 0.4\n"
    done = toggle_off(text, ID)
    assert done.after == (
        "ways:\n    meta/intro: false\n    softwaredev/code/testing: false\n"
        "    # a comment\n\nparent_boost_floor: 0.4\n"
    )
    assert changed_lines(text, done.after) == 1


def test_an_empty_block_gets_two_spaces():
    assert toggle_off("ways:\nenabled: true\n", ID).after == (
        "ways:\n  softwaredev/code/testing: false\nenabled: true\n"
    )


def test_an_explicit_enable_is_the_one_line_rewritten():
    text = "ways:\n  softwaredev/code/testing: true  # on for now\n  a/b: false\n"
    done = toggle_off(text, ID)
    assert done.after == "ways:\n  softwaredev/code/testing: false\n  a/b: false\n"
    assert changed_lines(text, done.after) == 1


def test_already_disabled_writes_nothing():
    for text in (
        "ways:\n  softwaredev/code/testing: false\n",
        "ways: {softwaredev/code/testing: {enabled: false}}\n",
    ):
        done = toggle_off(text, ID)
        assert done.already and done.after == text


@pytest.mark.parametrize(
    "text",
    [
        "ways: {a/b: false}\n",  # flow mapping: not one line to add
        "ways:\n  softwaredev/code/testing:\n    enabled: true\n",  # long form
        "ways:\n\tsoftwaredev/x: false\n",  # tabs
        "ways: [\n",  # not YAML
        "- a\n- b\n",  # not a mapping
    ],
)
def test_what_one_line_cannot_do_is_refused(text):
    with pytest.raises(CannotToggle):
        toggle_off(text, ID)


def test_a_name_upstream_would_not_write_is_refused():
    for name in ("Upper/x", "a b", "a: b", "../x", "x/*"):
        with pytest.raises(CannotToggle):
            toggle_off("", name)
