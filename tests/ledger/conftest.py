"""Fixtures for the ledger app: a knowledge directory, records in it, users with and without the role,
copies of the sample's repositories with their decision records imported."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from ledger.importer import adr_load
from ledger.importer import knowledge as knowledge_files
from ledger.models import AdrRecord
from ledger.records import knowledge as knowledge_format
from lib.locations import SAMPLE_HOME
from tests.ledger.records.samples import Q_NYGARD


def record_file(
    directory: Path,
    record_id: str,
    *,
    status: str = "candidate",
    klass: str = "convention",
    title: str = "Importer offsets are committed with the rows",
    where: str = "candidates",
) -> Path:
    data = {
        "schema": "knowledge/v1",
        "id": record_id,
        "kind": "knowledge",
        "class": klass,
        "title": title,
        "description": "Recorded as a decision in episode s-1.",
        "status": status,
        "epistemics": "decided",
        "date": "2026-09-11",
        "tags": ["derived", "decision"],
        "provenance": {"origin": "extracted", "derived_from": ["session:s-20260911000001-aaaa"]},
    }
    path = directory / where / f"{record_id}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(
        knowledge_format.render_knowledge(data, f"# {title}\n\nRecorded as a decision in episode s-1.")
    )
    return path


@pytest.fixture
def knowledge(tmp_path):
    directory = tmp_path / "repo" / ".ai" / "repo" / "knowledge"
    record_file(directory, "s-20260911000001-aaaa-3f9c2a1b7d0e")
    record_file(directory, "s-20260911000001-aaaa-000000000002", title="Use the token bucket per API key")
    record_file(
        directory, "s-20260911000001-aaaa-000000000003", title="Importer offsets commit with rows too"
    )
    knowledge_files.import_directory(directory)
    return directory


@pytest.fixture
def reviewer(db):
    user = get_user_model().objects.create_user("rita", password="correct horse battery")
    user.user_permissions.add(Permission.objects.get(codename="review_knowledge"))
    return user


@pytest.fixture
def viewer(db):
    return get_user_model().objects.create_user("vic", password="correct horse battery")


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


def adr_record(repo: Path, record_id: str) -> AdrRecord:
    return AdrRecord.objects.get(repo=str(repo), canonical_id=record_id, present=True)


@pytest.fixture
def questions_repo(tmp_path):
    """A repository whose adr-tools record has open, ruled and resolved questions (samples.Q_NYGARD)."""
    repo = tmp_path / "rulings-repo"
    (repo / "doc" / "adr").mkdir(parents=True)
    (repo / "doc" / "adr" / "0014-contract.md").write_bytes(Q_NYGARD)
    adr_load.import_repo(repo)
    return repo
