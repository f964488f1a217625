"""`manage.py introspect effectiveness --json` prints the effectiveness page's numbers."""

from __future__ import annotations

from io import StringIO

import orjson
import pytest
from django.core.management import CommandError, call_command

from tests.introspect import effectiveness_corpus as corpus

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
