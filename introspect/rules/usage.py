"""Token usage per assistant message, and a session's totals and cost from them.

Claude Code writes one line per content block; the lines of one API response share `message.id`
and `requestId` and repeat its usage as the response streams, so `output_tokens` grows line by
line and the last line carries the final count (ccusage/ccusage#797; formats-claude-code.md §6).
Rule (peers.md §8, §9; ccusage 20 keeps the same final row): one usage per message.id + requestId
across every file of a session (trunk, subagent files, the copies a resumed session replays), the
largest value of each field over the lines sharing the key. A line lacking either id is a message
of its own, never merged with another.

Cache writes come in two classes, priced apart (rules/pricing.py): `usage.cache_creation` splits
`cache_creation_input_tokens` into 5-minute and 1-hour writes. Where a message has that split, its
cache writes are the split's sum, as ccusage 20 counts them (the two agree in every line Claude
Code writes); without it, every write is a 5-minute one.

Cost is per message at that message's model's list price, speed and token classes. A
`<synthetic>` message (an interrupt, an API error) is neither priced nor counted as unpriced (§6:
skip it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

from introspect.rules import pricing

FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
# usage.cache_creation's split of the cache writes (None: the line has no split).
SPLIT = ("ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens")
SYNTHETIC = "<synthetic>"
FAST = "fast"  # usage.speed of a fast-mode response
# Every list price is a whole number of cents per million tokens, so a cost is a whole number of
# hundred-millionths of a dollar: kept to eight places (the column's), it is exact, never rounded.
PLACES = Decimal("0.00000001")

# A usage row: message id, request id, model, the four FIELDS, the two SPLIT counts (None: the
# line did not say), then usage.speed (None when not said).
Row = tuple[
    str | None,
    str | None,
    str | None,
    int | None,
    int | None,
    int | None,
    int | None,
    int | None,
    int | None,
    str | None,
]


@dataclass(frozen=True)
class MessageUsage:
    """One assistant message (one API response): its model, final token counts and speed."""

    message_id: str | None
    request_id: str | None
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0  # all cache writes, 5-minute and 1-hour
    cache_read_input_tokens: int = 0
    cache_creation_1h_tokens: int = 0  # of which 1-hour writes
    fast: bool = False

    @property
    def synthetic(self) -> bool:
        return self.model == SYNTHETIC

    @property
    def tokens(self) -> pricing.Tokens:
        return pricing.Tokens(
            input=self.input_tokens,
            cache_write_5m=self.cache_creation_input_tokens - self.cache_creation_1h_tokens,
            cache_write_1h=self.cache_creation_1h_tokens,
            cache_read=self.cache_read_input_tokens,
            output=self.output_tokens,
        )

    @property
    def cost_usd(self) -> Decimal | None:
        """USD at the model's list price, exact; None for a model the table does not price."""
        if self.synthetic:
            return None
        return pricing.cost(self.model, self.tokens, fast=self.fast)


@dataclass(frozen=True)
class UsageTotals:
    """Token totals of a set of messages, their cost, and how many messages had no price."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    cost_usd: Decimal | None = None  # None: no message was priced ("—", not $0)
    unpriced_messages: int = 0
    messages: int = 0
    cache_creation_1h_tokens: int = 0


def messages(rows: Iterable[Row]) -> list[MessageUsage]:
    """One MessageUsage per message.id + requestId (a row without both is its own), first seen first."""
    # Unrolled over plain lists: a session has tens of thousands of rows, read on every live append.
    # A split count not said is -1 until the end (0 is a count the line said).
    merged: dict[object, list] = {}
    for n, (message_id, request_id, model, i, o, cw, cr, w5, w1, speed) in enumerate(rows):
        key = (message_id, request_id) if message_id and request_id else n
        found = merged.get(key)
        if found is None:
            merged[key] = [
                message_id,
                request_id,
                model or "",
                i or 0,
                o or 0,
                cw or 0,
                cr or 0,
                -1 if w5 is None else w5,
                -1 if w1 is None else w1,
                speed == FAST,
            ]
            continue
        if model and (not found[2] or found[2] == SYNTHETIC):
            found[2] = model  # a real model over a missing or synthetic one
        if i is not None and i > found[3]:
            found[3] = i
        if o is not None and o > found[4]:
            found[4] = o
        if cw is not None and cw > found[5]:
            found[5] = cw
        if cr is not None and cr > found[6]:
            found[6] = cr
        if w5 is not None and w5 > found[7]:
            found[7] = w5
        if w1 is not None and w1 > found[8]:
            found[8] = w1
        if speed == FAST:
            found[9] = True
    return [final(*fields) for fields in merged.values()]


def final(
    message_id, request_id, model, i, o, cache_write, cache_read, write_5m, write_1h, fast
) -> MessageUsage:
    """A merged message's counts: its cache writes are the split's sum where it has one."""
    if write_5m >= 0 or write_1h >= 0:
        write_1h = max(write_1h, 0)
        cache_write = max(write_5m, 0) + write_1h
    else:
        write_1h = 0
    # Positional: see messages().
    return MessageUsage(message_id, request_id, model, i, o, cache_write, cache_read, write_1h, fast)


def totals(found: Iterable[MessageUsage]) -> UsageTotals:
    """Sum of the messages' final counts; cost summed over the priced ones (exact: PLACES).

    The tokens of each model and speed are summed first, each message's count of a class split at
    the long-context threshold (which applies message by message), and priced once: exact
    decimals, so the same as pricing message by message and adding up. Plain integers in the loop:
    it runs over every message of a session whenever a live one grows."""
    long = pricing.LONG_CONTEXT
    # (model, fast) → [messages, then below and above the threshold for each of pricing.CLASSES]
    by_model: dict[tuple[str, bool], list[int]] = {}
    count = 0
    for message in found:
        count += 1
        one_hour = message.cache_creation_1h_tokens
        counts = (
            message.input_tokens,
            message.cache_creation_input_tokens - one_hour,
            one_hour,
            message.cache_read_input_tokens,
            message.output_tokens,
        )
        key = (message.model, message.fast)
        bucket = by_model.get(key)
        if bucket is None:
            bucket = by_model[key] = [0] * 11
        bucket[0] += 1
        for n, value in enumerate(counts, start=1):
            if value > long:
                bucket[n] += long
                bucket[n + 5] += value - long
            else:
                bucket[n] += value
    sums = [0] * 5
    cost: Decimal | None = None
    unpriced = 0
    for (model, fast), (messages_of_model, *split) in by_model.items():
        below, above = pricing.Tokens(*split[:5]), pricing.Tokens(*split[5:])
        for n in range(5):
            sums[n] += split[n] + split[n + 5]
        if model == SYNTHETIC:
            continue
        price = pricing.price_for(model)
        if price is None:
            unpriced += messages_of_model
            continue
        priced = pricing.priced(price, below, above, fast=fast)
        cost = priced if cost is None else cost + priced
    tokens = pricing.Tokens(*sums)
    return UsageTotals(
        input_tokens=tokens.input,
        output_tokens=tokens.output,
        cache_creation_input_tokens=tokens.cache_write_5m + tokens.cache_write_1h,
        cache_read_input_tokens=tokens.cache_read,
        cost_usd=None if cost is None else cost.quantize(PLACES, rounding=ROUND_HALF_EVEN),
        unpriced_messages=unpriced,
        messages=count,
        cache_creation_1h_tokens=tokens.cache_write_1h,
    )


def moved(base: UsageTotals, gone: UsageTotals, put: UsageTotals) -> UsageTotals:
    """`base` with some of its messages (totalled in `gone`) counted as `put` instead: the same
    messages grown by later lines, and new ones. What `totals` gives over all the messages again,
    without reading the others: every sum is a sum over messages (the long-context split and the
    price apply message by message, exactly). A message priced in `gone` is priced in `put` (a
    model, once real, is kept), so the cost is None only while neither `base` nor `put` prices one."""
    cost = None
    if base.cost_usd is not None or put.cost_usd is not None:
        cost = ((base.cost_usd or 0) - (gone.cost_usd or 0) + (put.cost_usd or 0)).quantize(
            PLACES, rounding=ROUND_HALF_EVEN
        )
    return UsageTotals(
        cost_usd=cost,
        **{
            name: getattr(base, name) - getattr(gone, name) + getattr(put, name)
            for name in (*FIELDS, "unpriced_messages", "messages", "cache_creation_1h_tokens")
        },
    )


def models(found: Iterable[MessageUsage]) -> list[str]:
    """The models the messages name, in first-seen order (synthetic and missing left out)."""
    return list(dict.fromkeys(m.model for m in found if m.model and not m.synthetic))


# The words every page uses for token figures (one meaning each, wherever they appear):
# - "in", "out", "cache read", "cache write": the four counts of FIELDS, each message counted once;
# - "tokens": the four added up (ccusage's "total tokens"), over whatever messages the figure names;
# - "context": what one call read, in + cache read + cache write (formats-claude-code.md §6);
#   "peak context" is the largest of one session's calls.
CONTEXT = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


def tokens(counts: object) -> int:
    """The tokens of a message, a run or a session: in + out + cache read + cache write."""
    return sum(getattr(counts, name, 0) or 0 for name in FIELDS)
