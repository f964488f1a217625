"""Issue 12, single bad inputs: what a script or a mistyped URL sends to every page.

A NUL (`%00`) in the path, the query string or a form is a 400 before any view runs
(lib/middleware.py); a number too large for a column, not finite, or a date at the end of the
calendar reads as absent (lib/params.py). Neither is ever a 500, on either backend. A HEAD is
answered as the GET without its body.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.test import Client
from django.urls import resolve, reverse

from ledger.models import AdrAction, AdrRecord, KnowledgeRecord, ReviewAction
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


@pytest.fixture
def written(request, settings) -> tuple[Path, ...]:
    """Where a review act writes: the hostile HOME's project (its records) and waysweb's own knowledge."""
    return (request.getfixturevalue("hostile"), settings.WAYSWEB_LOCATIONS.own_knowledge)


def on_disk(roots: tuple[Path, ...]) -> dict[Path, bytes]:
    """Every file under `roots` and its bytes."""
    return {path: path.read_bytes() for root in roots for path in sorted(root.rglob("*")) if path.is_file()}


def in_db() -> dict[str, list[dict]]:
    """Every knowledge and decision record as its row says, and every review act written."""
    return {
        model.__name__: list(model.objects.order_by("pk").values())
        for model in (KnowledgeRecord, ReviewAction, AdrRecord, AdrAction)
    }


# A view that reads its query string through a form (introspect/forms.py): `SomeForm.read(request)`.
FORM_READS = re.compile(r"\b(\w+Form)\.read\(")


def parameters(view) -> set[str]:
    """The query parameters a view reads, from its source: read one by one, or by a form's fields."""
    view = inspect.unwrap(view)
    source = inspect.getsource(view)
    found = set(READS.findall(source)) | ALWAYS
    for name in FORM_READS.findall(source):
        found |= set(getattr(inspect.getmodule(view), name)({}).fields)
    return found


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


def test_it_answers_400_to_a_nul_in_a_login_form_and_signs_nobody_in(reviewer):
    client = Client()
    response = client.post("/accounts/login/", {"username": f"{reviewer.username}\x00", "password": "x"})
    assert response.status_code == 400
    assert "_auth_user_id" not in client.session


def test_it_answers_400_to_a_nul_in_a_form_before_any_write(reviewer, written):
    client = Client()
    client.force_login(reviewer)
    record = KnowledgeRecord.objects.filter(status="candidate").first()
    files, rows = on_disk(written), in_db()
    assert Path(record.path) in files
    response = client.post(
        reverse("ledger:candidate-promote", args=[record.pk]),
        {"evidence": "seen\x00", "klass": "fact", "loaded_sha256": record.sha256},
    )
    assert response.status_code == 400
    # The record unchanged on disk and in the database, and no review act written.
    assert on_disk(written) == files
    assert in_db() == rows
    record.refresh_from_db()
    assert record.status == "candidate"


def test_it_reads_a_successor_too_large_for_a_column_as_none_picked_and_writes_nothing(reviewer, written):
    client = Client()
    client.force_login(reviewer)
    record = AdrRecord.objects.get(pk=resolve(dict(every_page(client))["ledger:record-detail"]).kwargs["pk"])
    files, rows = on_disk(written), in_db()
    assert Path(record.path) in files
    response = client.post(
        reverse("ledger:record-status", args=[record.pk]),
        {"verb": "supersede", "successor": "99999999999999999999", "loaded_sha256": record.sha256},
    )
    # Refused as a supersede without a successor is: the page again, saying what to pick.
    assert response.status_code == 200
    assert "pick the record (in the same repository) that supersedes this one" in response.text
    assert on_disk(written) == files
    assert in_db() == rows


def test_it_answers_head_on_every_page_as_get_without_the_body(client):
    for name, url in every_page(client):
        got = client.get(url)
        head = client.head(url)
        # A streamed page (a session export) has its body as an iterator; HEAD must empty it too.
        body = b"".join(head.streaming_content) if head.streaming else head.content
        assert (name, head.status_code, body) == (name, got.status_code, b"")
        assert head["Content-Type"] == got["Content-Type"], name
