"""One usage per assistant message: the largest count of each field over the lines that share its
message.id + requestId, wherever in the session they are; cost per message at its model's price."""

import random
from decimal import Decimal

from introspect.rules import usage


def row(
    message_id,
    request_id,
    model="claude-opus-4-6",
    i=None,
    o=None,
    cw=None,
    cr=None,
    w5=None,
    w1=None,
    speed=None,
):
    return (message_id, request_id, model, i, o, cw, cr, w5, w1, speed)


def test_it_keeps_the_final_count_of_a_message_whose_output_grows_line_by_line():
    # A thinking block, a text block and two tool calls: four lines of one streamed response.
    rows = [
        row("msg_1", "req_1", i=3, o=13, cw=13835, cr=11515),
        row("msg_1", "req_1", i=3, o=13, cw=13835, cr=11515),
        row("msg_1", "req_1", i=3, o=250, cw=13835, cr=11515),
        row("msg_1", "req_1", i=3, o=612, cw=13835, cr=11515),
    ]
    [message] = usage.messages(rows)
    assert (message.input_tokens, message.output_tokens) == (3, 612)
    assert (message.cache_creation_input_tokens, message.cache_read_input_tokens) == (13835, 11515)


def test_it_takes_the_largest_value_of_each_field_apart():
    rows = [row("m", "r", i=5, o=1, cw=0, cr=900), row("m", "r", i=2, o=40, cw=70, cr=None)]
    [message] = usage.messages(rows)
    assert (
        message.input_tokens,
        message.output_tokens,
        message.cache_creation_input_tokens,
        message.cache_read_input_tokens,
    ) == (5, 40, 70, 900)


def test_it_counts_each_line_without_both_ids_on_its_own():
    rows = [
        row(None, None, o=7),
        row(None, None, o=7),  # the same counts again: still a second message
        row("m", None, o=3),
        row("m", None, o=3),
        row(None, "r", o=2),
    ]
    found = usage.messages(rows)
    assert [m.output_tokens for m in found] == [7, 7, 3, 3, 2]
    assert usage.totals(found).output_tokens == 22


def test_it_counts_a_key_seen_in_the_trunk_and_a_subagent_file_once():
    trunk = [row("msg_a", "req_a", i=10, o=5), row("msg_b", "req_b", i=1, o=2)]
    subagent = [row("msg_s", "req_s", model="claude-haiku-4-5-20251001", i=4, o=9)]
    resumed_copy = [row("msg_a", "req_a", i=10, o=30)]  # the same message replayed, with its final row
    found = usage.messages(trunk + subagent + resumed_copy)
    assert [(m.message_id, m.output_tokens) for m in found] == [("msg_a", 30), ("msg_b", 2), ("msg_s", 9)]
    assert usage.totals(found).input_tokens == 15


def test_the_same_message_id_under_another_request_is_another_message():
    found = usage.messages([row("m", "r1", o=4), row("m", "r2", o=6)])
    assert [m.output_tokens for m in found] == [4, 6]


def test_it_prices_each_message_at_its_own_models_price():
    found = usage.messages(
        [
            row("m1", "r1", model="claude-opus-4-6", i=1_000_000, o=1_000_000),
            row("m2", "r2", model="claude-haiku-4-5-20251001", cw=1_000_000, cr=1_000_000),
        ]
    )
    assert [m.cost_usd for m in found] == [Decimal(5 + 25), Decimal("1.25") + Decimal("0.10")]
    totals = usage.totals(found)
    assert totals.cost_usd == Decimal("31.35") and totals.unpriced_messages == 0


def test_an_unknown_model_has_no_price_and_is_counted_as_unpriced():
    found = usage.messages(
        [row("m1", "r1", model="claude-opus-4-6", o=1000), row("m2", "r2", model="gpt-5", o=1000)]
    )
    assert found[1].cost_usd is None
    totals = usage.totals(found)
    assert totals.cost_usd == Decimal("0.025") and totals.unpriced_messages == 1
    assert totals.output_tokens == 2000  # its tokens still count


def test_a_session_with_no_priced_message_has_no_cost_not_a_zero_one():
    totals = usage.totals(usage.messages([row("m", "r", model="mystery-model", o=10)]))
    assert totals.cost_usd is None and totals.unpriced_messages == 1
    assert usage.totals([]).cost_usd is None


def test_synthetic_messages_are_neither_priced_nor_unpriced():
    found = usage.messages([row("m", "r", model="<synthetic>", i=0, o=0)])
    assert found[0].synthetic and found[0].cost_usd is None
    totals = usage.totals(found)
    assert (totals.cost_usd, totals.unpriced_messages) == (None, 0)
    assert usage.models(found) == []


def test_the_session_cost_is_exact_to_the_last_token():
    # One cache-read token of Claude 3 Haiku costs $0.00000003, the smallest step of the table.
    found = usage.messages([row(None, None, model="claude-3-haiku-20240307", cr=1) for _ in range(7)])
    assert found[0].cost_usd == Decimal("0.00000003")
    assert usage.totals(found).cost_usd == Decimal("0.00000021")


def test_a_message_takes_a_real_model_over_a_missing_one():
    [message] = usage.messages(
        [row("m", "r", model=None, o=1), row("m", "r", model="claude-sonnet-4-6", o=2)]
    )
    assert message.model == "claude-sonnet-4-6"


def test_it_prices_one_hour_cache_writes_at_their_own_rate():
    # Session 258c7280 of issue 25: every cache write a 1-hour one, priced as a 5-minute one before.
    [message] = usage.messages([row("m", "r", cw=394_137, w5=0, w1=394_137)])
    assert (message.cache_creation_input_tokens, message.cache_creation_1h_tokens) == (394_137, 394_137)
    assert message.cost_usd == Decimal(394_137 * 10) / 1_000_000  # Opus 4.6: $10 per million, not $6.25
    totals = usage.totals([message])
    assert (totals.cache_creation_input_tokens, totals.cache_creation_1h_tokens) == (394_137, 394_137)
    assert totals.cost_usd == Decimal("3.94137")


def test_without_a_split_every_cache_write_is_a_five_minute_one():
    [message] = usage.messages([row("m", "r", cw=1_000_000)])
    assert message.cache_creation_1h_tokens == 0 and message.cost_usd == Decimal("6.25")


def test_a_messages_cache_writes_are_its_splits_sum_as_ccusage_counts_them():
    # ccusage 20 counts the split's sum where a line has one (the two agree in real lines).
    [message] = usage.messages([row("m", "r", cw=1_000_000, w5=None, w1=300_000)])
    assert (message.cache_creation_input_tokens, message.cache_creation_1h_tokens) == (300_000, 300_000)
    assert message.cost_usd == Decimal(3)


def test_the_final_row_keeps_the_split_of_a_streamed_message():
    rows = [row("m", "r", o=5, cw=1000, w5=0, w1=1000), row("m", "r", o=500, cw=1000, w5=0, w1=1000)]
    [message] = usage.messages(rows)
    assert (message.output_tokens, message.cache_creation_1h_tokens) == (500, 1000)
    assert message.cost_usd == Decimal("0.0225")


def test_a_fast_mode_message_costs_its_models_fast_multiple():
    found = usage.messages([row("m1", "r1", o=1_000_000, speed="fast"), row("m2", "r2", o=1_000_000)])
    assert [m.fast for m in found] == [True, False]
    assert [m.cost_usd for m in found] == [Decimal(150), Decimal(25)]
    assert usage.totals(found).cost_usd == Decimal(175)


def test_the_long_context_tier_is_applied_per_message_in_the_totals():
    sonnet = "claude-sonnet-4-5-20250929"
    found = usage.messages(
        [row("m1", "r1", model=sonnet, i=250_000), row("m2", "r2", model=sonnet, i=150_000)]
    )
    # 200K + 150K at $3, 50K at $6: the second message never reaches the tier.
    assert usage.totals(found).cost_usd == Decimal("1.35")
    assert sum(m.cost_usd for m in found) == Decimal("1.35")


def test_totals_moved_by_the_messages_a_tail_continues_equal_a_count_of_every_row():
    """usage.moved: the totals of some rows, with the messages later rows continue counted again,
    are the totals of all the rows, whatever models (priced, unpriced, synthetic, none), splits,
    speeds and long contexts they have."""
    rng = random.Random(29)
    models = ["claude-opus-4-6", "claude-haiku-4-5-20251001", "mystery-model", usage.SYNTHETIC, None]

    def count():
        return rng.choice([None, 0, rng.randrange(1, 5000), rng.randrange(190_000, 400_000)])

    def random_row():
        ids = rng.choice([(f"m{rng.randrange(12)}", "r1"), (f"m{rng.randrange(12)}", None), (None, None)])
        return row(
            *ids,
            model=rng.choice(models),
            i=count(),
            o=count(),
            cw=count(),
            cr=count(),
            w5=rng.choice([None, count()]),
            w1=rng.choice([None, count()]),
            speed=rng.choice([None, None, usage.FAST]),
        )

    for _ in range(300):
        older = [random_row() for _ in range(rng.randrange(0, 15))]
        tail = [random_row() for _ in range(rng.randrange(1, 6))]
        keys = {(r[0], r[1]) for r in tail if r[0] and r[1]}
        continued = [r for r in older if (r[0], r[1]) in keys]
        grown = usage.moved(
            usage.totals(usage.messages(older)),
            usage.totals(usage.messages(continued)),
            usage.totals(usage.messages(continued + tail)),
        )
        assert grown == usage.totals(usage.messages(older + tail))
