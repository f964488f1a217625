"""Decision records from real-shaped collections: index, page, flags, status changes, new records."""

from __future__ import annotations

import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from ledger.importer import adr_load
from ledger.models import AdrAction, AdrRecord, KnowledgeRecord
from ledger.queries import records as adr_queries
from ledger.records import parse
from lib.hashing import sha256
from lib.locations import SAMPLE_HOME

pytestmark = pytest.mark.django_db


@pytest.fixture
def repos(tmp_path):
    """Copies of the sample's two repositories (adr-tools, majordomus, MADR 4 and 2, agent-ways)."""
    copies = []
    for name in ("api-server", "web-ui"):
        target = tmp_path / name
        shutil.copytree(SAMPLE_HOME / "repos" / name, target)
        adr_load.import_repo(target)
        copies.append(target)
    return copies


def get(repo: Path, record_id: str) -> AdrRecord:
    return AdrRecord.objects.get(repo=str(repo), canonical_id=record_id, present=True)


def test_it_reads_every_format_with_status_and_edges(repos):
    api, web = repos
    assert (get(api, "ADR-0003").status, get(api, "ADR-0003").format) == ("superseded", "nygard")
    assert get(api, "ADR-0012").format == "majordomus" and get(web, "ADR-0002").format == "madr"
    assert get(web, "ADR-0000").format == "madr2" and get(web, "ADR-0101").status == "archived"
    assert get(web, "ADR-0103").format == "agentways"
    view = adr_queries.record_view(get(api, "ADR-0007"))
    assert [target for target, _, declared in view.supersedes] == ["ADR-0003"]
    assert AdrRecord.objects.filter(present=True).count() == 22


def test_it_flags_the_real_inconsistencies(repos):
    api, web = repos
    flags = adr_queries.flags()
    assert sorted(Path(r.rel_path).name for r in flags.duplicates) == [
        "0005-log-structured-json-to-stdout.md", "0005-store-api-keys-as-sha-256-hashes.md"]
    assert [(r.canonical_id, kind, target) for r, kind, target in flags.one_sided] == [
        ("ADR-0012", "supersedes", "ADR-0011")]
    assert [r.canonical_id for r in flags.no_successor] == ["ADR-0102"]
    assert [(r.canonical_id, target) for r, target in flags.dangling] == [("ADR-0103", "ADR-0104")]
    # The one-sided edge is still shown on both records.
    older = adr_queries.record_view(get(api, "ADR-0011"))
    assert [(target, declared) for target, _, declared in older.superseded_by] == [("ADR-0012", False)]


def test_it_treats_a_rename_as_a_move_of_the_same_record(repos):
    api = repos[0]
    record = get(api, "ADR-0009")
    old = api / record.rel_path
    old.rename(old.with_name("0009-per-key-rate-limits.md"))
    adr_load.import_repo(api)
    moved = get(api, "ADR-0009")
    assert moved.pk == record.pk and moved.rel_path.endswith("0009-per-key-rate-limits.md")


def test_it_renders_the_index_and_a_page(client, repos):
    body = client.get(reverse("ledger:record-list")).content.decode()
    assert "duplicate id" in body and "one-sided" in body and "superseded by ?" in body and "dangling" in body
    api = repos[0]
    page = client.get(reverse("ledger:record-detail", args=[get(api, "ADR-0007").pk])).content.decode()
    assert "supersedes" in page and "ADR-0003" in page and "Log in" in page and 'id="status-form"' not in page


def test_it_refuses_status_changes_without_login(client, repos):
    record = get(repos[0], "ADR-0010")
    before = Path(record.path).read_bytes()
    response = client.post(reverse("ledger:record-status", args=[record.pk]), {"verb": "accept"})
    assert response.status_code == 302 and Path(record.path).read_bytes() == before
    assert not AdrAction.objects.exists()


def test_it_refuses_a_status_change_without_csrf(repos, reviewer):
    client = Client(enforce_csrf_checks=True)
    client.force_login(reviewer)
    record = get(repos[0], "ADR-0010")
    assert client.post(reverse("ledger:record-status", args=[record.pk]), {"verb": "accept"}).status_code == 403


def test_it_accepts_a_proposed_record_and_only_its_status_changes(client, repos, reviewer):
    client.force_login(reviewer)
    record = get(repos[0], "ADR-0010")
    before = Path(record.path).read_text().splitlines()
    client.post(reverse("ledger:record-status", args=[record.pk]), {"verb": "accept", "loaded_sha256": record.sha256})
    after = Path(record.path).read_text().splitlines()
    changed = [(a, b) for a, b in zip(before, after, strict=False) if a != b]
    assert len(before) == len(after) and len(changed) == 1 and "Accepted" in changed[0][1]
    assert get(repos[0], "ADR-0010").status == "accepted"
    action = AdrAction.objects.get()
    assert (action.verb, action.reviewer_name, action.status_before, action.status_after) == (
        "accept", "rita", "proposed", "accepted")


def test_it_supersedes_by_updating_both_files_which_reimport_unchanged(client, repos, reviewer):
    client.force_login(reviewer)
    web = repos[1]
    older, newer = get(web, "ADR-0003"), get(web, "ADR-0004")
    client.post(reverse("ledger:record-status", args=[older.pk]), {"verb": "supersede", "successor": newer.pk})
    older_doc = parse.parse_adr(Path(older.path).read_bytes(), rel_path=older.rel_path)
    newer_doc = parse.parse_adr(Path(newer.path).read_bytes(), rel_path=newer.rel_path)
    assert older_doc.status == "superseded" and older_doc.superseded_by == ["ADR-0004"]
    assert newer_doc.supersedes == ["ADR-0003"]
    assert len(AdrAction.objects.get().files) == 2
    adr_load.import_repo(web)
    assert adr_queries.flags(str(web)).one_sided == []
    assert get(web, "ADR-0003").status == "superseded"


def test_it_writes_a_draft_record_from_promoted_knowledge(client, repos, reviewer, tmp_path):
    api = repos[0]
    knowledge_dir = tmp_path / "k"
    record = KnowledgeRecord.objects.create(
        directory=str(knowledge_dir), record_id="ww-1", source_class="curated", klass="convention",
        status="verified", title="Refill rates are given in seconds", description="Seen twice in review.",
        body="# Refill rates are given in seconds\n\n# Evidence\n\nThe Lua script test.",
        derived_from=["claude-session:abc"], first_seen="2026-11-01T00:00:00Z")
    client.force_login(reviewer)
    directory = get(api, "ADR-0009").directory
    response = client.post(reverse("ledger:record-from-knowledge", args=[record.pk]), {"directory": directory})
    assert response.status_code == 302
    new = AdrRecord.objects.get(pk=int(response["Location"].rstrip("/").rsplit("/", 1)[-1]))
    assert (new.canonical_id, new.status, new.format) == ("ADR-0014", "proposed", "nygard")
    assert new.title == "Refill rates are given in seconds" and "knowledge:ww-1" in new.body
    reread = parse.parse_adr(Path(new.path).read_bytes(), rel_path=new.rel_path)
    assert (reread.id, reread.status) == ("ADR-0014", "proposed")
    assert sha256(Path(new.path).read_bytes()) == new.sha256
    assert AdrAction.objects.get(verb="create").reviewer_name == "rita"


def test_it_links_mentions_both_ways(repos, home, settings):
    from ledger.models import LedgerEntry

    record = get(repos[0], "ADR-0009")
    LedgerEntry.objects.create(root="/l", rel_path="-p/e.md", project_slug="-p", session_key="s", epoch=1,
                               body="Decision: record per-client limiting as ADR-0009.", sha256="x",
                               read_at="2026-11-01T00:00:00Z")
    found = adr_queries.mentions(record)
    assert [e.rel_path for e in found.ledger] == ["-p/e.md"]
    mentioned = {(r.repo_name, r.canonical_id) for r in adr_queries.records_mentioned("see ADR-9 and ADR-0013")}
    assert mentioned == {("api-server", "ADR-0009"), ("api-server", "ADR-0013")}


def test_it_imports_the_sample_from_ingest(settings, tmp_path):
    from lib import locations

    settings.WAYSWEB_LOCATIONS = locations.resolve({"WAYSWEB_DATA_DIR": str(tmp_path)}, demo=True)
    call_command("ingest", stdout=StringIO())
    assert AdrRecord.objects.filter(present=True).count() == 22
