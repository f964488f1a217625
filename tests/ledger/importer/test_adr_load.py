"""Decision records from real-shaped collections into rows: every format, a rename, the sample."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from ledger.importer import adr_load
from ledger.models import AdrQuestion, AdrRecord
from ledger.queries import records as adr_queries
from lib import locations
from tests.ledger.conftest import adr_record as get

pytestmark = pytest.mark.django_db


def test_it_reads_every_format_with_status_and_edges(repos):
    api, web = repos
    assert (get(api, "ADR-0003").status, get(api, "ADR-0003").format) == ("superseded", "nygard")
    assert get(api, "ADR-0012").format == "majordomus" and get(web, "ADR-0002").format == "madr"
    assert get(web, "ADR-0000").format == "madr2" and get(web, "ADR-0101").status == "archived"
    assert get(web, "ADR-0103").format == "agentways"
    view = adr_queries.record_view(get(api, "ADR-0007"))
    assert [target for target, _, declared in view.supersedes] == ["ADR-0003"]
    assert AdrRecord.objects.filter(present=True).count() == 24


def test_it_treats_a_rename_as_a_move_of_the_same_record(repos):
    api = repos[0]
    record = get(api, "ADR-0009")
    old = api / record.rel_path
    old.rename(old.with_name("0009-per-key-rate-limits.md"))
    adr_load.import_repo(api)
    moved = get(api, "ADR-0009")
    assert moved.pk == record.pk and moved.rel_path.endswith("0009-per-key-rate-limits.md")


def test_it_imports_the_sample_from_ingest(settings, tmp_path):
    settings.WAYSWEB_LOCATIONS = locations.resolve({"WAYSWEB_DATA_DIR": str(tmp_path)}, demo=True)
    call_command("ingest", stdout=StringIO())
    assert AdrRecord.objects.filter(present=True).count() == 24


def test_it_names_an_edge_too_long_to_store_on_the_record_instead_of_dropping_it(tmp_path):
    repo = tmp_path / "repo"
    (repo / "docs" / "adr").mkdir(parents=True)
    target = "spec:" + "x" * 300
    (repo / "docs" / "adr" / "0004-long-ref.md").write_text(
        f"---\nid: ADR-0004\nstatus: accepted\nrelated:\n  - {target}\n  - ADR-0001\n---\n# ADR-0004: Long ref\n"
    )
    adr_load.import_repo(repo)
    record = get(repo, "ADR-0004")
    assert [(r.kind, r.target) for r in record.relations.all()] == [("related", "ADR-0001")]
    assert f"overlong:related: a target of {len(target)} characters" in record.problems


def test_it_imports_the_samples_open_and_ruled_questions(repos):
    api, web = repos
    states = {
        (q.record.canonical_id, q.key): q.state
        for q in AdrQuestion.objects.filter(record__repo__in=[str(api), str(web)]).select_related("record")
    }
    assert {k: v for k, v in states.items() if k[0] in ("ADR-0014", "ADR-0105")} == {
        ("ADR-0014", "R1"): "open",
        ("ADR-0014", "R2"): "ruled",
        ("ADR-0014", "F1"): "open",
        ("ADR-0014", "F2"): "resolved",
        ("ADR-0105", "R1"): "ruled",
        ("ADR-0105", "R2"): "open",
        ("ADR-0105", "F1"): "open",
    }
    assert states[("ADR-0002", "R1")] == "ruled"  # MADR: "Chosen option: …" is the ruling


def test_it_reads_one_record_again_and_no_other(repos):
    api = repos[0]
    for record_id in ("ADR-0014", "ADR-0010"):
        path = get(api, record_id).path
        with open(path, "a") as fh:
            fh.write("\nAmended on disk.\n")
    adr_load.import_record(get(api, "ADR-0014"))
    assert "Amended on disk." in get(api, "ADR-0014").body
    assert "Amended on disk." not in get(api, "ADR-0010").body  # the next pass's


def test_a_record_gone_from_its_path_is_looked_for_across_its_repository(repos):
    api = repos[0]
    record = get(api, "ADR-0014")
    path = Path(record.path)
    path.rename(path.with_name("0014-audit-retention.md"))
    adr_load.import_record(record)
    moved = get(api, "ADR-0014")
    assert moved.pk == record.pk and moved.rel_path.endswith("0014-audit-retention.md")
