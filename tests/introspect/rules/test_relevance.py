"""Relevance from labels: the seeded sample, each fire's verdict, precision, κ and the AUCs per
channel, against values worked out by hand."""

from __future__ import annotations

import pytest

from introspect.rules.relevance import (
    DISPUTED,
    IRRELEVANT,
    RELEVANT,
    UNSURE,
    Label,
    agreements,
    channel_aucs,
    cohen_kappa,
    fire_verdict,
    precision,
    relevance,
    sample,
)

FIRES = [f"fire-{n:03}" for n in range(200)]


def test_it_draws_the_same_sample_for_the_same_seed_whatever_the_order():
    assert sample(FIRES, 40, "7") == sample(list(reversed(FIRES)), 40, "7")
    assert len(sample(FIRES, 40, "7")) == 40 == len(set(sample(FIRES, 40, "7")))
    assert sample(FIRES, 40, "7") != sample(FIRES, 40, "8")


def test_it_keeps_a_drawn_sample_when_the_frame_grows():
    before = sample(FIRES, 40, "7")
    after = sample(FIRES + [f"late-{n}" for n in range(5)], 40, "7")
    # Each late fire may push out one sampled fire, never reorder those kept.
    kept = [fire for fire in after if fire in before]
    assert len(kept) >= 35 and kept == [fire for fire in before if fire in kept]


def test_it_draws_every_fire_about_equally_often():
    # Uniform: over 400 seeds each of 20 fires is drawn into a sample of 5 about 400 · 5/20 = 100 times.
    fires = FIRES[:20]
    counts = {fire: 0 for fire in fires}
    for seed in range(400):
        for fire in sample(fires, 5, str(seed)):
            counts[fire] += 1
    assert all(60 <= n <= 140 for n in counts.values()), counts


def test_a_fires_verdict_is_its_labellers_agreed_decisive_one():
    assert fire_verdict([RELEVANT]) == RELEVANT
    assert fire_verdict([RELEVANT, UNSURE]) == RELEVANT
    assert fire_verdict([UNSURE, UNSURE]) == UNSURE
    assert fire_verdict([RELEVANT, IRRELEVANT]) == DISPUTED


def test_precision_is_relevant_over_decided_with_adr_195s_interval():
    found = precision([RELEVANT] * 4 + [IRRELEVANT] * 36 + [UNSURE] * 3 + [DISPUTED])
    assert (found.decided, found.labelled, found.estimate) == (40, 44, 0.1)
    assert found.interval.low == pytest.approx(0.0396, abs=1e-4)
    assert found.interval.high == pytest.approx(0.2305, abs=1e-4)
    assert precision([UNSURE]).estimate is None


def test_cohen_kappa_by_hand():
    # 10 items: agree R 3, agree I 4, R/I 2, I/R 1. Observed 0.7; A says R 5, I 5; B says R 4, I 6;
    # chance (5·4 + 5·6)/100 = 0.5; κ = (0.7 − 0.5)/(1 − 0.5) = 0.4.
    pairs = [("r", "r")] * 3 + [("i", "i")] * 4 + [("r", "i")] * 2 + [("i", "r")]
    assert cohen_kappa(pairs) == pytest.approx(0.4)
    # Three verdicts: agree on R, I, U once each, one R/U. Observed 3/4; A: R 2, I 1, U 1; B: R 1, I 1,
    # U 2; chance (2·1 + 1·1 + 1·2)/16 = 5/16; κ = (12/16 − 5/16)/(11/16) = 7/11.
    assert cohen_kappa([("r", "r"), ("i", "i"), ("u", "u"), ("r", "u")]) == pytest.approx(7 / 11)
    assert cohen_kappa([("r", "r"), ("r", "r")]) is None  # 0/0: one verdict throughout
    assert cohen_kappa([]) is None


def test_agreements_pair_labellers_over_the_fires_both_labelled():
    labels = [
        Label("a", "ann", RELEVANT),
        Label("a", "bob", RELEVANT),
        Label("b", "ann", IRRELEVANT),
        Label("b", "bob", RELEVANT),
        Label("c", "ann", IRRELEVANT),  # bob never saw c
        Label("d", "cid", UNSURE),  # cid shares nothing
    ]
    [found] = agreements(labels)
    assert (found.first, found.second, found.items, found.agreed) == ("ann", "bob", 2, 1)
    # ann: R 1, I 1; bob: R 2. Chance (1·2)/4 = 0.5; observed 0.5; κ 0.
    assert found.kappa == pytest.approx(0.0)


def test_auc_per_channel_of_score_and_of_p_yes():
    labels = [
        Label("1", "ann", RELEVANT, channel="semantic:embedding:en", fire_score=0.9, p_yes=0.8),
        Label("2", "ann", RELEVANT, channel="semantic:embedding:en", fire_score=0.5, p_yes=0.2),
        Label("3", "ann", IRRELEVANT, channel="semantic:embedding:en", fire_score=0.4, p_yes=0.1),
        Label("4", "ann", IRRELEVANT, channel="semantic", fire_score=0.5, p_yes=None),
        Label("5", "ann", IRRELEVANT, channel="semantic", fire_score=0.1, p_yes=0.3),
        Label("6", "ann", UNSURE, channel="semantic", fire_score=0.99),  # not decided: left out
        Label("7", "ann", RELEVANT, channel="keyword", fire_score=None),
    ]
    semantic, keyword = channel_aucs(labels)[::-1]
    assert semantic.channel == "semantic" and (semantic.relevant, semantic.irrelevant) == (2, 3)
    # Score: 0.9 beats 0.4, 0.5, 0.1 (3); 0.5 beats 0.4 and 0.1, ties 0.5 (2.5): 5.5 of 6 pairs.
    assert semantic.score_auc == pytest.approx(5.5 / 6) and semantic.scored == 5
    # P(yes): 0.8 beats 0.1, 0.3 (2); 0.2 beats 0.1 only (1): 3 of 4 pairs.
    assert semantic.p_yes_auc == pytest.approx(0.75) and semantic.judged == 4
    assert keyword.channel == "keyword" and keyword.score_auc is None and keyword.p_yes_auc is None


def test_relevance_counts_each_fire_once_per_way():
    labels = [
        Label("1", "ann", RELEVANT, way="w/a"),
        Label("1", "bob", RELEVANT, way="w/a"),
        Label("2", "ann", IRRELEVANT, way="w/a"),
        Label("2", "bob", RELEVANT, way="w/a"),
        Label("3", "ann", IRRELEVANT, way="w/b"),
    ]
    found = relevance(labels)
    assert (found.labels, found.labellers) == (5, 2)
    assert (found.overall.relevant, found.overall.irrelevant, found.overall.disputed) == (1, 1, 1)
    a, b = found.ways
    assert (a.way, a.precision.relevant, a.precision.disputed, a.precision.decided) == ("w/a", 1, 1, 1)
    assert (b.way, b.precision.estimate) == ("w/b", 0.0)
