"""Decision-record pages: the index and a record for anyone; a reviewer's status changes, written to files."""

from __future__ import annotations

import difflib
from datetime import date
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from ledger.importer import adr_load
from ledger.models import AdrAction, KnowledgeRecord
from ledger.queries import records as adr_queries
from ledger.records import parse
from lib.hashing import sha256
from tests.ledger.conftest import adr_record as get
from tests.ledger.views import dom

pytestmark = pytest.mark.django_db


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
    assert (
        client.post(reverse("ledger:record-status", args=[record.pk]), {"verb": "accept"}).status_code == 403
    )


def test_it_accepts_a_proposed_record_and_only_its_status_changes(client, repos, reviewer):
    client.force_login(reviewer)
    record = get(repos[0], "ADR-0010")
    before = Path(record.path).read_text().splitlines()
    client.post(
        reverse("ledger:record-status", args=[record.pk]), {"verb": "accept", "loaded_sha256": record.sha256}
    )
    after = Path(record.path).read_text().splitlines()
    changed = [(a, b) for a, b in zip(before, after, strict=False) if a != b]
    assert len(before) == len(after) and len(changed) == 1 and "Accepted" in changed[0][1]
    assert get(repos[0], "ADR-0010").status == "accepted"
    action = AdrAction.objects.get()
    assert (action.verb, action.reviewer_name, action.status_before, action.status_after) == (
        "accept",
        "rita",
        "proposed",
        "accepted",
    )


def test_it_supersedes_by_updating_both_files_which_reimport_unchanged(client, repos, reviewer):
    client.force_login(reviewer)
    web = repos[1]
    older, newer = get(web, "ADR-0003"), get(web, "ADR-0004")
    client.post(
        reverse("ledger:record-status", args=[older.pk]), {"verb": "supersede", "successor": newer.pk}
    )
    older_doc = parse.parse_adr(Path(older.path).read_bytes(), rel_path=older.rel_path)
    newer_doc = parse.parse_adr(Path(newer.path).read_bytes(), rel_path=newer.rel_path)
    assert older_doc.status == "superseded" and older_doc.superseded_by == ["ADR-0004"]
    assert newer_doc.supersedes == ["ADR-0003"]
    assert len(AdrAction.objects.get().files) == 2
    adr_load.import_repo(web)
    assert adr_queries.flags(str(web)).one_sided == []
    assert get(web, "ADR-0003").status == "superseded"


def status_choices(client, record) -> list[str]:
    """What the status form's Action menu offers on a record's page, as the reviewer reads it."""
    page = dom.parse(client.get(reverse("ledger:record-detail", args=[record.pk])).content)
    form = page.by_id("status-form")
    return [option.text for option in form.find("select", name="verb").find_all("option")] if form else []


def test_it_offers_only_the_status_changes_valid_from_the_records_status(client, repos, reviewer):
    client.force_login(reviewer)
    api = repos[0]
    assert status_choices(client, get(api, "ADR-0010")) == ["accept"]
    assert status_choices(client, get(api, "ADR-0009")) == ["deprecate", "supersede by…"]
    superseded = get(api, "ADR-0003")
    assert status_choices(client, superseded) == []
    page = dom.parse(client.get(reverse("ledger:record-detail", args=[superseded.pk])).content)
    assert page.by_id("status-settled").text == (
        "A superseded record is settled: waysweb offers no status change from it."
    )


def test_it_hides_the_successor_picker_where_superseding_is_not_valid(client, repos, reviewer):
    client.force_login(reviewer)
    page = dom.parse(client.get(reverse("ledger:record-detail", args=[get(repos[0], "ADR-0010").pk])).content)
    assert page.by_id("status-form").find("select", name="successor") is None


def test_it_refuses_a_change_the_status_does_not_allow_and_writes_nothing(client, repos, reviewer):
    client.force_login(reviewer)
    record = get(repos[0], "ADR-0010")  # proposed: deprecating it skips acceptance
    before = Path(record.path).read_bytes()
    response = client.post(
        reverse("ledger:record-status", args=[record.pk]),
        {"verb": "deprecate", "loaded_sha256": record.sha256},
        headers={"HX-Request": "true"},
    )
    card = dom.parse(response.content).by_id("record-card")
    assert card.find(role="alert").text == "a record that is proposed cannot become deprecated"
    assert Path(record.path).read_bytes() == before and not AdrAction.objects.exists()
    assert get(repos[0], "ADR-0010").status == "proposed"


def promoted_knowledge(directory: Path, record_id: str = "ww-1") -> KnowledgeRecord:
    return KnowledgeRecord.objects.create(
        directory=str(directory),
        record_id=record_id,
        source_class="curated",
        klass="convention",
        status="verified",
        title="Refill rates are given in seconds",
        description="Seen twice in review.",
        body="# Refill rates are given in seconds\n\n# Evidence\n\nThe Lua script test.",
        first_seen="2026-11-01T00:00:00Z",
    )


@pytest.mark.parametrize("record_id", ["ADR-0009", "ADR-0011"])  # an adr-tools and a majordomus directory
def test_a_record_made_from_knowledge_lists_it_among_its_mentions(
    client, repos, reviewer, tmp_path, record_id
):
    knowledge = promoted_knowledge(tmp_path / "k")
    client.force_login(reviewer)
    response = client.post(
        reverse("ledger:record-from-knowledge", args=[knowledge.pk]),
        {"directory": get(repos[0], record_id).directory},
    )
    page = dom.parse(client.get(response["Location"]).content)
    provenance = page.find("section", cls="provenance")
    links = [
        li
        for li in provenance.find_all("li")
        if li.find("a", href=reverse("ledger:candidate-detail", args=[knowledge.pk]))
    ]
    assert [li.text for li in links] == [
        "knowledge Refill rates are given in seconds (verified) · this record was made from it"
    ]
    assert "No session, ledger entry or knowledge record mentions" not in provenance.text


def fields_of(section: dom.Element) -> dict[str, list[str]]:
    """A definition list as the reader takes it in: each term with the values beside it."""
    listing = section.find("dl")
    terms, values = listing.find_all("dt"), listing.find_all("dd")
    return {
        dt.text: [span.text for span in dd.find_all("span")] for dt, dd in zip(terms, values, strict=True)
    }


def test_it_shows_a_records_provenance_as_fields_not_as_a_mapping(client, repos):
    record = get(repos[0], "ADR-0011")
    page = dom.parse(client.get(reverse("ledger:record-detail", args=[record.pk])).content)
    provenance = page.find("section", cls="provenance")
    assert fields_of(provenance) == {
        "origin": ["extracted"],
        "derived from": ["session:s-20261105130042-1cb9", "decision:t-ratelimit"],
    }
    assert "{" not in provenance.text and "'origin'" not in provenance.text


def rule_on(client, record, headers=None, **data):
    return client.post(
        reverse("ledger:record-rule", args=[record.pk]),
        {
            "key": "R1",
            "option": "A",
            "reason": "the file is the record",
            "loaded_sha256": record.sha256,
            **data,
        },
        headers=headers or {},
    )


def test_it_lists_rulings_and_forks_before_the_prose_open_ones_first(client, questions_repo):
    record = get(questions_repo, "ADR-0014")
    page = dom.parse(client.get(reverse("ledger:record-detail", args=[record.pk])).content.decode())
    checklist = page.by_id("question-list")
    assert "2 open" in checklist.text
    items = checklist.find_all("li", cls="question")
    assert [item.attrs["id"] for item in items] == ["q-R1", "q-R2", "q-F2", "q-F1"]
    assert "Recommendation: A, the file is the record." in items[0].text and "open" in items[0].text
    assert "Ruled 2026-10-11 — option B by aaron: b" in items[1].text
    assert "resolved by R2" in items[3].text
    assert "RUL-035 (not imported)" in checklist.find("p", cls="cited").text
    sections = [h.text for h in page.find_all("h2")]
    assert sections.index("Questions for a person 2 open") < sections.index("Context")
    assert page.find("form", action=reverse("ledger:record-rule", args=[record.pk])) is None  # not logged in


def test_it_links_a_cited_ruling_when_its_record_is_imported(client, questions_repo):
    (questions_repo / "doc" / "adr" / "RUL-035-rulings-are-signed.md").write_text(
        "# RUL-035 Rulings are signed\n\n## Status\n\nAccepted\n"
    )
    adr_load.import_repo(questions_repo)
    record = get(questions_repo, "ADR-0014")
    page = dom.parse(client.get(reverse("ledger:record-detail", args=[record.pk])).content.decode())
    link = page.by_id("question-list").find("p", cls="cited").find("a")
    cited = page.by_id("question-list").find("p", cls="cited").text
    assert (
        link.text == "RUL-035"
        and "RUL-035 (not imported)" not in cited
        and "SPEC-106 (not imported)" in cited
    )


def test_it_rules_from_the_page_changing_one_line_of_the_file_audited_and_reimported(
    client, questions_repo, reviewer
):
    client.force_login(reviewer)
    record = get(questions_repo, "ADR-0014")
    path = Path(record.path)
    before, mode = path.read_text().split("\n"), path.stat().st_mode
    response = rule_on(client, record)
    assert response.status_code == 302
    after = path.read_text().split("\n")
    added = [line for line in difflib.ndiff(before, after) if line[:1] in "+-"]
    assert added == [f'+   RULED {date.today().isoformat()} — option A (rita: "the file is the record")']
    assert path.stat().st_mode == mode
    action = AdrAction.objects.get()
    assert (action.verb, action.reviewer_name, action.note) == (
        "rule",
        "rita",
        "R1: option A — the file is the record",
    )
    adr_load.import_repo(questions_repo)
    page = dom.parse(client.get(reverse("ledger:record-detail", args=[record.pk])).content.decode())
    item = page.by_id("q-R1")
    assert "ruled" in item.text and "by rita" in item.text and "1 open" in page.by_id("question-list").text


def test_it_answers_a_stale_ruling_form_with_409_and_writes_nothing(client, questions_repo, reviewer):
    client.force_login(reviewer)
    record = get(questions_repo, "ADR-0014")
    path = Path(record.path)
    path.write_text(path.read_text().replace("Who may rule?", "Who may rule, and how?"))
    edited = path.read_bytes()
    response = rule_on(client, record)
    assert response.status_code == 409 and path.read_bytes() == edited and not AdrAction.objects.exists()
    assert (
        "changed since this page was loaded"
        in dom.parse(response.content.decode()).find("p", role="alert").text
    )


def test_it_answers_409_when_someone_ruled_first(client, questions_repo, reviewer):
    client.force_login(reviewer)
    record = get(questions_repo, "ADR-0014")
    response = rule_on(client, record, key="R2", loaded_sha256="")
    assert response.status_code == 409 and "R2 is already ruled" in response.content.decode()


def test_it_rules_with_a_written_option_as_a_fragment_and_refreshes_the_nav_count(
    client, questions_repo, reviewer
):
    client.force_login(reviewer)
    record = get(questions_repo, "ADR-0014")
    response = rule_on(client, record, option="", written="both, mirrored", headers={"HX-Request": "true"})
    assert response["HX-Trigger"] == "decisions-changed" and "<html" not in response.content.decode()
    assert "option both, mirrored" in dom.parse(response.content.decode()).by_id("q-R1").text


def test_it_refuses_a_ruling_without_a_reason_or_with_two_options(client, questions_repo, reviewer):
    client.force_login(reviewer)
    record = get(questions_repo, "ADR-0014")
    before = Path(record.path).read_bytes()
    assert rule_on(client, record, reason="").status_code == 200
    assert "not both" in rule_on(client, record, written="C").content.decode()
    assert Path(record.path).read_bytes() == before


def test_it_refuses_rulings_without_login_or_csrf(client, questions_repo, reviewer):
    record = get(questions_repo, "ADR-0014")
    assert rule_on(client, record).status_code == 302
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(reviewer)
    assert rule_on(strict, record).status_code == 403
    assert not AdrAction.objects.exists()


def test_it_closes_a_fork_as_resolved_by_a_ruling(client, questions_repo, reviewer):
    client.force_login(reviewer)
    record = get(questions_repo, "ADR-0014")
    response = client.post(
        reverse("ledger:record-resolve", args=[record.pk]),
        {"key": "F2", "ruling": "R2", "reason": "moot now", "loaded_sha256": record.sha256},
    )
    assert response.status_code == 302
    page = dom.parse(client.get(reverse("ledger:record-detail", args=[record.pk])).content.decode())
    assert "resolved by R2" in page.by_id("q-F2").text and "by rita" in page.by_id("q-F2").text
    assert AdrAction.objects.get().verb == "resolve"


def test_it_filters_the_index_to_records_with_open_questions(client, questions_repo, repos):
    page = dom.parse(client.get(reverse("ledger:record-list"), {"questions": "open"}).content.decode())
    rows = page.by_id("record-results").find("tbody").find_all("tr")
    listed = sorted((row.find("td").text, row.find_all("td")[-1].text) for row in rows)
    # the sample's two records with open questions, and this repository's
    assert listed == [
        ("ADR-0014 2 open", "api-server"),
        ("ADR-0014 2 open", "rulings-repo"),
        ("ADR-0105 2 open", "web-ui"),
    ]
    everything = dom.parse(client.get(reverse("ledger:record-list")).content.decode())
    assert len(everything.by_id("record-results").find("tbody").find_all("tr")) == 25


def test_it_renders_the_checklist_in_a_number_of_queries_that_does_not_grow_with_questions(
    client, questions_repo, django_assert_max_num_queries
):
    record = get(questions_repo, "ADR-0014")
    url = reverse("ledger:record-detail", args=[record.pk])
    client.get(url)
    path = Path(record.path)
    more = "".join(f"- **R{n}** Question {n}?\n  - A) yes\n  - B) no\n" for n in range(3, 23))
    path.write_text(path.read_text().replace("## Forks found", more + "\n## Forks found"))
    adr_load.import_repo(questions_repo)
    with django_assert_max_num_queries(13):
        body = client.get(url).content.decode()
    assert "22 open" in dom.parse(body).by_id("question-list").text


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain-form"])
def test_it_answers_a_ruling_on_a_file_changed_on_disk_with_its_text_now_and_the_answer_kept(
    client, questions_repo, reviewer, htmx
):
    client.force_login(reviewer)
    record = get(questions_repo, "ADR-0014")
    path = Path(record.path)
    path.write_text(path.read_text().replace("The contract changes.", "The contract changes twice a year."))
    response = rule_on(client, record, headers={"HX-Request": "true"} if htmx else {})
    body = response.content.decode()
    assert response.status_code == 409 and ("<html" in body) is not htmx
    card = dom.parse(body).by_id("record-card")
    assert "changed since this page was loaded" in card.find("p", role="alert").text
    # What the file says now, read at once (no pass ran): the new context, R1 still open.
    assert "The contract changes twice a year." in card.text
    assert get(questions_repo, "ADR-0014").sha256 == sha256(path.read_bytes())
    assert not AdrAction.objects.exists()
    # R1's form comes back open with the option and reason given, against the file as it is now.
    item = card.by_id("q-R1")
    assert "open" in item.find("details").attrs
    assert "checked" in item.find("input", name="option", value="A").attrs
    assert item.find("textarea", name="reason").text == "the file is the record"
    assert item.find("input", name="loaded_sha256").attrs["value"] == sha256(path.read_bytes())
    assert "open" not in card.by_id("q-F2").find("details").attrs
    assert rule_on(client, get(questions_repo, "ADR-0014")).status_code == 302


def test_it_answers_a_status_change_on_a_changed_file_with_409_and_the_status_it_says_now(
    client, repos, reviewer
):
    client.force_login(reviewer)
    record = get(repos[0], "ADR-0014")
    path = Path(record.path)
    loaded = record.sha256
    path.write_text(path.read_text().replace("## Context", "## Context\n\nAmended on disk.", 1))
    response = client.post(
        reverse("ledger:record-status", args=[record.pk]),
        {"verb": "accept", "loaded_sha256": loaded, "note": "as agreed"},
        headers={"HX-Request": "true"},
    )
    card = dom.parse(response.content.decode()).by_id("record-card")
    assert response.status_code == 409 and "Amended on disk." in card.text
    assert card.by_id("status-form").find("input", name="note").attrs["value"] == "as agreed"
    assert not AdrAction.objects.exists()


def test_a_ruling_keeps_the_records_of_a_configured_adr_directory(client, questions_repo, reviewer, settings):
    # The re-read after a ruling reads the repository as the pass does, WAYSWEB_ADR_DIRS included:
    # a record there was taken for gone.
    settings.WAYSWEB_ADR_DIRS = ["design/records"]
    (questions_repo / "design" / "records").mkdir(parents=True)
    (questions_repo / "design" / "records" / "0020-elsewhere.md").write_text(
        "# 20. Kept elsewhere\n\nDate: 2026-10-02\n\n## Status\n\nAccepted\n\n## Context\n\nHere.\n"
    )
    adr_load.import_repo(questions_repo, ("design/records",))
    client.force_login(reviewer)
    assert rule_on(client, get(questions_repo, "ADR-0014")).status_code == 302
    assert get(questions_repo, "ADR-0020").present
