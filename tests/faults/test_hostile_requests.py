"""Issue 12, single bad inputs: what a script or a mistyped URL sends to every page.

A NUL (`%00`) in the path, the query string or a form is a 400 before any view runs
(lib/middleware.py); a number too large for a column, not finite, or a date at the end of the
calendar reads as absent (lib/params.py). Neither is ever a 500, on either backend. A HEAD is
answered as the GET without its body.
"""

from __future__ import annotations

import inspect
import re
from urllib.parse import urlencode

import pytest
from django.test import Client
from django.urls import resolve, reverse

from ledger.models import KnowledgeRecord
from tests.faults.hostile import every_page, hostile  # noqa: F401 (the fixture, named in usefixtures)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("hostile")]

# Every way a view reads the query string: request.GET.get("x") and the lib.params readers.
READS = re.compile(r'(?:GET\.get|int_param|float_param|date_param|flag)\(\s*(?:request,\s*)?"([\w-]+)"')
# Read by Django's own views (the login page's `next`), and one no view reads at all.
ALWAYS = {"next", "unknown"}
NUMBERS = ["99999999999999999999", "-99999999999999999999", "-1e999", "nan", "inf", "-1", "1.5"]
DATES = ["9999-12-31", "0001-01-01", "99999-01-01", "2026-02-30"]
LONG = ["x" * 5000, "9" * 5000]
NULS = ["\x00", "a\x00b"]


def parameters(view) -> set[str]:
    """The query parameters a view reads, from its source."""
    return set(READS.findall(inspect.getsource(inspect.unwrap(view)))) | ALWAYS


def test_it_finds_the_parameters_each_page_reads(client):
    pages = dict(every_page(client))
    assert {"q", "project", "since", "until", "page", "live"} <= parameters(
        resolve(pages["introspect:session-list"]).func
    )
    assert {"live_after", "from"} <= parameters(resolve(pages["introspect:session-detail"]).func)
    assert {"older_than", "class"} <= parameters(resolve(pages["ledger:candidate-list"]).func)
    assert {"max_score", "limit", "matched"} <= parameters(
        resolve(pages["introspect:api-session-fires"]).func
    )


def test_it_never_answers_500_to_a_bad_parameter_on_any_page(client):
    wrong = []
    for name, url in every_page(client):
        usual = client.get(url).status_code
        for parameter in sorted(parameters(resolve(url).func)):
            for value in [*NUMBERS, *DATES, *LONG, *NULS]:
                status = client.get(f"{url}?{urlencode({parameter: value})}").status_code
                want = 400 if "\x00" in value else usual
                if status != want:
                    wrong.append((name, parameter, value[:20], status))
            # A NUL in the name of a parameter too.
            if client.get(f"{url}?{urlencode({parameter + chr(0): '1'})}").status_code != 400:
                wrong.append((name, parameter + "\\0", "1", "not 400"))
    assert not wrong


def test_it_answers_400_to_a_nul_in_the_path(client):
    assert client.get("/sessions/%00/").status_code == 400
    assert client.get("/ways/a%00b/").status_code == 400
    # Spelled encoded, it reaches no view either: the importer never stores a NUL in an id.
    assert client.get(reverse("introspect:session-detail", args=["\x00"])).status_code == 404


def test_it_answers_400_to_a_nul_in_a_form_before_any_write(reviewer):
    client = Client()
    assert client.post("/accounts/login/", {"username": "rita\x00", "password": "x"}).status_code == 400
    client.force_login(reviewer)
    record = KnowledgeRecord.objects.filter(status="candidate").first()
    response = client.post(
        reverse("ledger:candidate-promote", args=[record.pk]),
        {"evidence": "seen\x00", "klass": "fact", "loaded_sha256": record.sha256},
    )
    assert response.status_code == 400
    record.refresh_from_db()
    assert record.status == "candidate"


def test_it_ignores_a_successor_too_large_for_a_column(reviewer):
    client = Client()
    client.force_login(reviewer)
    pk = resolve(dict(every_page(client))["ledger:record-detail"]).kwargs["pk"]
    response = client.post(
        reverse("ledger:record-status", args=[pk]),
        {"verb": "supersede", "successor": "99999999999999999999", "loaded_sha256": ""},
    )
    assert response.status_code in (200, 409)


def test_it_answers_head_on_every_page_as_get_without_the_body(client):
    for name, url in every_page(client):
        got = client.get(url)
        head = client.head(url)
        # A streamed page (a session export) has its body as an iterator; HEAD must empty it too.
        body = b"".join(head.streaming_content) if head.streaming else head.content
        assert (name, head.status_code, body) == (name, got.status_code, b"")
        assert head["Content-Type"] == got["Content-Type"], name
