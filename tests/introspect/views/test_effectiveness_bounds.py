"""The effectiveness page and `introspect effectiveness --json` take as many queries for one session as
for many: the numbers are read set-wise (queries/effectiveness.py), never a query per way, session or
turn. Measured at two sizes of tests/introspect/effectiveness_corpus.py, copied into more sessions,
projects and ways, half of them with a decision log."""

from __future__ import annotations

from io import StringIO

import orjson
import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.conftest import append
from tests.introspect import effectiveness_corpus as corpus

pytestmark = pytest.mark.django_db
URL = "/ways/effectiveness/"
# Ten for the numbers (the labels included; a read spent by a reviewer's shortening is told inside
# the pulls' query), one for the refire proposals (their ways), the project list, the nav counts.
PAGE_QUERIES = 13
JSON_QUERIES = 10


def copy_of(value, n: int):
    """The corpus's lines for its n-th copy: its own session id, project, way names and line ids."""
    text = orjson.dumps(value).decode()
    text = text.replace(corpus.SID, f"e1f7a2b3-0000-4c00-8000-{n:012x}")
    text = text.replace(corpus.PROJECT, f"{corpus.PROJECT}-{n % 3}")
    text = text.replace('"w/often"', f'"w/often-{n % 4}"').replace('"w/judged"', f'"w/judged-{n % 4}"')
    for key in ("uuid", "parentUuid", "id", "tool_use_id", "scan_id"):
        text = text.replace(f'"{key}":"', f'"{key}":"{n}-')
    return orjson.loads(text)


def build(home, first: int, last: int) -> None:
    """Copies first…last of the corpus, imported; the odd copies have a decision log too."""
    for n in range(first, last + 1):
        lines = [copy_of(entry, n) for entry in corpus.transcript_lines()]
        home.transcript(lines[0]["cwd"], lines[0]["sessionId"], *lines)
        append(
            home.live, *(orjson.dumps(copy_of(orjson.loads(raw), n)) + b"\n" for raw in corpus.event_lines())
        )
        if n % 2:
            decisions = (copy_of(orjson.loads(raw), n) for raw in corpus.decision_lines())
            append(home.state / "decisions.jsonl", *(orjson.dumps(record) + b"\n" for record in decisions))
    for n in range(4):
        home.way(home.core_ways, f"w/often-{n}", "description: commits", corpus.OFTEN_BODY)
    call_command("ingest", stdout=StringIO())


def queries(run) -> int:
    with CaptureQueriesContext(connection) as captured:
        run()
    return len(captured)


def page_and_json(client) -> tuple[int, int, dict]:
    out = StringIO()
    page = queries(lambda: client.get(URL))
    command = queries(lambda: call_command("introspect", "effectiveness", "--json", stdout=out))
    return page, command, orjson.loads(out.getvalue())


def test_the_page_and_the_json_take_the_same_queries_at_one_session_and_at_eight(client, home):
    build(home, 1, 1)  # an odd copy: a decision log with an out-of-band pull, so a refire proposal
    small_page, small_command, small = page_and_json(client)
    build(home, 2, 8)
    page, command, document = page_and_json(client)
    assert document["turns"] == 8 * small["turns"] == 8 * corpus.TURNS  # the data did grow
    assert len(document["ways"]) > len(small["ways"])
    assert (page, command) == (small_page, small_command)
    assert page <= PAGE_QUERIES and command <= JSON_QUERIES
    # A frame (project, window, way) filters inside the same queries (copy 1's way, read out of band).
    frame = {"project": f"{corpus.PROJECT}-1", "days": "3650", "way": "w/often-1"}
    assert queries(lambda: client.get(URL, frame)) == page
