"""The import status page: every source file with its line accounting, and the quarantine."""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from io import StringIO

import orjson
import pytest
from django.core.management import call_command

from introspect.importer import heartbeat
from introspect.models import Quarantine, SourceFile
from ledger.models import LedgerEntry
from lib import locations
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


def many_documents(n: int) -> None:
    """`n` ledger entries under one ledger root, every one quarantined."""
    LedgerEntry.objects.bulk_create(
        LedgerEntry(
            root="/home/dev/.claude/ledger",
            rel_path=f"-home-dev-p/2026-11-01T1000Z_e{i:03d}.md",
            project_slug="-home-dev-p",
            sha256=f"{i:064d}",
            quarantine_reason="yaml_invalid",
            quarantine_detail=f"entry {i} is not YAML",
            read_at=datetime(2026, 11, 1, tzinfo=UTC) + timedelta(minutes=i),
        )
        for i in range(n)
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
    many_documents(files)
    # Totals, quarantine reasons, files, unread paths, quarantine page, the roots of the line files,
    # the ledger's roots (one union), one page of the ledger's problem documents (one union), session.
    with django_assert_max_num_queries(9):
        response = client.get("/status/?page=2&qpage=2&dpage=2")
    assert response.status_code == 200
    assert len(re.findall(r'<tr class="source-root ', response.content.decode())) == 2  # 2 roots, any files
    with django_assert_max_num_queries(10):  # filtered: one COUNT of the matching files more
        assert client.get("/status/?kind=transcript&status=active&q=p&page=2").status_code == 200
    assert len(response.content) < 200_000


def test_an_htmx_swap_gets_the_source_table_with_its_pager(client):
    many_sources(150)
    body = client.get("/status/?page=2", HTTP_HX_REQUEST="true").content.decode()
    assert body.lstrip().startswith('<section id="source-table">') and "<html" not in body
    assert "files 101–150 of 150" in body and len(rows(body)) == 50


def ledger_home(home, settings, tmp_path):
    """A HOME with an entry that reads and one that does not, a knowledge record that does not check
    out, and a repository with one good and one unreadable decision record, after one ingest."""
    slug = home.root / ".claude" / "ledger" / "-home-dev-proj"
    slug.mkdir(parents=True)
    (slug / "2026-11-01T1000Z_e001.md").write_text("---\nsession: s1\nepoch: 1\n---\nFine.\n")
    (slug / "2026-11-01T1100Z_e002.md").write_text("---\nsession: [unclosed\n---\nbody\n")
    repo = tmp_path / "repo"
    (repo / "docs" / "adr").mkdir(parents=True)
    (repo / "docs" / "adr" / "0001-use-sqlite.md").write_text(
        "# 1. Use SQLite\n\nDate: 2026-11-01\n\n## Status\n\nAccepted\n\n## Context\n\nx\n\n## Decision\n\ny\n"
    )
    (repo / "docs" / "adr" / "0002-broken.md").write_bytes(b"\xff\xfe not text")
    candidates = repo / ".ai" / "repo" / "knowledge" / "candidates"
    candidates.mkdir(parents=True)
    (candidates / "no-front-matter.md").write_text("just prose\n")
    settings.WAYSWEB_LOCATIONS = locations.resolve({"HOME": str(home.root), "WAYSWEB_REPOS": str(repo)})
    call_command("ingest", stdout=StringIO(), stderr=StringIO())
    return repo


def text(html: str) -> str:
    """What a reader sees of some HTML: the tags gone, the spaces collapsed."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def root_rows(body: str) -> dict[tuple[str, str], list[str]]:
    """The Sources table as {(kind, root): [imported, changed, quarantined, last read]}, its text."""
    table = re.search(r'<table class="source-roots">(.*?)</table>', body, re.S).group(1)
    found = {}
    for row in re.findall(r"<tr class=\"source-root[^>]*>(.*?)</tr>", table, re.S):
        cells = [text(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        found[(cells[0], cells[1])] = cells[2:]
    return found


def test_it_lists_every_ledger_root_beside_the_line_files_with_counts_and_last_read(
    home, settings, tmp_path, client
):
    repo = ledger_home(home, settings, tmp_path)
    body = client.get("/status/").content.decode()
    roots = root_rows(body)
    ledger = roots[("ledger entry", str(home.root / ".claude" / "ledger"))]
    assert ledger[0] == "2 files" and ledger[1].startswith("0") and ledger[2] == "1"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", ledger[3])  # the pass that read it
    adrs = roots[("ADR file", str(repo))]
    assert adrs[0] == "2 files" and adrs[2] == "1"
    knowledge = roots[("knowledge record", str(repo / ".ai" / "repo" / "knowledge"))]
    assert knowledge[0] == "1 file" and knowledge[2] == "1"
    entry = home.root / ".claude" / "ledger" / "-home-dev-proj" / "2026-11-01T1000Z_e001.md"
    entry.write_text("---\nsession: s1\nepoch: 1\n---\nFine, and then some.\n")
    call_command("ingest", stdout=StringIO(), stderr=StringIO())
    again = root_rows(client.get("/status/").content.decode())
    changed = again[("ledger entry", str(home.root / ".claude" / "ledger"))][1]
    assert re.fullmatch(r"1 last \d{4}-\d\d-\d\d \d\d:\d\d", changed)


def test_it_shows_the_documents_that_did_not_check_out_with_their_reasons_and_pages(
    home, settings, tmp_path, client
):
    ledger_home(home, settings, tmp_path)
    body = client.get("/status/").content.decode()
    section = body.split('id="document-problems"', 1)[1]
    items = re.findall(
        r"<tr><td>([^<]+)</td>\s*<td class=\"mono\">(?:<a href=\"([^\"]+)\">)?([^<]+)", section
    )
    by_path = {path: (kind, url) for kind, url, path in items}
    assert by_path["-home-dev-proj/2026-11-01T1100Z_e002.md"] == ("ledger entry", "/ledger/-home-dev-proj/")
    assert by_path["candidates/no-front-matter.md"][0] == "knowledge record"
    assert by_path["docs/adr/0002-broken.md"][0] == "ADR file"
    assert "yaml_invalid" in section and "frontmatter_missing" in section and "invalid_utf8" in section
    assert "3 ledger entries, knowledge records or ADR files could not be parsed" in section


def test_it_says_when_the_importer_last_ran_and_that_it_is_not_following(home, client):
    call_command("ingest", stdout=StringIO())
    state = re.search(r'<p id="importer-state"[^>]*>(.*?)</p>', client.get("/status/").content.decode(), re.S)
    said = text(state.group(1))
    assert "stopped" in said and "after one pass (not following" in said


def test_it_says_a_page_before_any_import_that_no_importer_has_run(client):
    text = client.get("/status/").content.decode()
    assert "not run yet" in text and "no importer has written a heartbeat here" in text


def test_it_pages_the_documents_that_did_not_check_out_newest_first(client):
    many_documents(120)
    body = client.get("/status/").content.decode()
    section = body.split('id="document-problems"', 1)[1]
    assert "documents 1–50 of 120" in section and 'href="?dpage=2#document-problems"' in section
    assert "entry 119 is not YAML" in section and "entry 69 is not YAML" not in section
    last = client.get("/status/?dpage=3").content.decode().split('id="document-problems"', 1)[1]
    assert "documents 101–120 of 120" in last and "entry 0 is not YAML" in last and "entry 20 " not in last
    assert "yaml_invalid: entry 19 is not YAML" in last


def importer_line(client) -> str:
    state = re.search(r'<p id="importer-state"[^>]*>(.*?)</p>', client.get("/status/").content.decode(), re.S)
    return text(state.group(1))


def test_it_says_a_follower_is_idle_since_its_last_pass_that_found_something(client):
    beat = heartbeat.Heartbeat(follow=True)
    beat.after_pass(found=True)
    said = importer_line(client)
    since = beat.idle_since.strftime("%Y-%m-%d %H:%M:%S")
    assert f"idle since {since} UTC (the last pass that found something new), following changes" in said


def test_it_says_a_stopped_follower_stopped_with_its_last_error(client):
    beat = heartbeat.Heartbeat(follow=True)
    beat.started()
    beat.stopped("database disk image is malformed")
    said = importer_line(client)
    assert "stopped at" in said and "with this error: database disk image is malformed" in said


def test_it_says_why_a_retrying_followers_last_pass_failed(client):
    beat = heartbeat.Heartbeat(follow=True)
    beat.after_pass(found=False, error="import pass failed (disk I/O error); retrying")
    said = importer_line(client)
    assert (
        said.startswith("Importer: idle")
        and "Its last pass failed: import pass failed (disk I/O error)" in said
    )


def test_it_says_when_serve_restarts_a_stopped_importer(client):
    beat = heartbeat.Heartbeat(follow=True)
    beat.started()
    beat.stopped("OverflowError: date value out of range")
    heartbeat.restarting("its process exited with status 1", heartbeat.now() + timedelta(seconds=60))
    said = importer_line(client)
    assert (
        "with this error: OverflowError: date value out of range ; serve restarts it in " in said
    )  # tags: spaces


def test_it_says_a_follower_gone_without_a_word_is_gone_not_asked_to_stop(client):
    heartbeat.Heartbeat(follow=True).after_pass(found=True)
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    heartbeat.path().write_bytes(
        orjson.dumps(orjson.loads(heartbeat.path().read_bytes()) | {"pid": int(gone.stdout)})
    )
    said = importer_line(client)
    assert "stopped" in said and "its process ended without a word (killed? out of memory?)" in said
    assert "asked to stop" not in said


def test_it_says_what_the_last_pass_went_on_past(client):
    heartbeat.Heartbeat(follow=True).after_pass(found=True, left="1 file could not be imported")
    said = importer_line(client)
    assert (
        "Its last pass went on past what it could not do: 1 file could not be imported (see Not read )"
        in said
    )


def test_the_samples_decision_log_and_its_archive_are_listed_with_their_counts(client, sample):
    """Like every other line file: a row per root with its lines and files, a row per file with its counters."""
    page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", client.get("/status/").content.decode()))
    # 37 lines of S08, S09, S11 and S13, and a turn-start scan per prompt of S15-S18 (14 + 16 + 17 + 15).
    assert "decisions 99 lines in 1 file" in page.replace(str(sample / ".local/state/agent-ways") + " ", "")
    assert "decisions archive 42 lines in 1 file" in page.replace(
        str(sample / ".local/state/agent-ways") + " ", ""
    )
    assert re.search(r"decisions\.jsonl in \S+ 1 active [\d.]+ KB 99 99 0 0 0", page)
    assert re.search(r"decisions-2026-11-07\.jsonl\.gz in \S+ 1 active [\d.]+ KB 42 42 0 0 0", page)
