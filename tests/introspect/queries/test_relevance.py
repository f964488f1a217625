"""Fires and labels over a frame: what a sample is drawn from, the precision and AUCs its labels give,
and the labelled fires as plain records for the proposals."""

from __future__ import annotations

import dataclasses

import pytest

from introspect.models import TurnWay
from introspect.queries.relevance import LabelFrame, LabelledFire, frame_fires, labelled_fires, relevance
from tests.introspect import effectiveness_corpus as corpus
from tests.introspect import labelled_corpus as labelled

pytestmark = pytest.mark.django_db


@pytest.fixture
def built(home):
    corpus.build(home)


def test_the_frame_holds_every_injected_fire_and_narrows_by_way_project_and_channel(built):
    assert len(frame_fires(LabelFrame())) == 12 + 3
    assert sorted(frame_fires(LabelFrame(way="w/rare"))) == sorted(labelled.fires_of("w/rare"))
    assert len(frame_fires(LabelFrame(project=corpus.PROJECT, channel="keyword"))) == 15
    assert frame_fires(LabelFrame(channel="semantic")) == []
    assert frame_fires(LabelFrame(project="/src/effect-other")) == []


def test_precision_and_the_score_auc_come_from_the_labels(built):
    often = labelled.fires_of("w/often")
    # Scores by hand: the relevant fires 0.9 and 0.6, the irrelevant ones 0.7, 0.2 and 0.1.
    for fire, score in zip(often[:5], (0.9, 0.6, 0.7, 0.2, 0.1), strict=True):
        TurnWay.objects.filter(event__sha256=fire).update(fire_score=score)
    verdicts = ["relevant", "relevant", "irrelevant", "irrelevant", "irrelevant"]
    labelled.label("ann", dict(zip(often[:5], verdicts, strict=True)))
    found = relevance()
    way = next(w for w in found.ways if w.way == "w/often")
    assert (way.precision.relevant, way.precision.decided) == (2, 5)
    [keyword] = way.channels
    # 0.9 beats all three; 0.6 beats 0.2 and 0.1: 5 of 6 pairs.
    assert keyword.channel == "keyword" and keyword.score_auc == pytest.approx(5 / 6)
    assert keyword.p_yes_auc is None and keyword.judged == 0
    assert relevance(way="w/rare").labels == 0


def test_labelled_fires_carry_the_prompt_they_fired_on(built):
    first = labelled.fires_of("w/often")[0]
    labelled.label("ann", {first: "irrelevant"}, note="about make, not commits")
    [found] = labelled_fires(way="w/often")
    assert isinstance(found, LabelledFire) and dataclasses.is_dataclass(found)
    assert (found.way, found.project, found.channel, found.verdict, found.labeller) == (
        "w/often",
        corpus.PROJECT,
        "keyword",
        "irrelevant",
        "ann",
    )
    assert found.prompt == "please do task 1" and found.note == "about make, not commits"
    assert found.matched == "commit"  # the keyword span the fire logged
    assert (found.session, found.turn, found.score, found.p_yes) == (corpus.SID, 1, None, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.verdict = "relevant"
    assert labelled_fires(verdict="relevant") == []


def test_labelled_fires_take_two_queries_however_many(built, django_assert_max_num_queries):
    labelled.label("ann", {fire: "irrelevant" for fire in labelled.fires_of("w/often")})
    with django_assert_max_num_queries(2):
        assert len(labelled_fires()) == 12
