"""Why-fired evidence per channel (introspection.md §5): recorded facts, labelled honestly."""

from __future__ import annotations

import pytest

from introspect.rules.evidence import why_fired


def lines(channel: str, **kw) -> dict[str, str]:
    args = {
        "matched_span": None,
        "fire_score": None,
        "surface": None,
        "criteria": {},
        "token_position": 0,
        "window_k": 200,
        "keyed": True,
        **kw,
    }
    return {item.label: item.text for item in why_fired(channel=channel, **args)}


@pytest.mark.parametrize(
    "channel",
    [
        "semantic:embedding:en",
        "semantic:embedding:multi",
        "semantic:late-interaction:en",
        "semantic:bash:en",
        "semantic:bash:multi",
    ],
)
def test_it_never_invents_a_matched_term_for_semantic_fires(channel):
    out = lines(
        channel, fire_score=0.622, surface="how do I commit", criteria={"vocabulary": "commit branch"}
    )
    assert out["Match"] == "semantic fire: matched by embedding; no recoverable term"
    assert out["Score"] == "calibrated probability 0.622, above τ 0.5 (the default firing line)"
    assert out["Surface"] == "how do I commit" and out["Vocabulary"] == "commit branch"
    assert "Matched" not in out


@pytest.mark.parametrize(
    ("channel", "criterion", "where"),
    [
        ("keyword", "pattern", "the prompt"),
        ("bash", "commands", "a shell command"),
        ("file", "files", "a touched path"),
    ],
)
def test_it_shows_the_span_and_the_current_regex(channel, criterion, where):
    out = lines(channel, matched_span="commit", criteria={criterion: r"\bcommit\b"})
    assert out == {"Matched": f"“commit” in {where}", "Regex": r"\bcommit\b"}


def test_it_says_a_span_is_exact_even_in_a_heuristic_turn():
    out = lines("keyword", matched_span="commit", keyed=False)
    assert out["Matched"].endswith("(exact; only the turn's place in the conversation is by time)")


def test_it_explains_a_redisclosure_has_no_span():
    assert lines("keyword")["Matched"] == "no span logged (spans are recorded on first fires only)"


def test_it_shows_a_state_trigger_against_the_context():
    out = lines("state", criteria={"trigger": "context-threshold"}, token_position=150_000)
    assert out == {"Trigger": "context-threshold", "Context": "150,000 tokens of 200K (75%) when it fired"}


@pytest.mark.parametrize(
    ("channel", "words"),
    [
        ("check-pull", "pulled in by one of its checks"),
        ("postcheck", "postcheck.sh"),
        ("task", "task prompt"),
        ("attend:repeated-failure", "“repeated-failure”"),
        ("prompt", "no recorded channel"),
        ("unknown", "by hand"),
    ],
)
def test_it_names_the_channel_for_the_channels_without_evidence(channel, words):
    assert words in lines(channel)["Why"]
