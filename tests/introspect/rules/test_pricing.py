"""Cost is an estimate from a dated list-price table, per token class, and absent for a model the
table does not know. The figures marked "ccusage 20" are what ccusage 20.0.24 (`session --json
--offline`) reported for a one-message session of those tokens (tests/fixtures/ccusage/README.md)."""

from decimal import Decimal

import pytest

from introspect.rules import pricing
from introspect.rules.pricing import Tokens

M = 1_000_000


def million_of_each(model: str | None, *, fast: bool = False) -> Decimal | None:
    return pricing.cost(
        model, Tokens(input=M, cache_write_5m=M, cache_write_1h=M, cache_read=M, output=M), fast=fast
    )


def test_it_prices_each_token_class_apart():
    assert million_of_each("claude-sonnet-4-6") == Decimal("3") + Decimal("3.75") + Decimal("6") + Decimal(
        "0.30"
    ) + Decimal("15")
    one_each = pricing.cost(
        "claude-opus-4-1",
        Tokens(input=1, output=2, cache_write_5m=3, cache_read=4, cache_write_1h=5),
    )
    assert one_each == (15 + 2 * 75 + 3 * Decimal("18.75") + 4 * Decimal("1.50") + 5 * 30) / Decimal(M)


@pytest.mark.parametrize(
    ("model", "tokens", "ccusage"),
    [
        # A million 1-hour cache writes: twice the input price (Claude 3 Haiku's too).
        ("claude-opus-4-6", Tokens(cache_write_1h=M), "10"),
        ("claude-3-haiku-20240307", Tokens(cache_write_1h=M), "0.5"),
        ("claude-3-5-haiku-20241022", Tokens(cache_write_1h=M), "1.6"),
        ("claude-haiku-4-5-20251001", Tokens(cache_write_1h=M), "2"),
        ("claude-opus-4-6", Tokens(cache_write_5m=M // 2, cache_write_1h=M // 2), "8.125"),
        # Sonnet 4 / 4.5 past 200K tokens of one class in one message: the rest at the tier.
        ("claude-sonnet-4-5-20250929", Tokens(input=M), "5.4"),
        ("claude-sonnet-4-5-20250929", Tokens(output=M), "21"),
        ("claude-sonnet-4-5-20250929", Tokens(cache_write_1h=M), "10.8"),
        ("claude-sonnet-4-5-20250929", Tokens(cache_write_1h=M // 2, cache_write_5m=M // 2), "7.8"),
        ("claude-sonnet-4-5-20250929", Tokens(input=1, cache_read=250_000, output=1000), "0.105003"),
        ("claude-sonnet-4-20250514", Tokens(M, M, M, M, M), "44.49"),
        ("claude-4-sonnet-20250514", Tokens(M, M, M, M, M), "44.49"),
        # Each class on its own: 150K input and 150K cache reads stay under the threshold.
        ("claude-sonnet-4-5-20250929", Tokens(input=150_000, cache_read=150_000), "0.495"),
        # No tier on the sheet: the base price however long.
        ("claude-sonnet-4-6", Tokens(M, M, M, M, M), "28.05"),
        ("claude-opus-4-6", Tokens(M, M, M, M, M), "46.75"),
        ("claude-3-haiku-20240307", Tokens(M, M, M, M, M), "2.33"),
        ("claude-3-5-haiku-20241022", Tokens(M, M, M, M, M), "7.48"),
        ("claude-opus-4-1", Tokens(M, M, M, M, M), "140.25"),
        ("claude-sonnet-5", Tokens(M, M, M, M, M), "18.7"),
        ("claude-fable-5", Tokens(M, M, M, M, M), "93.5"),
        ("claude-fable-5-1", Tokens(M, M, M, M, M), "92.75"),
        ("claude-opus-4-6[1m]", Tokens(100_000, 100_000, 100_000, 100_000, 100_000), "4.675"),
    ],
)
def test_it_prices_as_ccusage_20_does(model, tokens, ccusage):
    assert pricing.cost(model, tokens) == Decimal(ccusage)


@pytest.mark.parametrize(
    ("model", "ccusage"),
    [
        ("claude-opus-4-6", "150"),
        ("claude-opus-4-6-20260205", "150"),
        ("claude-opus-4-7", "150"),
        ("claude-opus-4-8", "50"),
        ("claude-opus-5", "50"),
        ("claude-opus-4-5", "25"),
        ("claude-sonnet-4-6", "15"),
    ],
)
def test_fast_mode_multiplies_a_messages_cost_by_its_models_fast_multiple(model, ccusage):
    assert pricing.cost(model, Tokens(output=M), fast=True) == Decimal(ccusage)


def test_the_long_context_tier_applies_message_by_message():
    below, above = Tokens(input=250_000, output=10).split()
    assert (below, above) == (Tokens(input=200_000, output=10), Tokens(input=50_000))
    sonnet = pricing.price_for("claude-sonnet-4-5")
    # Two messages of 150K input each: summed, never over the threshold.
    two = Tokens(input=150_000).split()[0] + Tokens(input=150_000).split()[0]
    assert pricing.priced(sonnet, two, Tokens()) == Decimal("0.9")


def test_the_table_holds_the_list_prices_per_model():
    expected = {  # input, output per million tokens (Anthropic list prices)
        "claude-opus-4-20250514": (15, 75),
        "claude-opus-4-1-20250805": (15, 75),
        "claude-opus-4-5-20251101": (5, 25),
        "claude-opus-4-6": (5, 25),
        "claude-opus-4-7": (5, 25),
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


def test_cache_writes_cost_a_quarter_or_twice_more_than_input_and_reads_a_tenth_except_claude_3_haiku():
    for model_id, found in pricing.PRICES.items():
        assert found.cache_write_1h == 2 * found.input, model_id
        if model_id == "claude-3-haiku":
            assert (found.cache_write, found.cache_read) == (Decimal("0.30"), Decimal("0.03"))
        elif model_id in ("claude-fable-5-1", "claude-mythos-5-1"):
            assert (found.cache_write, found.cache_read) == (found.input * Decimal("1.25"), found.input / 40)
        else:
            assert (found.cache_write, found.cache_read) == (found.input * Decimal("1.25"), found.input / 10)


def test_it_matches_dated_and_prefixed_model_ids_but_not_lookalikes():
    assert pricing.price_for("claude-haiku-4-5-20251001") == pricing.PRICES["claude-haiku-4-5"]
    assert pricing.price_for("us.anthropic.claude-opus-4-6-v1:0") == pricing.PRICES["claude-opus-4-6"]
    assert pricing.price_for("claude-opus-4-1") == pricing.PRICES["claude-opus-4-1"]  # not claude-opus-4's
    assert pricing.price_for("claude-fable-5-1") == pricing.PRICES["claude-fable-5-1"]  # not claude-fable-5's
    assert pricing.price_for("claude-opus-4-9") is None
    assert pricing.price_for("claude-3-haiku") != pricing.price_for("claude-3-5-haiku")


def test_a_model_the_table_does_not_know_has_no_price():
    for model in ("gpt-5", "", None, "<synthetic>", "claude-opus-9"):
        assert pricing.price_for(model) is None
        assert million_of_each(model) is None
