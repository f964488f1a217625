"""Cost is an estimate from a list-price table, and absent for a model the table does not know."""

from introspect.rules import pricing


def test_it_prices_input_output_and_cache_tokens():
    cost = pricing.estimate(
        model="claude-sonnet-4-6",
        input_tokens=1_000_000,
        output_tokens=1_000_000,
        cache_creation_input_tokens=1_000_000,
        cache_read_input_tokens=1_000_000,
    )
    assert cost == 3.0 + 15.0 + 3.75 + 0.3


def test_it_matches_dated_and_prefixed_model_ids_but_not_lookalikes():
    assert pricing.price_for("claude-haiku-4-5-20251001") == (1.0, 5.0)
    assert pricing.price_for("us.anthropic.claude-opus-4-6-v1:0") == (5.0, 25.0)
    assert pricing.price_for("claude-opus-4-7") is None
    assert (
        pricing.estimate(
            model="gpt-5",
            input_tokens=1,
            output_tokens=1,
            cache_creation_input_tokens=0,
            cache_read_input_tokens=0,
        )
        is None
    )
