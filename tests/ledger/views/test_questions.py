"""The decision backlog: every open ruling and fork, oldest first, and its count in the nav."""

from __future__ import annotations

import pytest
from django.urls import resolve, reverse

from ledger.importer import adr_load
from tests.ledger.conftest import adr_record as get
from tests.ledger.records.samples import Q_MAJORDOMUS
from tests.ledger.views import dom

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_repos(questions_repo, tmp_path):
    """The adr-tools record (dated 2026-10-01, two open) and a majordomus one (2026-10-02, two open)."""
    other = tmp_path / "agent-repo"
    (other / ".ai" / "repo" / "adrs").mkdir(parents=True)
    (other / ".ai" / "repo" / "adrs" / "0020-rulings.md").write_bytes(Q_MAJORDOMUS)
    adr_load.import_repo(other)
    return questions_repo, other


def rows(response) -> list[list[str]]:
    table = dom.parse(response.content.decode()).by_id("backlog-results").find("tbody")
    return [[cell.text for cell in row.find_all("td")] for row in table.find_all("tr")] if table else []


def test_it_lists_open_rulings_and_forks_across_repositories_oldest_first(client, two_repos):
    listed = rows(client.get(reverse("ledger:decision-backlog")))
    assert [(row[0].split()[0], row[1].split()[0]) for row in listed] == [
        ("R1", "ADR-0014"),
        ("F2", "ADR-0014"),
        ("R1", "ADR-0020"),
        ("F1", "ADR-0020"),
    ]
    first = listed[0]
    assert first[0] == "R1 Where does a ruling live? (ruling)"
    assert first[2].endswith(" d") and first[3] == "A, the file is the record."
    assert first[4] == "rulings-repo"


def test_it_filters_by_kind_and_answers_a_fragment(client, two_repos):
    response = client.get(
        reverse("ledger:decision-backlog"), {"kind": "fork"}, headers={"HX-Request": "true"}
    )
    assert "<html" not in response.content.decode()
    assert [row[0].split()[0] for row in rows(response)] == ["F2", "F1"]


def test_it_says_when_nothing_waits(client, db):
    page = dom.parse(client.get(reverse("ledger:decision-backlog")).content.decode())
    assert "Nothing waits for a ruling" in page.by_id("backlog-results").text


def test_it_lists_the_backlog_in_a_bounded_number_of_queries(
    client, two_repos, django_assert_max_num_queries
):
    with django_assert_max_num_queries(5):  # session/user, the page query, its repositories, the header
        client.get(reverse("ledger:decision-backlog"))


def test_it_shows_the_open_count_in_the_nav_and_one_fewer_after_a_ruling(client, two_repos, reviewer):
    badge = dom.parse(client.get(reverse("ledger:decision-backlog")).content.decode()).by_id("backlog-count")
    assert badge.text == "4" and badge.attrs["hx-trigger"] == "decisions-changed from:body"
    assert badge.attrs["hx-get"] == reverse("ledger:backlog-count")
    client.force_login(reviewer)
    record = get(two_repos[0], "ADR-0014")
    client.post(
        reverse("ledger:record-rule", args=[record.pk]),
        {"key": "R1", "option": "B", "reason": "database", "loaded_sha256": record.sha256},
        headers={"HX-Request": "true"},
    )
    fragment = client.get(reverse("ledger:backlog-count"), headers={"HX-Request": "true"}).content.decode()
    assert "<nav" not in fragment and dom.parse(fragment).by_id("backlog-count").text == "3"
    assert [row[0].split()[0] for row in rows(client.get(reverse("ledger:decision-backlog")))] == [
        "F2",
        "R1",
        "F1",
    ]


def test_it_reverses_and_resolves_its_routes():
    assert resolve(reverse("ledger:decision-backlog")).url_name == "decision-backlog"
    assert resolve(reverse("ledger:backlog-count")).url_name == "backlog-count"
    assert resolve(reverse("ledger:record-rule", args=[3])).url_name == "record-rule"
    assert resolve(reverse("ledger:record-resolve", args=[3])).url_name == "record-resolve"


def test_a_secret_in_a_question_is_masked_on_the_backlog(client, tmp_path, db):
    token = "ghp_R4nd0mT0k3nW1thEnoughEntr0pyXyZ12345"
    repo = tmp_path / "agent-repo"
    (repo / ".ai" / "repo" / "adrs").mkdir(parents=True)
    text = Q_MAJORDOMUS.replace(b"Does a ruling need a reason?", f"Rotate {token} now?".encode())
    (repo / ".ai" / "repo" / "adrs" / "0020-rulings.md").write_bytes(text)
    adr_load.import_repo(repo)
    listed = rows(client.get(reverse("ledger:decision-backlog")))
    assert listed[0][0].startswith("R1 Rotate ghp_…•••• (GitHub token, masked) now?")
    assert token not in client.get(reverse("ledger:decision-backlog")).content.decode()
