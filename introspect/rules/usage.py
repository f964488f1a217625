"""Token usage per assistant message, and a session's totals and cost from them.

Claude Code writes one line per content block; the lines of one API response share `message.id`
and `requestId` and repeat its usage as the response streams, so `output_tokens` grows line by
line and the last line carries the final count (ccusage/ccusage#797; formats-claude-code.md §6).
Rule (peers.md §8, over ccusage 17.2.1's first line): one usage per message.id + requestId across
every file of a session (trunk, subagent files, the copies a resumed session replays), the largest
value of each field over the lines sharing the key. A line lacking either id is a message of its
own, never merged with another.

Cost is per message at that message's model's list price (rules/pricing.py). A `<synthetic>`
message (an interrupt, an API error) is neither priced nor counted as unpriced (§6: skip it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

from introspect.rules import pricing

FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
SYNTHETIC = "<synthetic>"
# Every list price is a whole number of cents per million tokens, so a cost is a whole number of
# hundred-millionths of a dollar: kept to eight places (the column's), it is exact, never rounded.
PLACES = Decimal("0.00000001")

# A usage row: message id, request id, model, then the four FIELDS (None: the line did not say).
Row = tuple[str | None, str | None, str | None, int | None, int | None, int | None, int | None]


@dataclass(frozen=True)
class MessageUsage:
    """One assistant message (one API response): its model and final token counts."""

    message_id: str | None
    request_id: str | None
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    @property
    def synthetic(self) -> bool:
        return self.model == SYNTHETIC

    @property
    def cost_usd(self) -> Decimal | None:
        """USD at the model's list price, exact; None for a model the table does not price."""
        if self.synthetic:
            return None
        return pricing.cost(
            self.model,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cache_creation_input_tokens=self.cache_creation_input_tokens,
            cache_read_input_tokens=self.cache_read_input_tokens,
        )


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


def messages(rows: Iterable[Row]) -> list[MessageUsage]:
    """One MessageUsage per message.id + requestId (a row without both is its own), first seen first."""
    merged: dict[object, list] = {}
    for n, (message_id, request_id, model, *counts) in enumerate(rows):
        key = (message_id, request_id) if message_id and request_id else n
        found = merged.get(key)
        if found is None:
            merged[key] = [message_id, request_id, model or "", *(value or 0 for value in counts)]
            continue
        if model and (not found[2] or found[2] == SYNTHETIC):
            found[2] = model  # a real model over a missing or synthetic one
        for i, value in enumerate(counts, start=3):
            if value is not None and value > found[i]:
                found[i] = value
    return [MessageUsage(*fields) for fields in merged.values()]


def totals(found: Iterable[MessageUsage]) -> UsageTotals:
    """Sum of the messages' final counts; cost summed over the priced ones (exact: PLACES).

    The tokens of each model are summed first and priced once: exact decimals, so the same as
    pricing message by message and adding up."""
    sums = dict.fromkeys(FIELDS, 0)
    by_model: dict[str, list[int]] = {}
    count = 0
    for message in found:
        count += 1
        counts = (
            message.input_tokens,
            message.output_tokens,
            message.cache_creation_input_tokens,
            message.cache_read_input_tokens,
        )
        for name, value in zip(FIELDS, counts, strict=True):
            sums[name] += value
        # [messages, *counts] per model
        model = by_model.setdefault(message.model, [0, 0, 0, 0, 0])
        model[0] += 1
        for i, value in enumerate(counts, start=1):
            model[i] += value
    cost: Decimal | None = None
    unpriced = 0
    for model, (messages_of_model, *counts) in by_model.items():
        if model == SYNTHETIC:
            continue
        priced = pricing.cost(model, **dict(zip(FIELDS, counts, strict=True)))
        if priced is None:
            unpriced += messages_of_model
        else:
            cost = priced if cost is None else cost + priced
    return UsageTotals(
        **sums,
        cost_usd=None if cost is None else cost.quantize(PLACES, rounding=ROUND_HALF_EVEN),
        unpriced_messages=unpriced,
        messages=count,
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
