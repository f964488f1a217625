"""What does not add up across a repository's records, and who mentions a record."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger.models import LedgerEntry
from ledger.queries import records as adr_queries
from tests.ledger.conftest import adr_record as get

pytestmark = pytest.mark.django_db


def test_it_flags_the_real_inconsistencies(repos):
    api, _web = repos
    flags = adr_queries.flags()
    assert sorted(Path(r.rel_path).name for r in flags.duplicates) == [
        "0005-log-structured-json-to-stdout.md",
        "0005-store-api-keys-as-sha-256-hashes.md",
    ]
    assert [(r.canonical_id, kind, target) for r, kind, target in flags.one_sided] == [
        ("ADR-0012", "supersedes", "ADR-0011")
    ]
    assert [r.canonical_id for r in flags.no_successor] == ["ADR-0102"]
    assert [(r.canonical_id, target) for r, target in flags.dangling] == [("ADR-0103", "ADR-0104")]
    # The one-sided edge is still shown on both records.
    older = adr_queries.record_view(get(api, "ADR-0011"))
    assert [(target, declared) for target, _, declared in older.superseded_by] == [("ADR-0012", False)]


def test_it_links_mentions_both_ways(repos, home, settings):
    record = get(repos[0], "ADR-0009")
    LedgerEntry.objects.create(
        root="/l",
        rel_path="-p/e.md",
        project_slug="-p",
        session_key="s",
        epoch=1,
        body="Decision: record per-client limiting as ADR-0009.",
        sha256="x",
        read_at="2026-11-01T00:00:00Z",
    )
    found = adr_queries.mentions(record)
    assert [e.rel_path for e in found.ledger] == ["-p/e.md"]
    mentioned = {
        (r.repo_name, r.canonical_id) for r in adr_queries.records_mentioned("see ADR-9 and ADR-0013")
    }
    assert mentioned == {("api-server", "ADR-0009"), ("api-server", "ADR-0013")}
