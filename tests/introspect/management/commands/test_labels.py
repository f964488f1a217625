"""`manage.py labels export|import`: labels out as JSONL and back in, idempotent; a file with a bad
line is refused whole, each bad line named, the labels held left as they were."""

from __future__ import annotations

from io import StringIO

import orjson
import pytest
from django.core.management import CommandError, call_command

from introspect.models import LabelAction, RelevanceLabel
from tests.introspect import effectiveness_corpus as corpus
from tests.introspect import labelled_corpus as labelled

pytestmark = pytest.mark.django_db


@pytest.fixture
def built(home):
    corpus.build(home)


def export(*args: str) -> bytes:
    out = StringIO()
    call_command("labels", "export", *args, stdout=out)
    return out.getvalue().encode()


def run_import(path, *args: str) -> str:
    out = StringIO()
    call_command("labels", "import", str(path), "--by", "ops", *args, stdout=out)
    return out.getvalue()


def test_export_then_import_round_trips_and_a_second_import_changes_nothing(built, tmp_path):
    often = labelled.fires_of("w/often")
    labelled.label("ann", {often[0]: "relevant", often[1]: "irrelevant"}, note="n")
    labelled.label("bob", {often[0]: "unsure"})
    exported = export()
    lines = [orjson.loads(line) for line in exported.splitlines()]
    assert [(line["labeller"], line["label"]) for line in lines] == [
        ("ann", "relevant"),
        ("ann", "irrelevant"),
        ("bob", "unsure"),
    ]
    assert lines[0]["session"] == corpus.SID and lines[0]["turn"] == 1 and lines[0]["ts"].endswith("Z")
    before = sorted(RelevanceLabel.objects.values_list("fire", "labeller_name", "verdict", "note"))
    RelevanceLabel.objects.all().delete()
    path = tmp_path / "labels.jsonl"
    path.write_bytes(exported)
    assert "3 added, 0 changed, 0 unchanged" in run_import(path)
    assert sorted(RelevanceLabel.objects.values_list("fire", "labeller_name", "verdict", "note")) == before
    assert RelevanceLabel.objects.get(labeller_name="ann", fire=often[0]).labeller.username == "ann"
    assert "0 added, 0 changed, 3 unchanged" in run_import(path)
    imports = LabelAction.objects.filter(verb="import")
    assert imports.count() == 3 and set(imports.values_list("user_name", flat=True)) == {"ops"}
    assert export() == exported


def test_an_import_changes_a_verdict_it_holds_otherwise(built, tmp_path):
    first = labelled.fires_of("w/often")[0]
    labelled.label("ann", {first: "relevant"})
    line = orjson.loads(export())
    path = tmp_path / "labels.jsonl"
    path.write_bytes(orjson.dumps(line | {"label": "irrelevant"}) + b"\n")
    assert "0 added, 1 changed, 0 unchanged" in run_import(path)
    assert RelevanceLabel.objects.get().verdict == "irrelevant"
    action = LabelAction.objects.filter(verb="import").get()
    assert (action.verdict_before, action.verdict_after, action.labeller_name) == (
        "relevant",
        "irrelevant",
        "ann",
    )


def test_a_bad_line_refuses_the_whole_file_and_names_each_bad_line(built, tmp_path):
    first, second = labelled.fires_of("w/often")[:2]
    labelled.label("ann", {first: "relevant"})
    good = orjson.loads(export())
    path = tmp_path / "labels.jsonl"
    path.write_bytes(
        b"\n".join(
            [
                orjson.dumps(good | {"label": "irrelevant"}),  # would change ann's label
                orjson.dumps(good | {"fire": second, "label": "maybe"}),
                b"{not json",
                orjson.dumps(good | {"fire": "abc"}),
                orjson.dumps(good | {"labelled_at": "2026-11-20T10:00:00"}),
                orjson.dumps(good | {"label": "unsure"}),  # ann and the first fire again
            ]
        )
    )
    with pytest.raises(CommandError) as refused:
        run_import(path)
    message = str(refused.value)
    assert "5 bad lines, nothing imported" in message
    assert "line 2: label: Input should be 'relevant', 'irrelevant' or 'unsure'" in message
    assert "line 3: not JSON" in message and "line 4: fire: Value error, fire must be" in message
    assert "line 5: labelled_at: Value error, a time needs its zone" in message
    assert "line 6: the same fire labelled by ann again (line 1)" in message
    assert RelevanceLabel.objects.get().verdict == "relevant"  # intact
    assert not LabelAction.objects.filter(verb="import").exists()


def test_a_missing_file_is_a_clear_error(built, tmp_path):
    with pytest.raises(CommandError, match=r"cannot read .*nowhere\.jsonl: No such file"):
        run_import(tmp_path / "nowhere.jsonl")


def test_export_narrows_to_a_frame(built, tmp_path):
    labelled.label(
        "ann", {labelled.fires_of("w/often")[0]: "relevant", labelled.fires_of("w/rare")[0]: "unsure"}
    )
    assert len(export("--way", "w/rare").splitlines()) == 1
    assert export("--project", "/elsewhere") == b""
    out = tmp_path / "out.jsonl"
    call_command("labels", "export", "--out", str(out), stdout=StringIO(), stderr=StringIO())
    assert len(out.read_bytes().splitlines()) == 2
