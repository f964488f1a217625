"""Relevance from people's labels (decisions-and-effectiveness.md §8.5, §8.6; ADR-195's method), pure:
a seeded uniform sample of fires, each fire's verdict from its labels, precision with its Wilson
interval, Cohen's κ between two labellers, and per channel the AUC of the matcher's score and of the
judge's P(yes) against the verdicts.

The sample is bottom-k by hash: each fire's priority is sha256(seed, fire) and the sample is the k
fires of lowest priority, in that order. That is a uniform random sample without replacement (every
k-subset equally likely, the hash standing in for a random draw), the same for the same seed
whatever order the database returns the fires in, and stable as the frame grows: a fire imported
later enters the sample only by drawing a lower priority than a sampled one, so a half-labelled
sample keeps the fires already labelled.
"""

from __future__ import annotations

import hashlib
import heapq
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from introspect.rules import arm_statistics as stats
from introspect.rules.channels import channel_kind

RELEVANT = "relevant"
IRRELEVANT = "irrelevant"
UNSURE = "unsure"
VERDICTS = (RELEVANT, IRRELEVANT, UNSURE)
# Two labellers who gave one fire different decisive verdicts: the fire counts in neither.
DISPUTED = "disputed"


def priority(seed: str, fire: str) -> bytes:
    return hashlib.sha256(f"{seed}\x00{fire}".encode()).digest()


def sample(fires: Iterable[str], size: int, seed: str) -> list[str]:
    """`size` of the distinct `fires`, drawn uniformly at random with `seed`, lowest priority first.
    The seed's part of the hash is computed once and copied per fire; only the `size` lowest are
    kept in order (a heap), not the whole frame sorted."""
    seeded = hashlib.sha256(f"{seed}\x00".encode())

    def of(fire: str) -> bytes:
        found = seeded.copy()
        found.update(fire.encode())
        return found.digest()

    return heapq.nsmallest(max(size, 0), set(fires), key=of)


@dataclass(frozen=True)
class Label:
    """One person's label of one fire, with what the statistics read of the fire."""

    fire: str
    labeller: str
    verdict: str
    way: str = ""
    channel: str = ""
    fire_score: float | None = None
    p_yes: float | None = None


def fire_verdict(verdicts: Iterable[str]) -> str:
    """A fire's verdict from its labels: the decisive one (relevant or irrelevant) when its labellers
    agree on it, unsure when nobody was decisive, DISPUTED when they gave both."""
    decisive = {v for v in verdicts if v in (RELEVANT, IRRELEVANT)}
    if len(decisive) > 1:
        return DISPUTED
    return decisive.pop() if decisive else UNSURE


def verdicts_by_fire(labels: Iterable[Label]) -> dict[str, str]:
    found: dict[str, list[str]] = defaultdict(list)
    for label in labels:
        found[label.fire].append(label.verdict)
    return {fire: fire_verdict(verdicts) for fire, verdicts in found.items()}


@dataclass(frozen=True)
class Precision:
    """Of the labelled fires, the share relevant among those decided (unsure and disputed left out)."""

    relevant: int
    irrelevant: int
    unsure: int
    disputed: int

    @property
    def decided(self) -> int:
        return self.relevant + self.irrelevant

    @property
    def labelled(self) -> int:
        return self.decided + self.unsure + self.disputed

    @property
    def estimate(self) -> float | None:
        return self.relevant / self.decided if self.decided else None

    @property
    def interval(self) -> stats.Interval:
        return stats.wilson(self.relevant, self.decided)


def precision(verdicts: Iterable[str]) -> Precision:
    """Precision over fires' verdicts (one per fire, from `verdicts_by_fire`)."""
    counts = Counter(verdicts)
    return Precision(counts[RELEVANT], counts[IRRELEVANT], counts[UNSURE], counts[DISPUTED])


def cohen_kappa(pairs: Sequence[tuple[str, str]]) -> float | None:
    """Cohen's κ of two labellers over the items both labelled, (theirs, the other's) per item:
    (observed agreement − chance agreement) / (1 − chance agreement), chance from each one's own
    shares of each verdict. None without items, or when chance agreement is 1 (both gave one and the
    same verdict throughout: κ is 0/0)."""
    n = len(pairs)
    if not n:
        return None
    observed = sum(1 for a, b in pairs if a == b) / n
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    chance = sum(first[v] * second[v] for v in set(first) | set(second)) / (n * n)
    if chance >= 1:
        return None
    return (observed - chance) / (1 - chance)


@dataclass(frozen=True)
class Agreement:
    """Two labellers over the fires both labelled."""

    first: str
    second: str
    items: int
    agreed: int
    kappa: float | None


def agreements(labels: Iterable[Label]) -> list[Agreement]:
    """Every pair of labellers who labelled a fire in common, with their κ, by name."""
    by_labeller: dict[str, dict[str, str]] = defaultdict(dict)
    for label in labels:
        by_labeller[label.labeller][label.fire] = label.verdict
    found = []
    for first, second in combinations(sorted(by_labeller), 2):
        common = sorted(set(by_labeller[first]) & set(by_labeller[second]))
        if not common:
            continue
        pairs = [(by_labeller[first][fire], by_labeller[second][fire]) for fire in common]
        found.append(
            Agreement(first, second, len(pairs), sum(1 for a, b in pairs if a == b), cohen_kappa(pairs))
        )
    return found


@dataclass(frozen=True)
class ChannelAuc:
    """How well a score ranks the relevant fires of one channel above the irrelevant ones."""

    channel: str
    relevant: int
    irrelevant: int
    score_auc: float | None  # the matcher's fire_score (or p)
    scored: int  # decided fires with a score
    p_yes_auc: float | None  # the judge's P(yes)
    judged: int  # decided fires the judge scored


def channel_aucs(labels: Sequence[Label]) -> list[ChannelAuc]:
    """Per channel family (rules/channels.py), the AUC (Mann–Whitney) of fire_score and of p_yes
    against each fire's verdict; fires undecided or disputed are left out, as are missing scores."""
    verdicts = verdicts_by_fire(labels)
    fires: dict[str, Label] = {}
    for label in labels:
        fires.setdefault(label.fire, label)
    by_channel: dict[str, list[tuple[Label, bool]]] = defaultdict(list)
    for fire, label in fires.items():
        if verdicts[fire] in (RELEVANT, IRRELEVANT):
            by_channel[channel_kind(label.channel)].append((label, verdicts[fire] == RELEVANT))
    found = []
    for channel in sorted(by_channel):
        rows = by_channel[channel]
        scores = [(label.fire_score, good) for label, good in rows if label.fire_score is not None]
        judged = [(label.p_yes, good) for label, good in rows if label.p_yes is not None]
        found.append(
            ChannelAuc(
                channel,
                sum(1 for _, good in rows if good),
                sum(1 for _, good in rows if not good),
                auc_of(scores),
                len(scores),
                auc_of(judged),
                len(judged),
            )
        )
    return found


def auc_of(scored: Sequence[tuple[float, bool]]) -> float | None:
    return stats.auc([s for s, good in scored if good], [s for s, good in scored if not good])


@dataclass(frozen=True)
class WayRelevance:
    way: str
    precision: Precision
    channels: list[ChannelAuc]


@dataclass(frozen=True)
class Relevance:
    """Everything the labels say over a frame: overall, per way, and the labellers' agreement."""

    labels: int
    labellers: int
    overall: Precision
    channels: list[ChannelAuc]
    ways: list[WayRelevance]
    agreements: list[Agreement]


def relevance(labels: Sequence[Label]) -> Relevance:
    verdicts = verdicts_by_fire(labels)
    by_way: dict[str, list[Label]] = defaultdict(list)
    for label in labels:
        by_way[label.way].append(label)
    ways = [
        WayRelevance(
            way,
            precision(verdicts[fire] for fire in {label.fire for label in rows}),
            channel_aucs(rows),
        )
        for way, rows in sorted(by_way.items())
    ]
    return Relevance(
        labels=len(labels),
        labellers=len({label.labeller for label in labels}),
        overall=precision(verdicts.values()),
        channels=channel_aucs(labels),
        ways=ways,
        agreements=agreements(labels),
    )
