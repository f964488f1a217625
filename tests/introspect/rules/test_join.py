"""The transcript join as agent-ways computes it (introspection.md §4), on entry-like objects."""

from __future__ import annotations

from dataclasses import dataclass

from introspect.rules import join
from introspect.rules.timestamps import utc_second


@dataclass
class E:
    """The attributes of a TranscriptEntry the join reads."""

    uuid: str | None
    parent_uuid: str | None
    type: str
    timestamp_raw: str = "2026-01-01T00:00:00.000Z"
    hook_event: str | None = None
    version: str = "2.1.180"
    model: str | None = None


def ups(uuid: str, parent: str, ts: str) -> E:
    return E(uuid, parent, "attachment", ts, hook_event="UserPromptSubmit")


def test_it_walks_from_the_injection_up_to_the_user_line():
    entries = [
        E("u1", "a0", "user", "2026-01-01T00:00:00.000Z"),
        E("mid", "u1", "attachment", "2026-01-01T00:00:01.000Z"),
        ups("ups", "mid", "2026-01-01T00:00:01.200Z"),
        E("asst", "ups", "assistant", "2026-01-01T00:00:02.000Z"),
    ]
    (turn,) = join.prompt_turns(entries)
    assert (turn.user_uuid, turn.second) == ("u1", utc_second("2026-01-01T00:00:01Z"))


def test_it_leaves_unresolvable_chains_out():
    entries = [
        ups("x", "missing", "2026-01-01T00:00:01.000Z"),
        ups("y", None, "2026-01-01T00:00:01.000Z"),
        ups("z", "u1", "2026-01-01T00:00:01+00:00"),
        E("u1", None, "user"),
    ]
    assert join.prompt_turns(entries) == []


def test_it_stops_walking_after_64_hops():
    chain = [E("u", None, "user")] + [E(f"n{i}", "u" if i == 0 else f"n{i - 1}", "system") for i in range(70)]
    assert join.prompt_turns([*chain, ups("a", "n62", "2026-01-01T00:00:01.000Z")])[0].user_uuid == "u"
    assert join.prompt_turns([*chain, ups("a", "n69", "2026-01-01T00:00:01.000Z")]) == []


def test_it_keys_a_turn_to_the_one_prompt_within_eight_seconds():
    turns = join.prompt_turns([E("u1", None, "user"), ups("i1", "u1", "2026-01-01T00:00:08.999Z")])
    joined = join.join_turn(utc_second("2026-01-01T00:00:00Z"), turns, no_match_reason="x")
    assert (joined.confidence, joined.user_uuid) == ("keyed", "u1")
    far = join.join_turn(
        utc_second("2025-12-31T23:59:51Z"), turns, no_match_reason="no prompt injection within 8 s"
    )
    assert (far.confidence, far.reason, far.user_uuid) == ("heuristic", "no prompt injection within 8 s", "")


def test_it_keeps_two_prompts_within_tolerance_heuristic():
    turns = join.prompt_turns(
        [
            E("u1", None, "user"),
            ups("i1", "u1", "2026-01-01T00:00:01.000Z"),
            E("u2", None, "user"),
            ups("i2", "u2", "2026-01-01T00:00:05.000Z"),
        ]
    )
    joined = join.join_turn(utc_second("2026-01-01T00:00:03Z"), turns, no_match_reason="x")
    assert (joined.confidence, joined.reason) == ("heuristic", "ambiguous: 2 prompts within 8 s")


def test_it_takes_the_nearest_injection_of_one_prompt():
    turns = join.prompt_turns(
        [
            E("u1", None, "user"),
            ups("i1", "u1", "2026-01-01T00:00:01.000Z"),
            ups("i2", "u1", "2026-01-01T00:00:06.000Z"),
        ]
    )
    joined = join.join_turn(utc_second("2026-01-01T00:00:05Z"), turns, no_match_reason="x")
    assert joined.injection.uuid == "i2"


def test_it_explains_why_a_turn_is_heuristic():
    assert join.no_match_reason([], []) == join.NO_TRANSCRIPT
    assert join.no_match_reason([E("u", None, "user", version="2.0.76")], []) == join.PREDATES
    assert join.no_match_reason([E("u", None, "user", version="2.1.180")], []) == join.NO_INJECTION


def test_it_reads_the_context_window_from_the_last_real_model():
    entries = [
        E("a", None, "assistant", model="claude-haiku-4-5-20251001"),
        E("b", None, "assistant", model="<synthetic>"),
    ]
    assert join.last_model(entries) == "claude-haiku-4-5-20251001"
    assert join.window_for("claude-haiku-4-5-20251001") == (200_000, True)
    assert join.window_for("us.anthropic.claude-opus-4-8-v1:0") == (1_000_000, True)
    assert join.window_for("claude-opus-4-8[1m]") == (1_000_000, True)
    assert join.window_for("claude-opus-4") == (200_000, False)
    assert join.window_for("claude-sonnet-55") == (200_000, False)
    assert join.window_for("opus") == (1_000_000, True)
    assert join.window_for(None) == (200_000, False)


def test_it_slugs_paths_per_utf16_unit():
    assert join.project_slug("/x/🦀") == "-x---"
    assert join.project_slug("/x/é") == "-x--"
    assert join.project_slug("/srv/项目 x") == "-srv----x"
    assert join.project_slug("/x/llama.cpp-kv") == "-x-llama-cpp-kv"


def test_a_context_larger_than_the_models_window_proves_the_larger_window():
    assert join.observed_window(200_000, 150_000) == 200_000
    assert join.observed_window(200_000, 200_000) == 200_000
    assert join.observed_window(200_000, 200_001) == 1_000_000  # a 1M-context beta on a 200K model
    assert join.observed_window(1_000_000, 412_000) == 1_000_000
    assert join.observed_window(200_000, 5_000_000) == 1_000_000  # never beyond the largest known


def test_an_automatic_compaction_below_200k_shows_a_1m_model_ran_with_200k():
    assert join.compacted_window(1_000_000, [167_000]) == 200_000
    assert join.compacted_window(1_000_000, [450_000]) is None  # no narrower window proved
    assert join.compacted_window(200_000, [167_000]) is None  # the model's window already says so
    assert join.compacted_window(1_000_000, []) is None  # manual compactions prove nothing


def test_it_never_keys_a_turn_stamped_in_the_first_or_last_year():
    for stamp in ("9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z"):
        turns = join.prompt_turns([E("u1", None, "user"), ups("i1", "u1", stamp)])
        joined = join.join_turn(utc_second(stamp), turns, no_match_reason=join.NO_INJECTION)
        assert (joined.confidence, joined.reason, joined.user_uuid) == ("heuristic", join.OUT_OF_RANGE, "")


def test_it_never_keys_a_turn_on_a_prompt_stamped_in_the_last_year():
    turns = join.prompt_turns([E("u1", None, "user"), ups("i1", "u1", "9999-01-01T00:00:03.000Z")])
    joined = join.join_turn(utc_second("9998-12-31T23:59:59Z"), turns, no_match_reason=join.NO_INJECTION)
    assert (joined.confidence, joined.reason) == ("heuristic", join.OUT_OF_RANGE)


def test_it_looks_for_prompts_at_the_calendars_ends_without_overflowing():
    turns = join.prompt_turns(
        [
            E("u1", None, "user"),
            ups("i1", "u1", "9999-12-31T23:59:55.000Z"),
            ups("i2", "u1", "0001-01-01T00:00:02Z"),
        ]
    )
    index = join.PromptIndex(turns)
    assert [pt.injection.uuid for _, _, pt in index.within(utc_second("9999-12-31T23:59:59Z"), 8)] == ["i1"]
    assert [pt.injection.uuid for _, _, pt in index.within(utc_second("0001-01-01T00:00:00Z"), 8)] == ["i2"]
