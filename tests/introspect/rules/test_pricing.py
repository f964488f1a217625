"""Cost is an estimate from a dated list-price table, and absent for a model the table does not know."""

from decimal import Decimal

from introspect.rules import pricing


def million_of_each(model: str) -> Decimal | None:
    return pricing.cost(
        model,
        input_tokens=1_000_000,
        output_tokens=1_000_000,
        cache_creation_input_tokens=1_000_000,
        cache_read_input_tokens=1_000_000,
    )


def test_it_prices_input_output_cache_writes_and_cache_reads_apart():
    assert million_of_each("claude-sonnet-4-6") == Decimal("3") + Decimal("15") + Decimal("3.75") + Decimal(
        "0.30"
    )
    one_each = pricing.cost(
        "claude-opus-4-1",
        input_tokens=1,
        output_tokens=2,
        cache_creation_input_tokens=3,
        cache_read_input_tokens=4,
    )
    assert (
        one_each
        == (Decimal("15") + 2 * Decimal("75") + 3 * Decimal("18.75") + 4 * Decimal("1.50")) / 1_000_000
    )


def test_the_table_holds_the_list_prices_per_model():
    expected = {  # input, output per million tokens (Anthropic list prices)
        "claude-opus-4-20250514": (15, 75),
        "claude-opus-4-1-20250805": (15, 75),
        "claude-opus-4-5-20251101": (5, 25),
        "claude-opus-4-6": (5, 25),
        "claude-sonnet-4-20250514": (3, 15),
        "claude-sonnet-4-5-20250929": (3, 15),
        "claude-sonnet-4-6": (3, 15),
        "claude-haiku-4-5-20251001": (1, 5),
        "claude-3-5-haiku-20241022": (Decimal("0.8"), 4),
        "claude-3-7-sonnet-20250219": (3, 15),
        "claude-3-5-sonnet-20241022": (3, 15),
        "claude-3-opus-20240229": (15, 75),
        "claude-3-sonnet-20240229": (3, 15),
        "claude-3-haiku-20240307": (Decimal("0.25"), Decimal("1.25")),
    }
    for model, (per_in, per_out) in expected.items():
        found = pricing.price_for(model)
        assert (found.input, found.output) == (per_in, per_out), model


def test_cache_writes_cost_a_quarter_more_than_input_and_reads_a_tenth_except_claude_3_haiku():
    for model_id, found in pricing.PRICES.items():
        if model_id == "claude-3-haiku":
            assert (found.cache_write, found.cache_read) == (Decimal("0.30"), Decimal("0.03"))
        else:
            assert (found.cache_write, found.cache_read) == (found.input * Decimal("1.25"), found.input / 10)


def test_it_matches_dated_and_prefixed_model_ids_but_not_lookalikes():
    assert pricing.price_for("claude-haiku-4-5-20251001") == pricing.PRICES["claude-haiku-4-5"]
    assert pricing.price_for("us.anthropic.claude-opus-4-6-v1:0") == pricing.PRICES["claude-opus-4-6"]
    assert pricing.price_for("claude-opus-4-1") == pricing.PRICES["claude-opus-4-1"]  # not claude-opus-4's
    assert pricing.price_for("claude-opus-4-7") is None
    assert pricing.price_for("claude-3-haiku") != pricing.price_for("claude-3-5-haiku")


def test_a_model_the_table_does_not_know_has_no_price():
    for model in ("gpt-5", "", None, "<synthetic>", "claude-opus-9"):
        assert pricing.price_for(model) is None
        assert million_of_each(model) is None
