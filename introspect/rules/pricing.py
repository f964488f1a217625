"""Estimated cost of a session from its de-duplicated token totals.

Transcripts carry no cost (formats-claude-code.md §6), so this is tokens × a list-price table:
an estimate, labelled as one wherever it is shown. Prices are USD per million tokens; cache
writes cost 1.25× input (5-minute cache) and cache reads 0.1× input, as Anthropic bills them.
"""

from __future__ import annotations

import re

# Longest id first when matching; a model we do not know has no estimate (never a guess).
PRICES = {
    "claude-opus-4": (15.0, 75.0),
    "claude-opus-4-1": (15.0, 75.0),
    "claude-opus-4-5": (5.0, 25.0),
    "claude-opus-4-6": (5.0, 25.0),
    "claude-sonnet-4": (3.0, 15.0),
    "claude-sonnet-4-5": (3.0, 15.0),
    "claude-sonnet-4-6": (3.0, 15.0),
    "claude-haiku-4-5": (1.0, 5.0),
    "claude-3-5-haiku": (0.8, 4.0),
}
CACHE_WRITE, CACHE_READ = 1.25, 0.1


def price_for(model: str) -> tuple[float, float] | None:
    for model_id in sorted(PRICES, key=len, reverse=True):
        # Not followed by another version digit (claude-opus-4 ≠ claude-opus-4-7); a date suffix is fine.
        if re.search(rf"(?<![A-Za-z0-9]){re.escape(model_id)}(?![A-Za-z0-9])(?!-\d(?:\D|$))", model or ""):
            return PRICES[model_id]
    return None


def estimate(
    *,
    model: str,
    input_tokens: int,
    output_tokens: int,
    cache_creation_input_tokens: int,
    cache_read_input_tokens: int,
) -> float | None:
    """USD, or None when the model is not in the table."""
    price = price_for(model)
    if price is None:
        return None
    per_in, per_out = price
    return (
        input_tokens * per_in
        + cache_creation_input_tokens * per_in * CACHE_WRITE
        + cache_read_input_tokens * per_in * CACHE_READ
        + output_tokens * per_out
    ) / 1_000_000
