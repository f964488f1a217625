"""The ledger index and a project's stream name projects as the session list does (name, path on hover)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from introspect.models import Project, Session
from ledger.models import AdrRecord, LedgerEntry
from tests.ledger.views import dom

pytestmark = pytest.mark.django_db

KNOWN, UNKNOWN = "-home-dev-src-api-server", "-home-dev-src-gone"


def entry(slug: str, epoch: int, session: Session | None = None, key: str = "") -> LedgerEntry:
    return LedgerEntry.objects.create(
        root="/home/dev/.claude/ledger",
        rel_path=f"{slug}/2026-11-05T10{epoch:02d}Z_e{epoch:03d}.md",
        project_slug=slug,
        session_key=session.sid if session else key,
        session=session,
        epoch=epoch,
        phase="progress",
        body=f"Entry {epoch}.",
        sha256=f"{slug}{epoch}",
        read_at=timezone.now(),
    )


@pytest.fixture
def ledgers():
    project = Project.objects.create(path="/home/dev/src/api-server", name="api-server")
    session = Session.objects.create(sid="s-known", project=project)
    entry(KNOWN, 1, session)
    entry(KNOWN, 2, session)
    entry(UNKNOWN, 1, key="s-never-imported")
    return project


def index_rows(client) -> list[dom.Element]:
    page = dom.parse(client.get(reverse("ledger:ledger-index")).content)
    return page.find("table").find("tbody").find_all("tr")


def test_it_names_a_ledger_folder_by_its_sessions_project_with_the_path_on_hover(client, ledgers):
    link = index_rows(client)[0].find("a")
    assert (link.find(cls="project-name").text, link.attrs["title"]) == (
        "api-server",
        "/home/dev/src/api-server",
    )
    assert link.text == f"api-server {KNOWN}"  # the folder follows the name, quieter: the URL uses it
    assert link.attrs["href"] == reverse("ledger:ledger-stream", args=[KNOWN])
    assert [td.text for td in index_rows(client)[0].find_all("td")[1:]] == ["2", "1"]


def test_it_shows_the_folder_slug_raw_when_no_session_of_it_is_known(client, ledgers):
    link = index_rows(client)[1].find("a")
    assert link.text == UNKNOWN and "mono" in link.attrs["class"]
    assert "project is unknown" in link.attrs["title"]


def test_it_counts_the_index_in_one_query(client, ledgers, django_assert_max_num_queries):
    # The frame's header counts take one more; the folders and their projects take one between them.
    with django_assert_max_num_queries(2):
        client.get(reverse("ledger:ledger-index"))


def test_it_heads_a_stream_with_its_projects_name(client, ledgers):
    page = dom.parse(client.get(reverse("ledger:ledger-stream", args=[KNOWN])).content)
    heading = page.find("h1")
    assert heading.text == f"api-server {KNOWN}"
    assert heading.find("span").attrs["title"] == "/home/dev/src/api-server"
    unknown = dom.parse(client.get(reverse("ledger:ledger-stream", args=[UNKNOWN])).content)
    assert unknown.find("h1").text == UNKNOWN


def test_it_links_the_decision_records_an_entry_names(client, ledgers):
    record = AdrRecord.objects.create(
        repo="/home/dev/src/api-server",
        directory="docs/adr",
        canonical_id="ADR-0007",
        rel_path="docs/adr/0007-queue.md",
        number="0007",
        title="One queue",
        read_at=timezone.now(),
    )
    naming = entry(KNOWN, 3)
    naming.body = "Kept ADR-7 in mind."
    naming.save()
    page = dom.parse(client.get(reverse("ledger:ledger-stream", args=[KNOWN])).content)
    [named] = [article for article in page.find_all("article") if article.attrs.get("id") == "e3"]
    assert [link.text for link in named.find_all("a", cls="mono")] == ["ADR-0007"]
    assert named.find("a", cls="mono").attrs["href"] == reverse("ledger:record-detail", args=[record.pk])
    others = [article for article in page.find_all("article") if article.attrs.get("id") != "e3"]
    assert others and not any("Decision records named" in article.text for article in others)
