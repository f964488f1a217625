"""List prices per model, and what one assistant message's tokens cost at them.

Transcripts carry no cost (formats-claude-code.md §6), so a cost is tokens × a list price: an
estimate, labelled as one wherever it is shown.

Source: Anthropic's "Model pricing" table, https://platform.claude.com/docs/en/about-claude/pricing
(formerly docs.anthropic.com/en/docs/about-claude/pricing), read on PRICES_AS_OF. USD per million
tokens, four prices apart per model: base input, 5-minute cache writes, cache hits and refreshes,
output. Where a model follows the usual ratios a cache write is 1.25× input and a cache read 0.1×
input; Claude 3 Haiku is the exception the table lists (0.30 and 0.03 on a 0.25 input).

Not applied (the transcript lines waysweb keeps cannot tell them apart): 1-hour cache writes (2× input;
every cache write is priced as a 5-minute one), the long-context premium of requests over 200K input
tokens, batch and fast-mode rates. A model missing here has no price (None), never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import lru_cache

PRICES_AS_OF = date(2026, 12, 1)
PER = Decimal(1_000_000)


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: Decimal
    cache_write: Decimal  # 5-minute cache write
    cache_read: Decimal  # cache hit or refresh
    output: Decimal


def price(input: str, cache_write: str, cache_read: str, output: str) -> Price:
    return Price(Decimal(input), Decimal(cache_write), Decimal(cache_read), Decimal(output))


# The model id as the API reports it, without its date suffix (claude-sonnet-4-5-20250929).
PRICES: dict[str, Price] = {
    "claude-opus-4-6": price("5", "6.25", "0.50", "25"),
    "claude-opus-4-5": price("5", "6.25", "0.50", "25"),
    "claude-opus-4-1": price("15", "18.75", "1.50", "75"),
    "claude-opus-4": price("15", "18.75", "1.50", "75"),
    "claude-sonnet-4-6": price("3", "3.75", "0.30", "15"),
    "claude-sonnet-4-5": price("3", "3.75", "0.30", "15"),
    "claude-sonnet-4": price("3", "3.75", "0.30", "15"),
    "claude-haiku-4-5": price("1", "1.25", "0.10", "5"),
    "claude-3-7-sonnet": price("3", "3.75", "0.30", "15"),
    "claude-3-5-sonnet": price("3", "3.75", "0.30", "15"),
    "claude-3-5-haiku": price("0.80", "1", "0.08", "4"),
    "claude-3-opus": price("15", "18.75", "1.50", "75"),
    # Claude 3 Sonnet (retired) never offered prompt caching: its lines report no cache tokens.
    "claude-3-sonnet": price("3", "3.75", "0.30", "15"),
    "claude-3-haiku": price("0.25", "0.30", "0.03", "1.25"),
}
# Longest id first: claude-opus-4-1 is tried before claude-opus-4.
BY_LENGTH = sorted(PRICES, key=len, reverse=True)


@lru_cache(maxsize=256)  # a session names a few models over thousands of messages
def price_for(model: str | None) -> Price | None:
    """The list price of a model id (dated, or behind a cloud prefix such as `us.anthropic.`)."""
    for model_id in BY_LENGTH:
        # Not followed by another version digit (claude-opus-4 ≠ claude-opus-4-7); a date suffix is fine.
        if re.search(rf"(?<![A-Za-z0-9]){re.escape(model_id)}(?![A-Za-z0-9])(?!-\d(?:\D|$))", model or ""):
            return PRICES[model_id]
    return None


def cost(
    model: str | None,
    *,
    input_tokens: int,
    output_tokens: int,
    cache_creation_input_tokens: int,
    cache_read_input_tokens: int,
) -> Decimal | None:
    """USD, exact (not rounded), or None when the model has no price."""
    found = price_for(model)
    if found is None:
        return None
    return (
        input_tokens * found.input
        + cache_creation_input_tokens * found.cache_write
        + cache_read_input_tokens * found.cache_read
        + output_tokens * found.output
    ) / PER
