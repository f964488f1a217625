"""The Memory pages: the index as Claude Code loads it, each topic file's history with the turn that
wrote each version, and a reviewer's promote / mark wrong (the memory file never touched)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from introspect.models import Session
from ledger.models import KnowledgeRecord, Memory, MemoryAction, ReviewAction
from tests.ledger.memory_tree import EDITED, SID, SLUG, import_memory, memory_folder, written_memory
from tests.ledger.views import dom

pytestmark = pytest.mark.django_db


@pytest.fixture
def tree(home):
    home.topic = written_memory(home)
    return home


def topic() -> Memory:
    return Memory.objects.get(name="testing.md")


def project_page(client) -> dom.Element:
    response = client.get(reverse("ledger:memory-project", args=[SLUG]))
    assert response.status_code == 200
    return dom.parse(response.content)


def test_the_index_names_each_project_with_memory_as_the_session_list_does(client, tree):
    page = dom.parse(client.get(reverse("ledger:memory-index")).content)
    link = page.find("a", href=reverse("ledger:memory-project", args=[SLUG]))
    project = Session.objects.get(sid=SID).project
    assert link is not None and link.text.startswith(project.name) and SLUG in link.text
    assert link.attrs["title"] == project.path


def test_a_folder_with_no_imported_session_is_named_by_its_slug(client, home):
    (memory_folder(home) / "MEMORY.md").write_text("- a note\n")
    import_memory()
    page = dom.parse(client.get(reverse("ledger:memory-project", args=[SLUG])).content)
    assert page.find("h1").text == SLUG


def test_the_project_page_is_titled_by_its_project(client, tree):
    heading = project_page(client).find("h1")
    assert heading.text.startswith(Session.objects.get(sid=SID).project.name)


def test_each_version_says_which_session_and_turn_wrote_it_and_links_there(client, tree):
    card = project_page(client).by_id(f"memory-{topic().pk}")
    assert "test command — how tests run" in card.text and "project" in card.text
    v1 = card.by_id(f"memory-{topic().pk}-v1")
    v2 = card.by_id(f"memory-{topic().pk}-v2")
    assert "written in session" in v2.text and "turn 2" in v2.text and "exact" in v2.text
    assert "turn 1" in v1.text
    turn_link = v2.find("a", cls="memory-turn")
    assert turn_link.attrs["href"] == reverse("introspect:session-detail", args=[SID]) + "?u=a2"
    diff = [row.text for row in v2.find_all("tr", cls="diff--add")]
    assert any("needs Docker" in text for text in diff)


def test_the_turn_link_lands_on_the_conversation_at_the_call(client, tree):
    response = client.get(reverse("introspect:session-detail", args=[SID]) + "?u=a2")
    assert response.status_code == 302 and "turn=2" in response["Location"]


def test_a_version_without_a_call_says_it_changed_outside_a_recorded_session(client, tree):
    index = Memory.objects.get(name="MEMORY.md")
    version = project_page(client).by_id(f"memory-{index.pk}-v1")
    assert "changed outside a recorded session" in version.text


def test_the_index_marks_the_lines_claude_code_loads(client, tree):
    folder = memory_folder(tree)
    (folder / "MEMORY.md").write_text("".join(f"- line {n}\n" for n in range(1, 206)))
    import_memory()
    page = project_page(client)
    loaded = page.find_all("tr", cls="memory-line--loaded")
    unloaded = page.find_all("tr", cls="memory-line--unloaded")
    assert (len(loaded), len(unloaded)) == (200, 5)
    assert "not loaded into sessions" in page.find("section", cls="memory-index").text


def test_the_project_page_takes_a_bounded_number_of_queries(client, tree, django_assert_max_num_queries):
    with django_assert_max_num_queries(12):
        project_page(client)


def test_reading_is_open_but_promoting_needs_a_reviewer(client, tree, viewer):
    url = reverse("ledger:memory-promote", args=[topic().pk])
    assert client.post(url, {"evidence": "CI runs it", "klass": "memory"}).status_code == 302
    client.force_login(viewer)
    assert client.post(url, {"evidence": "CI runs it", "klass": "memory"}).status_code == 403
    assert not MemoryAction.objects.exists()


def test_a_promotion_without_csrf_is_refused(tree, reviewer):
    client = Client(enforce_csrf_checks=True)
    client.force_login(reviewer)
    response = client.post(
        reverse("ledger:memory-promote", args=[topic().pk]), {"evidence": "e", "klass": "fact"}
    )
    assert response.status_code == 403 and not MemoryAction.objects.exists()


def test_promoting_makes_verified_knowledge_citing_the_memory_and_its_turn(tree, reviewer):
    client = Client(enforce_csrf_checks=True)
    client.force_login(reviewer)
    token = client.get(reverse("ledger:memory-project", args=[SLUG])).cookies["csrftoken"].value
    response = client.post(
        reverse("ledger:memory-promote", args=[topic().pk]),
        {"evidence": "The Makefile's test target starts Docker.", "klass": "fact"},
        headers={"HX-Request": "true", "X-CSRFToken": token},
    )
    card = dom.parse(response.content)
    assert "<html" not in response.content.decode()
    assert "Promoted" in card.text and "promoted by rita" in card.text
    record = KnowledgeRecord.objects.get()
    assert (record.status, record.klass, record.title) == ("verified", "fact", "test command")
    assert record.session.sid == SID and record.turn_epochs == [2, 2]
    assert any(ref.startswith("memory:") and "testing.md" in ref for ref in record.derived_from)
    assert ReviewAction.objects.get().verb == "promote"
    assert MemoryAction.objects.get().knowledge == record
    assert tree.topic.read_text() == EDITED  # the user's memory file is not touched


def test_a_repeated_promotion_is_the_first_one(client, tree, reviewer):
    client.force_login(reviewer)
    url = reverse("ledger:memory-promote", args=[topic().pk])
    for _ in range(2):
        response = client.post(url, {"evidence": "The Makefile says so.", "klass": "memory"})
        assert response.status_code == 302
    assert KnowledgeRecord.objects.count() == 1 and MemoryAction.objects.count() == 1


def test_promoting_without_evidence_shows_the_form_error_and_writes_nothing(client, tree, reviewer):
    client.force_login(reviewer)
    response = client.post(
        reverse("ledger:memory-promote", args=[topic().pk]), {"evidence": "", "klass": "memory"}
    )
    assert response.status_code == 200
    form = dom.parse(response.content).find("form", cls="memory-promote-form")
    assert "This field is required." in form.text
    assert not KnowledgeRecord.objects.exists()


def test_marking_wrong_records_the_note_and_leaves_the_file(client, tree, reviewer):
    client.force_login(reviewer)
    response = client.post(
        reverse("ledger:memory-mark-wrong", args=[topic().pk]),
        {"note": "Docker is optional since the sqlite profile."},
    )
    assert response.status_code == 302 and response["Location"].endswith(f"#memory-{topic().pk}")
    card = project_page(client).by_id(f"memory-{topic().pk}")
    assert "marked wrong by rita" in card.text and "Docker is optional" in card.text
    action = MemoryAction.objects.get()
    assert (action.verb, action.version.number, action.reviewer_name) == ("wrong", 2, "rita")
    assert tree.topic.read_text() == EDITED


def test_an_unknown_project_is_404(client, db):
    assert client.get(reverse("ledger:memory-project", args=["-nowhere"])).status_code == 404


def test_the_session_page_marks_the_memory_it_wrote_with_a_link_to_each_version(client, tree):
    page = dom.parse(client.get(reverse("introspect:session-detail", args=[SID]) + "?turn=1").content)
    mark = page.by_id("memory-written")
    assert (
        mark is not None and "testing.md v1 — turn 1" in mark.text and "testing.md v2 — turn 2" in mark.text
    )
    hrefs = [a.attrs["href"] for a in mark.find_all("a")]
    assert reverse("ledger:memory-project", args=[SLUG]) + f"#memory-{topic().pk}-v2" in hrefs


def test_the_conversation_marks_each_memory_write_right_after_the_call_that_made_it(client, tree):
    # A transcript-only session has no fire turns to hang the mark on: it goes under the call itself.
    html = client.get(reverse("introspect:session-detail", args=[SID]) + "?turn=1").content.decode()
    first, second = topic().versions.order_by("number")
    page = dom.parse(html)
    for version in (first, second):
        mark = page.by_id(f"memory-mark-{version.pk}")
        assert mark is not None and f"testing.md v{version.number}" in mark.text
    assert html.index('id="u-a1"') < html.index(f'id="memory-mark-{first.pk}"') < html.index('id="u-p2"')
    assert html.index('id="u-a2"') < html.index(f'id="memory-mark-{second.pk}"')
    assert html.count(f'id="memory-mark-{first.pk}"') == 1  # not again under a turn
