"""A shorter `refire:` from out-of-band reads: the next shorter preset, one line changed."""

from __future__ import annotations

import pytest

from introspect.rules import proposals_refire as refire
from introspect.rules.proposals_diff import changed_lines, unified

WAY = "---\ndescription: design\nvocabulary: design boundary\nrefire: 0.25\n---\n# Design\n\nrefire: not this one\n"


@pytest.mark.parametrize(
    ("current", "proposed"),
    [
        ("once", "rare"),  # 1.0 → 0.4
        ("rare", "normal"),  # 0.4 → 0.15
        ("normal", "frequent"),  # 0.15 → 0.05
        ("0.25", "normal"),  # the largest preset below 0.25 is normal (0.15)
        ("2.5", "once"),  # above every preset: once (1.0) is the next shorter
        ("frequent", "0.025"),  # nothing below frequent: half of 0.05
        ("0.03", "0.015"),
        ("'rare'", "normal"),  # quotes as YAML allows them
    ],
)
def test_the_next_shorter_refire(current, proposed):
    value = refire.parse_value(current)
    assert refire.shorter(value).text == proposed


def test_zero_cannot_get_shorter_and_odd_values_are_not_read():
    assert refire.shorter(refire.parse_value("0")) is None
    for odd in ("[0.3", "11", "-1", "often", "nan", ""):
        assert refire.parse_value(odd) is None


def test_a_proposal_changes_exactly_the_front_matter_refire_line():
    proposal, why = refire.propose(WAY, out_of_band_reads=2)
    assert why == ""
    assert (proposal.current.text, proposal.proposed.text, proposal.reads) == ("0.25", "normal", 2)
    assert proposal.after == WAY.replace("refire: 0.25\n", "refire: normal\n", 1)
    assert "refire: not this one" in proposal.after  # the body's line is not front matter
    assert changed_lines(proposal.before, proposal.after) == 1
    diff = unified(proposal.before, proposal.after, "/ways/design/design.md")
    assert "-refire: 0.25\n+refire: normal\n" in diff and diff.startswith("--- a/ways/design/design.md")


def test_crlf_and_a_trailing_comment_are_kept():
    text = "---\r\nrefire: rare  # tuned in May\r\n---\r\nbody\r\n"
    proposal, _ = refire.propose(text, 1)
    assert proposal.after == "---\r\nrefire: normal  # tuned in May\r\n---\r\nbody\r\n"


def test_no_proposal_says_why():
    assert refire.propose(WAY, 0) == (None, "no out-of-band reads in this window")
    assert refire.propose("---\ndescription: x\n---\nrefire: 0.2\n", 3)[1] == (
        "the way file has no refire: line in its front matter"
    )
    assert "neither a preset nor a number" in refire.propose("---\nrefire: [0.3\n---\n", 3)[1]
    assert refire.propose("---\nrefire: 0\n---\n", 3)[1] == "refire: 0 cannot get shorter"
    assert refire.propose("no front matter\nrefire: 0.2\n", 3)[0] is None


def test_custom_presets_merge_as_agent_ways_config_does():
    # config.rs apply_values: each layer sets its names over the last (an integer is a number too);
    # anything else in the mapping, or a layer that is no mapping, changes nothing.
    user = {"normal": 0.2, "perpetual": 0.01, "bad": "x", 3: 0.5, "flag": True}
    project = {"perpetual": 0.02, "whole": 2}
    presets = refire.merge_presets(user, "not a mapping", None, project)
    assert presets == {
        "once": 1.0,
        "rare": 0.4,
        "normal": 0.2,
        "frequent": 0.05,
        "perpetual": 0.02,
        "whole": 2.0,
    }
    assert refire.merge_presets() == refire.PRESETS


def test_a_custom_preset_is_read_and_proposed_as_the_next_shorter():
    presets = refire.merge_presets({"perpetual": 0.01, "normal": 0.2})
    # Below frequent comes the user's own preset, not half of it; a way may name a custom preset too.
    assert refire.shorter(refire.parse_value("frequent", presets), presets).text == "perpetual"
    assert refire.shorter(refire.parse_value("0.25", presets), presets).text == "normal"
    assert refire.parse_value("perpetual", presets).fraction == 0.01
    assert refire.parse_value("perpetual") is None  # unknown without the config that defines it
    proposal, _ = refire.propose(WAY.replace("refire: 0.25", "refire: perpetual"), 2, presets)
    assert proposal.proposed.text == "0.005"
