"""List prices per model and token class, and what tokens cost at them.

Transcripts carry no cost (formats-claude-code.md §6), so a cost is tokens × a list price: an
estimate, labelled as one wherever it is shown. The figure to equal is ccusage 20's (peers.md §9),
so the table and the rules below are the ones ccusage 20.0.24 applies, checked against it token
class by token class (tests/fixtures/ccusage/README.md):

- Five token classes, each at its own price: input, output, cache reads, 5-minute cache writes and
  1-hour cache writes (`usage.cache_creation.ephemeral_1h_input_tokens`; a 1-hour write costs twice
  the input price, Claude 3 Haiku's too, where a 5-minute one costs 1.25× or the sheet's own figure).
- Long context: for a model whose sheet has a second tier (Claude Sonnet 4 and 4.5), the tokens of
  one class in one message past 200,000 cost the tier's price, the first 200,000 the base price.
  (Anthropic bills a whole request over 200K input tokens at the tier; ccusage splits per class,
  and waysweb follows ccusage.)
- Fast mode (`usage.speed == "fast"`): the message costs its model's fast multiple (6× for Opus
  4.6 and 4.7, 2× for Opus 4.8 and Opus 5, 1× for the rest).

Sources, read on PRICES_AS_OF: Anthropic's "Model pricing" table,
https://platform.claude.com/docs/en/about-claude/pricing, and LiteLLM's
model_prices_and_context_window.json as ccusage 20.0.24 bundles it (the same figures, and the
models the table did not list yet: Opus 4.7, 4.8 and 5, Sonnet 5, Fable, Mythos). USD per million
tokens.

Not applied: batch rates, and cloud resellers' own prices (ccusage prices some Bedrock regional ids,
`us.anthropic.…`, 10 % higher; waysweb gives any prefixed id its Anthropic price). A model missing
here has no price (None), never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from datetime import date
from decimal import Decimal
from functools import lru_cache

PRICES_AS_OF = date(2026, 12, 2)
PER = Decimal(1_000_000)
LONG_CONTEXT = 200_000  # tokens of one class in one message priced at the base rate before a tier


@dataclass(frozen=True)
class Rates:
    """USD per million tokens of each class."""

    input: Decimal
    cache_write_5m: Decimal
    cache_write_1h: Decimal
    cache_read: Decimal
    output: Decimal


@dataclass(frozen=True)
class Price:
    rates: Rates
    long_context: Rates | None = None  # a message's tokens of one class past LONG_CONTEXT
    fast: int = 1  # multiple of a fast-mode message's cost

    # The base rates by name, as the table reads them.
    @property
    def input(self) -> Decimal:
        return self.rates.input

    @property
    def output(self) -> Decimal:
        return self.rates.output

    @property
    def cache_write(self) -> Decimal:
        return self.rates.cache_write_5m

    @property
    def cache_write_1h(self) -> Decimal:
        return self.rates.cache_write_1h

    @property
    def cache_read(self) -> Decimal:
        return self.rates.cache_read


@dataclass(frozen=True)
class Tokens:
    """Token counts by class: one message's, or a sum of messages' (the same rates apply to each)."""

    input: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0
    cache_read: int = 0
    output: int = 0

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(*(a + b for a, b in zip(self.counts(), other.counts(), strict=True)))

    def counts(self) -> tuple[int, ...]:
        return tuple(getattr(self, name) for name in CLASSES)

    def split(self) -> tuple[Tokens, Tokens]:
        """(the first LONG_CONTEXT tokens of each class, the rest): one message's, for a tier."""
        counts = self.counts()
        return (
            Tokens(*(min(n, LONG_CONTEXT) for n in counts)),
            Tokens(*(max(n - LONG_CONTEXT, 0) for n in counts)),
        )


CLASSES = tuple(f.name for f in fields(Tokens))


def sheet(input: str, cache_write_5m: str, cache_write_1h: str, cache_read: str, output: str) -> Rates:
    return Rates(*(Decimal(v) for v in (input, cache_write_5m, cache_write_1h, cache_read, output)))


# Claude Sonnet 4 and 4.5 past 200K tokens (the 1M-context beta).
SONNET_LONG = sheet("6", "7.50", "12", "0.60", "22.50")

# The model id as the API reports it, without its date suffix (claude-sonnet-4-5-20250929).
#                        input  5m write  1h write  cache read  output
PRICES: dict[str, Price] = {
    "claude-opus-5": Price(sheet("5", "6.25", "10", "0.50", "25"), fast=2),
    "claude-opus-4-8": Price(sheet("5", "6.25", "10", "0.50", "25"), fast=2),
    "claude-opus-4-7": Price(sheet("5", "6.25", "10", "0.50", "25"), fast=6),
    "claude-opus-4-6": Price(sheet("5", "6.25", "10", "0.50", "25"), fast=6),
    "claude-opus-4-5": Price(sheet("5", "6.25", "10", "0.50", "25")),
    "claude-opus-4-1": Price(sheet("15", "18.75", "30", "1.50", "75")),
    "claude-opus-4": Price(sheet("15", "18.75", "30", "1.50", "75")),
    "claude-4-opus": Price(sheet("15", "18.75", "30", "1.50", "75")),  # the early name of claude-opus-4
    "claude-sonnet-5": Price(sheet("2", "2.50", "4", "0.20", "10")),
    "claude-sonnet-4-6": Price(sheet("3", "3.75", "6", "0.30", "15")),
    "claude-sonnet-4-5": Price(sheet("3", "3.75", "6", "0.30", "15"), SONNET_LONG),
    "claude-sonnet-4": Price(sheet("3", "3.75", "6", "0.30", "15"), SONNET_LONG),
    "claude-4-sonnet": Price(sheet("3", "3.75", "6", "0.30", "15"), SONNET_LONG),
    "claude-haiku-4-5": Price(sheet("1", "1.25", "2", "0.10", "5")),
    "claude-fable-5-1": Price(sheet("10", "12.50", "20", "0.25", "50")),
    "claude-fable-5": Price(sheet("10", "12.50", "20", "1", "50")),
    "claude-mythos-5-1": Price(sheet("10", "12.50", "20", "0.25", "50")),
    "claude-mythos-5": Price(sheet("10", "12.50", "20", "1", "50")),
    "claude-mythos-preview": Price(sheet("10", "12.50", "20", "1", "50")),
    "claude-3-7-sonnet": Price(sheet("3", "3.75", "6", "0.30", "15")),
    "claude-3-5-sonnet": Price(sheet("3", "3.75", "6", "0.30", "15")),
    "claude-3-5-haiku": Price(sheet("0.80", "1", "1.60", "0.08", "4")),
    "claude-3-opus": Price(sheet("15", "18.75", "30", "1.50", "75")),
    # Claude 3 Sonnet (retired) never offered prompt caching: its lines report no cache tokens.
    "claude-3-sonnet": Price(sheet("3", "3.75", "6", "0.30", "15")),
    "claude-3-haiku": Price(sheet("0.25", "0.30", "0.50", "0.03", "1.25")),
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


def at(rates: Rates, tokens: Tokens) -> Decimal:
    """USD per million tokens × tokens, summed over the classes (not yet divided by PER)."""
    return sum(
        (getattr(rates, name) * count for name, count in zip(CLASSES, tokens.counts(), strict=True)),
        Decimal(0),
    )


def priced(found: Price, below: Tokens, above: Tokens, *, fast: bool = False) -> Decimal:
    """USD, exact, of tokens already split at LONG_CONTEXT message by message (`Tokens.split`),
    summed over any number of messages of one model and one speed."""
    total = at(found.rates, below) + at(found.long_context or found.rates, above)
    return total * (found.fast if fast else 1) / PER


def cost(model: str | None, tokens: Tokens, *, fast: bool = False) -> Decimal | None:
    """USD of one message, exact (not rounded), or None when the model has no price."""
    found = price_for(model)
    if found is None:
        return None
    return priced(found, *tokens.split(), fast=fast)
