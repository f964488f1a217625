"""The statistics the effectiveness page shows, pure: a proportion's Wilson interval, the difference
of two proportions with Newcombe's interval, a difference of means with a Welch (normal) interval,
the AUC of a score against labels (Mann–Whitney, ties half), and the minimum n below which the page
says "too few turns" instead of a number.

Why these: Wilson and Newcombe (hybrid score, his method 10) keep their coverage near 95 % at the
small counts and rates near 0 a way's arms have, where the Wald interval does not and can leave
[0, 1]; ADR-195 reported its precision with Wilson (4 of 40: 4–23 %). The means' interval is the
normal approximation, which is rough below a few dozen turns: MIN_TURNS keeps the smallest arms out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import sqrt

Z95 = 1.959963984540054  # the two-sided 95 % normal quantile
# Below this many turns in either arm the page says "too few turns": with 10 turns a Wilson interval
# is still ±25 points wide around an even rate, so a difference would only be noise shown as a number.
MIN_TURNS = 10


@dataclass(frozen=True)
class Interval:
    low: float
    high: float


@dataclass(frozen=True)
class Difference:
    """An estimate of arm A minus arm B with its 95 % interval."""

    estimate: float
    low: float
    high: float

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0


def wilson(hits: int, n: int, z: float = Z95) -> Interval:
    """Wilson's score interval for hits of n; n = 0 knows nothing: [0, 1]."""
    if n <= 0:
        return Interval(0.0, 1.0)
    p = hits / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return Interval(max(0.0, centre - half), min(1.0, centre + half))


def proportion_difference(hits_a: int, n_a: int, hits_b: int, n_b: int) -> Difference | None:
    """p_a − p_b with Newcombe's hybrid score interval (from each arm's Wilson interval); None when an
    arm is empty."""
    if n_a <= 0 or n_b <= 0:
        return None
    p_a, p_b = hits_a / n_a, hits_b / n_b
    a, b = wilson(hits_a, n_a), wilson(hits_b, n_b)
    d = p_a - p_b
    low = d - sqrt((p_a - a.low) ** 2 + (b.high - p_b) ** 2)
    high = d + sqrt((a.high - p_a) ** 2 + (p_b - b.low) ** 2)
    return Difference(d, low, high)


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def mean_difference(a: Sequence[float], b: Sequence[float], z: float = Z95) -> Difference | None:
    """mean(a) − mean(b) with a Welch normal interval; None unless each arm has two values or more."""
    if len(a) < 2 or len(b) < 2:
        return None
    mean_a, mean_b = sum(a) / len(a), sum(b) / len(b)
    var_a = sum((x - mean_a) ** 2 for x in a) / (len(a) - 1)
    var_b = sum((x - mean_b) ** 2 for x in b) / (len(b) - 1)
    half = z * sqrt(var_a / len(a) + var_b / len(b))
    d = mean_a - mean_b
    return Difference(d, d - half, d + half)


def auc(positives: Sequence[float], negatives: Sequence[float]) -> float | None:
    """The chance a positive scores above a negative, a tie counting half (Mann–Whitney U / n₊n₋);
    None without both. Sorted once: O((n₊ + n₋) log), not the pairs."""
    if not positives or not negatives:
        return None
    ranked = sorted([(x, 1) for x in positives] + [(x, 0) for x in negatives])
    rank_sum = 0.0
    i = 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        average_rank = (i + 1 + j) / 2  # ranks i+1 … j share their mean
        rank_sum += average_rank * sum(label for _, label in ranked[i:j])
        i = j
    n_pos, n_neg = len(positives), len(negatives)
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def too_few(*arm_sizes: int, minimum: int = MIN_TURNS) -> bool:
    """Whether any arm is below the minimum n for a number to be shown."""
    return any(n < minimum for n in arm_sizes)
