"""The labelling page: a seeded sample of a frame's fires shown one at a time with their context,
labelled by any signed-in person with a plain form, resumable, exported as JSONL; and the labels'
precision on the effectiveness page, bounded in queries."""

from __future__ import annotations

import orjson
import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from introspect.models import LabelAction, RelevanceLabel
from introspect.queries.relevance import LabelFrame, frame_fires
from introspect.rules.relevance import sample
from tests.introspect import effectiveness_corpus as corpus
from tests.introspect import labelled_corpus as labelled

pytestmark = pytest.mark.django_db
URL = "/ways/labels/"
FRAME = {"way": "w/often", "seed": "7", "size": "5"}


@pytest.fixture
def built(home):
    corpus.build(home)


@pytest.fixture
def viewer(client):
    """A signed-in account with no permission at all: labelling needs none."""
    user = get_user_model().objects.create_user("vera", password="x")
    client.force_login(user)
    return user


def drawn() -> list[str]:
    return sample(frame_fires(LabelFrame(way="w/often")), 5, "7")


def test_it_shows_the_first_sampled_fire_with_its_context(client, built, viewer):
    response = client.get(URL, FRAME)
    body = response.content.decode()
    assert response.status_code == 200
    assert "0 of 5 labelled" in body and "Sampling frame: 12 fires" in body and "seed 7" in body
    first = drawn()[0]
    assert f'data-fire="{first}"' in body
    turn = next(n for n, fire in enumerate(labelled.fires_of("w/often"), start=1) if fire == first)
    assert f"please do task {turn}</pre>" in body  # the prompt it fired on
    assert "make t" in body  # what followed: the call
    assert "/w/often/often.md" in body and "commits" in body  # the way's file and description
    for key, verdict in (("1", "relevant"), ("2", "irrelevant"), ("3", "unsure")):
        assert f'name="verdict" value="{verdict}" data-key="{key}"' in body
    assert 'src="/static/js/labels.js"' in body


def test_labelling_moves_on_and_the_same_link_resumes_where_it_stopped(client, built, viewer):
    first, second = drawn()[:2]
    response = client.post("/ways/labels/label/", FRAME | {"fire": first, "verdict": "irrelevant", "at": "1"})
    assert response.status_code == 302 and "at=2" in response["Location"]
    client.post(
        "/ways/labels/label/", FRAME | {"fire": second, "verdict": "relevant", "note": "yes", "at": "2"}
    )
    body = client.get(URL, FRAME).content.decode()
    assert "2 of 5 labelled" in body and f'data-fire="{drawn()[2]}"' in body  # resumed at the third
    label = RelevanceLabel.objects.get(fire=second)
    assert (label.labeller_name, label.labeller, label.verdict, label.note) == (
        "vera",
        viewer,
        "relevant",
        "yes",
    )
    assert (label.way, label.channel, label.session_key, label.project) == (
        "w/often",
        "keyword",
        corpus.SID,
        corpus.PROJECT,
    )
    assert "seed=7" in label.frame
    # Each write audited; labelling again the same way writes nothing, changing it is a relabel.
    client.post(
        "/ways/labels/label/", FRAME | {"fire": second, "verdict": "relevant", "note": "yes", "at": "2"}
    )
    client.post("/ways/labels/label/", FRAME | {"fire": first, "verdict": "unsure", "at": "1"})
    verbs = list(
        LabelAction.objects.order_by("pk").values_list("verb", "verdict_before", "verdict_after", "user_name")
    )
    assert verbs == [
        ("label", "", "irrelevant", "vera"),
        ("label", "", "relevant", "vera"),
        ("relabel", "irrelevant", "unsure", "vera"),
    ]


def test_a_permalink_shows_that_fire_and_others_labels_stay_hidden(client, built, viewer):
    third = drawn()[2]
    labelled.label("ann", {third: "relevant"}, note="ann's reason")
    body = client.get(URL, FRAME | {"at": "3"}).content.decode()
    assert f'data-fire="{third}"' in body and "0 of 5 labelled" in body
    assert "ann's reason" not in body and 'aria-pressed="true"' not in body  # blind
    assert 'rel="prev"' in body and 'rel="next"' in body


def test_clearing_ones_label_is_audited_and_shows_that_fire_again(client, built, viewer):
    first = drawn()[0]
    client.post(
        "/ways/labels/label/", FRAME | {"fire": first, "verdict": "irrelevant", "note": "off", "at": "1"}
    )
    response = client.post("/ways/labels/clear/", FRAME | {"fire": first, "at": "1"})
    assert response.status_code == 302 and "at=1" in response["Location"]
    assert not RelevanceLabel.objects.exists()
    # The audit keeps what was cleared, by whom, with the note it had.
    assert list(
        LabelAction.objects.order_by("pk").values_list("verb", "verdict_before", "verdict_after", "note")
    ) == [("label", "", "irrelevant", "off"), ("delete", "irrelevant", "", "off")]
    body = client.get(response["Location"]).content.decode()
    assert "0 of 5 labelled" in body and f'data-fire="{first}"' in body
    assert "vera delete" in body and "irrelevant → cleared" in body  # the person's own, in the audit list
    # Clearing what is not there writes nothing; signed out, nothing is cleared.
    client.post("/ways/labels/clear/", FRAME | {"fire": first, "at": "1"})
    assert LabelAction.objects.count() == 2
    labelled.label("vera", {first: "relevant"})
    client.logout()
    response = client.post("/ways/labels/clear/", FRAME | {"fire": first, "at": "1"})
    assert response["Location"].startswith("/accounts/login/") and RelevanceLabel.objects.count() == 1


def test_the_audit_lists_who_labelled_and_when_but_only_ones_own_verdicts(client, built, viewer):
    first, _, third = drawn()[:3]
    labelled.label("ann", {third: "relevant"}, note="ann's reason")
    labelled.label("vera", {first: "irrelevant"})
    audit_of = lambda body: body.split('id="label-audit"', 1)[1].split("</section>", 1)[0]  # noqa: E731
    body = client.get(URL, FRAME | {"at": "3"}).content.decode()
    assert "Also labelled by ann (" in body  # who, on the fire shown, never what
    audit = audit_of(body)
    assert "ann label" in audit and "fire 3" in audit and "hidden (blind)" in audit
    assert "vera label" in audit and "— → irrelevant" in audit
    assert "relevant" not in audit.replace("irrelevant", "") and "ann's reason" not in body
    # Signed out, every verdict is hidden; the who and when stay.
    client.logout()
    audit = audit_of(client.get(URL, FRAME).content.decode())
    assert audit.count("hidden (blind)") == 2 and "irrelevant" not in audit and "vera label" in audit


def test_signing_in_is_needed_to_label_and_not_to_read(client, built):
    body = client.get(URL, FRAME).content.decode()
    assert "Sign in</a> to label" in body and "data-label-form" not in body
    response = client.post("/ways/labels/label/", FRAME | {"fire": drawn()[0], "verdict": "relevant"})
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert not RelevanceLabel.objects.exists()


def test_the_form_needs_its_csrf_token(built):
    client = Client(enforce_csrf_checks=True)
    client.force_login(get_user_model().objects.create_user("vera", password="x"))
    response = client.post("/ways/labels/label/", FRAME | {"fire": drawn()[0], "verdict": "relevant"})
    assert response.status_code == 403 and not RelevanceLabel.objects.exists()


def test_a_bad_verdict_or_unknown_fire_is_refused(client, built, viewer):
    response = client.post("/ways/labels/label/", FRAME | {"fire": drawn()[0], "verdict": "maybe"})
    assert response.status_code == 400 and "verdict:" in response.content.decode()
    response = client.post("/ways/labels/label/", FRAME | {"fire": "0" * 64, "verdict": "relevant"})
    assert response.status_code == 404
    assert not RelevanceLabel.objects.exists()


def test_the_export_link_gives_the_frames_labels_as_jsonl(client, built, viewer):
    first = drawn()[0]
    labelled.label("ann", {first: "irrelevant"})
    labelled.label("ann", {labelled.fires_of("w/rare")[0]: "relevant"})
    body = client.get(URL, FRAME).content.decode()
    assert 'href="/ways/labels/export.jsonl?way=w%2Foften&amp;seed=7&amp;size=5"' in body
    response = client.get("/ways/labels/export.jsonl", {"way": "w/often"})
    assert response["Content-Type"] == "application/x-ndjson"
    [line] = [orjson.loads(text) for text in response.content.splitlines()]
    assert (line["fire"], line["label"], line["labeller"], line["way"]) == (
        first,
        "irrelevant",
        "ann",
        "w/often",
    )
    assert {"session", "turn", "ts", "channel", "fire_score", "p_yes"} <= set(line)


def test_an_empty_frame_says_so(client, built):
    body = client.get(URL, {"way": "w/none"}).content.decode()
    assert "No fire in this frame" in body


def test_the_page_is_bounded_in_queries(client, built, viewer, django_assert_max_num_queries):
    labelled.label("vera", {fire: "irrelevant" for fire in drawn()[:2]})
    # Session and user, the nav counts, the frame's fires, the sample's labels, its audit rows, and the
    # fire shown: its row, way file, reply before, what followed, outcome and label.
    with django_assert_max_num_queries(13):
        assert client.get(URL, FRAME | {"size": "40"}).status_code == 200


def test_the_effectiveness_page_shows_precision_once_there_are_labels(
    client, built, django_assert_max_num_queries
):
    body = client.get("/ways/effectiveness/").content.decode()
    assert "<strong>No labels yet</strong>" in body and 'href="/ways/labels/"' in body
    often = labelled.fires_of("w/often")
    labelled.label(
        "ann", dict(zip(often[:4], ["relevant", "irrelevant", "irrelevant", "irrelevant"], strict=True))
    )
    labelled.label(
        "bob", dict(zip(often[:4], ["relevant", "irrelevant", "relevant", "irrelevant"], strict=True))
    )
    # Ten for the numbers (queries/effectiveness.py, the labels' included), one for the project list,
    # one for the nav counts.
    with django_assert_max_num_queries(12):
        body = client.get("/ways/effectiveness/", {"way": "w/often"}).content.decode()
    # Fire 3 is disputed (left out); of the three decided, one relevant: 33 %, Wilson 6–79 %.
    assert "1 of 3 relevant · 33 % (6 %–79 %)" in body and "1 disputed" in body
    # ann R I I I, bob R I R I: observed 3/4; chance (1·2 + 3·2)/16 = 1/2; κ = 0.5.
    assert "ann and bob: 4 fires both labelled, 3 agreed, κ 0.50" in body
    assert 'href="/ways/labels/?way=w%2Foften"' in body
