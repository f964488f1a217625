"""A way's two arms over conversation turns (decisions-and-effectiveness.md §8.5), pure: the turns
where it was shown (fired, re-disclosed) against the turns where it matched but was not shown
(near-miss, keyword-gated, judge-blocked, held by its refire curve or the context cap), and for each
outcome signal the rate (or mean) in each arm, their difference with its 95 % interval, and n.

The arms are picked by the matcher and the judge, not at random (§5): a difference is a
correlation between being shown and what followed, never the effect of the way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from introspect.rules import arm_statistics as stats
from introspect.rules import outcome_signals as signals

SHOWN = "shown"
NOT_SHOWN = "matched, not shown"

# Decision-log outcome results (§1.5.1) by arm; any other result (stashed, error, not_fireable,
# withheld_for_parent, ancestor_block) is counted in the exposure but belongs to neither arm.
SHOWN_RESULTS = frozenset({"fired", "redisclosed"})
NOT_SHOWN_RESULTS = frozenset(
    {"near_miss", "keyword_gated", "judge_block", "held_refire", "held_context_cap"}
)

# Turn signals read as "the turn had it" (a rate of turns) and as a mean per turn.
RATE_SIGNALS = signals.TURN_SIGNALS
MEAN_SIGNALS = (signals.TOKENS, signals.COST)
# Any of these in a turn is trouble; the ways without evidence that showing them goes with less of
# it come first on the page.
TROUBLE = "trouble"
TROUBLE_SIGNALS = (
    signals.TOOL_ERRORS,
    signals.CORRECTION,
    signals.INTERRUPTS,
    signals.RETRIES,
    signals.CHURN,
)
TROUBLE_DEFINITION = "a turn with a tool error, a correction, an interrupt, a retry or churned edits"
CHARS_PER_TOKEN = 4  # a rough rule for English text; the page says the tokens are estimated


@dataclass(frozen=True)
class Turn:
    """One conversation turn's outcome, as the arms read it."""

    key: tuple[int, int]  # (session, conversation turn number)
    had: frozenset[str]  # the rate signals it had
    tokens: int
    cost: float | None


@dataclass(frozen=True)
class RateArms:
    signal: str
    shown_hits: int
    shown_n: int
    other_hits: int
    other_n: int
    difference: stats.Difference | None
    too_few: bool

    @property
    def shown_rate(self) -> float | None:
        return self.shown_hits / self.shown_n if self.shown_n else None

    @property
    def other_rate(self) -> float | None:
        return self.other_hits / self.other_n if self.other_n else None

    @property
    def shown_interval(self) -> stats.Interval:
        return stats.wilson(self.shown_hits, self.shown_n)

    @property
    def other_interval(self) -> stats.Interval:
        return stats.wilson(self.other_hits, self.other_n)


@dataclass(frozen=True)
class MeanArms:
    signal: str
    shown_mean: float | None
    shown_n: int
    other_mean: float | None
    other_n: int
    difference: stats.Difference | None
    too_few: bool


@dataclass
class WayArms:
    way: str
    exposure: dict[str, int] = field(default_factory=dict)  # result → outcomes (or event rows)
    shown: set = field(default_factory=set)  # turn keys
    other: set = field(default_factory=set)
    placed_by_time: int = 0  # outcomes placed in a turn by the clock, not by a key
    fires: int = 0
    pulls: int = 0  # ways_read pulls of it in the decision log
    out_of_band: int = 0  # of them, re-read inside its refire window (`refire:` longer than the work needs)
    unspent_out_of_band: int = 0  # of them, made after a reviewer last shortened its refire: (each read once)
    injected_chars: int = 0  # the way's body, as read today
    rates: list[RateArms] = field(default_factory=list)
    means: list[MeanArms] = field(default_factory=list)

    @property
    def estimated_tokens(self) -> int:
        """What it cost: its injected characters over its fires, in tokens at CHARS_PER_TOKEN."""
        return self.fires * self.injected_chars // CHARS_PER_TOKEN

    @property
    def trouble(self) -> RateArms | None:
        return next((r for r in self.rates if r.signal == TROUBLE), None)

    @property
    def helps(self) -> bool:
        """Whether shown turns had significantly less trouble than the matched-not-shown ones."""
        found = self.trouble
        return bool(found and not found.too_few and found.difference and found.difference.high < 0)


def rate_arms(
    signal: str, shown: list[Turn], other: list[Turn], members: Iterable[str], minimum: int
) -> RateArms:
    names = set(members)
    a = sum(1 for t in shown if t.had & names)
    b = sum(1 for t in other if t.had & names)
    few = stats.too_few(len(shown), len(other), minimum=minimum)
    return RateArms(
        signal, a, len(shown), b, len(other),
        None if few else stats.proportion_difference(a, len(shown), b, len(other)),
        few,
    )  # fmt: skip


def mean_arms(signal: str, a: list[float], b: list[float], minimum: int) -> MeanArms:
    few = stats.too_few(len(a), len(b), minimum=minimum)
    return MeanArms(
        signal, stats.mean(a), len(a), stats.mean(b), len(b),
        None if few else stats.mean_difference(a, b),
        few,
    )  # fmt: skip


def measure(
    way: WayArms,
    turns: dict[tuple[int, int], Turn],
    minimum: int = stats.MIN_TURNS,
    *,
    injected_chars: int | None = None,
) -> WayArms:
    """The way as counted, measured: its rates and means from the turns of each arm (a turn not
    stored is left out), and its body's length (`injected_chars`, when given). A new WayArms; the
    one counted into is left as it is."""
    # A turn where the way was shown is in the shown arm, whatever else held it in that turn.
    other_keys = way.other - way.shown
    shown = [turns[k] for k in sorted(way.shown) if k in turns]
    other = [turns[k] for k in sorted(other_keys) if k in turns]
    rates = [rate_arms(TROUBLE, shown, other, TROUBLE_SIGNALS, minimum)] + [
        rate_arms(name, shown, other, (name,), minimum) for name in RATE_SIGNALS
    ]
    means = [
        mean_arms(signals.TOKENS, [t.tokens for t in shown], [t.tokens for t in other], minimum),
        mean_arms(
            signals.COST,
            [t.cost for t in shown if t.cost is not None],
            [t.cost for t in other if t.cost is not None],
            minimum,
        ),
    ]
    chars = way.injected_chars if injected_chars is None else injected_chars
    return replace(way, other=other_keys, injected_chars=chars, rates=rates, means=means)


def order(ways: Iterable[WayArms]) -> list[WayArms]:
    """Costliest and least helpful first: ways without evidence of less trouble when shown, then by
    the tokens they cost, most first, then by name."""
    return sorted(ways, key=lambda w: (w.helps, -w.estimated_tokens, w.way))
