"""`manage.py introspect effectiveness --json` prints the effectiveness page's numbers."""

from __future__ import annotations

from io import StringIO

import orjson
import pytest
from django.core.management import CommandError, call_command

from tests.introspect import effectiveness_corpus as corpus
from tests.introspect import labelled_corpus as labelled

pytestmark = pytest.mark.django_db


def run(*args: str) -> dict:
    out = StringIO()
    call_command("introspect", "effectiveness", "--json", *args, stdout=out)
    return orjson.loads(out.getvalue())


def test_it_prints_each_ways_arms_with_their_sources_and_the_note(home):
    corpus.build(home)
    document = run("--project", corpus.PROJECT, "--way", "w/often")
    assert "not effects" in document["note"] and document["frame"]["way"] == "w/often"
    (often,) = document["ways"]
    errors = often["rates"]["tool_errors"]
    assert (errors["shown"]["hits"], errors["shown"]["n"], errors["not_shown"]["hits"]) == (6, 12, 2)
    assert errors["difference"]["low"] < errors["difference"]["estimate"] == round(0.5 - 2 / 12, 4)
    assert often["exposure"] == {"fired": 12, "near_miss": 12}


def test_another_project_or_an_old_window_has_no_ways(home):
    corpus.build(home)
    assert run("--project", "/src/other")["ways"] == []
    assert run("--days", "1")["ways"] == []  # the corpus is dated 2026-11-20
    with pytest.raises(CommandError):
        run("--days", "-1")


def test_it_prints_the_labels_precision_and_aucs_or_none_yet(home):
    corpus.build(home)
    assert run()["relevance"]["labels"] == 0
    often = labelled.fires_of("w/often")
    labelled.label("ann", dict(zip(often[:4], ["relevant"] * 4, strict=True)))
    labelled.label("bob", {often[4]: "irrelevant"})
    relevance = run("--way", "w/often")["relevance"]
    assert (relevance["labels"], relevance["labellers"]) == (5, 2)
    overall = relevance["overall"]
    # 4 of 5 relevant: Wilson 95 % 37.6–96.4 %.
    assert (overall["relevant"], overall["irrelevant"], overall["precision"]) == (4, 1, 0.8)
    assert (overall["low"], overall["high"]) == (0.3755, 0.9638)
    [keyword] = relevance["channels"]
    assert (
        keyword["channel"] == "keyword" and keyword["fire_score_auc"] is None
    )  # keyword fires carry no score
    assert relevance["ways"]["w/often"]["precision"] == 0.8 and relevance["agreement"] == []
