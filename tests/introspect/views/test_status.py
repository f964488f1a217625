"""The import status page: every source file with its line accounting, and the quarantine."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command

from introspect.models import Quarantine, SourceFile
from tests.conftest import append, line

pytestmark = pytest.mark.django_db


def test_it_shows_import_status_and_quarantine(client, home):
    append(home.live, line(ts="2026-11-01T10:00:00Z", event="session_start", session="s"), b"{broken\n")
    call_command("ingest", stdout=StringIO())
    body = client.get("/status/").content.decode()
    assert "events.jsonl" in body and "invalid_json" in body and "{broken" in body


def many_sources(n: int) -> None:
    """`n` source files (a transcript each, every tenth gone upstream), each with one quarantined line."""
    files = SourceFile.objects.bulk_create(
        SourceFile(
            kind=SourceFile.Kind.TRANSCRIPT,
            root="/home/dev/.claude/projects",
            rel_path=f"-home-dev-p/{i:04d}.jsonl",
            status=SourceFile.Status.GONE if i % 10 == 0 else SourceFile.Status.ACTIVE,
            offset=1000,
            lines_seen=10,
            imported=8,
            duplicate=1,
            quarantined=1,
            inert=0,
        )
        for i in range(n)
    )
    Quarantine.objects.bulk_create(
        Quarantine(
            source=f,
            offset=0,
            length=7,
            sha256="0" * 64,
            raw=b"{broken",
            reason="invalid_json",
            parser_version=1,
        )
        for f in files
    )


def rows(body: str) -> list[str]:
    return re.findall(r'<td class="mono" title="[^"]*">([^<]*)<', body)


def test_it_pages_the_source_files_in_their_order_with_totals_over_every_file(client):
    many_sources(250)
    body = client.get("/status/").content.decode()
    assert rows(body) == [f"-home-dev-p/{i:04d}.jsonl" for i in range(100)]
    assert "files 1–100 of 250" in body and "page 1 of 3" in body
    assert "250 <span" in body and "225 active · 25 gone upstream" in body  # totals: every file
    assert ">2500<" in body and ">2000<" in body  # lines and imported, summed
    last = client.get("/status/?page=3").content.decode()
    assert rows(last) == [f"-home-dev-p/{i:04d}.jsonl" for i in range(200, 250)]
    assert "files 201–250 of 250" in client.get("/status/?page=99").content.decode()  # the last page
    assert rows(client.get("/status/?page=x").content.decode()) == rows(body)


def test_it_filters_the_source_files_and_keeps_the_filters_in_the_page_links(client):
    many_sources(250)
    body = client.get("/status/?status=gone&q=-home-dev").content.decode()
    assert rows(body) == [f"-home-dev-p/{i:04d}.jsonl" for i in range(0, 250, 10)]
    assert "files 1–25 of 25 matching" in body
    assert "250 <span" in body  # the totals stay those of every file
    some = client.get("/status/?kind=transcript&q=p/01").content.decode()
    assert rows(some) == [f"-home-dev-p/{i:04d}.jsonl" for i in range(100, 200)]
    wide = client.get("/status/?kind=transcript&page=2").content.decode()
    assert 'href="?kind=transcript&amp;page=3"' in wide and 'href="?kind=transcript&amp;page=1"' in wide
    assert rows(client.get("/status/?kind=nonsense").content.decode()) == rows(
        client.get("/status/").content.decode()
    )
    assert "No file matches these filters" in client.get("/status/?q=nowhere").content.decode()


def test_it_pages_the_quarantine_newest_first(client):
    many_sources(120)
    body = client.get("/status/").content.decode()
    assert body.count('<pre class="raw">{broken</pre>') == 50
    assert "invalid_json × 120" in body and "lines 1–50 of 120" in body
    assert 'href="?qpage=2#quarantine"' in body
    last = client.get("/status/?qpage=3&page=2").content.decode()
    assert last.count('<pre class="raw">{broken</pre>') == 20 and "files 101–120 of 120" in last


@pytest.mark.parametrize("files", [5, 300])
def test_the_status_page_makes_as_many_queries_for_5_files_as_for_300(
    client, files, django_assert_max_num_queries
):
    many_sources(files)
    with django_assert_max_num_queries(6):
        response = client.get("/status/?page=2&qpage=2")
    assert response.status_code == 200
    with django_assert_max_num_queries(7):  # filtered: one COUNT of the matching files more
        assert client.get("/status/?kind=transcript&status=active&q=p&page=2").status_code == 200
    assert len(response.content) < 200_000


def test_an_htmx_swap_gets_the_source_table_with_its_pager(client):
    many_sources(150)
    body = client.get("/status/?page=2", HTTP_HX_REQUEST="true").content.decode()
    assert body.lstrip().startswith('<section id="source-table">') and "<html" not in body
    assert "files 101–150 of 150" in body and len(rows(body)) == 50
