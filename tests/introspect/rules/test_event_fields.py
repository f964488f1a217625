"""An event's fields read back from its raw line (the ones its row does not hold) are what the importer
read from the line: one field alone as in a whole reading, for odd values and mistyped ones too."""

from __future__ import annotations

import json
import random

import orjson

from introspect.rules import event_fields
from tests.introspect.importer.test_parser import ODD_VALUES

# A raw line holds JSON: the odd values JSON can carry (not a NUL-bearing text's escape, no tuple).
JSON_VALUES = [value for value in ODD_VALUES if not (isinstance(value, str) and "\x00" in value)]


def raw_line(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False)


def test_each_field_read_alone_is_the_importers_reading_of_the_whole_line():
    rng = random.Random(45)
    names = list(event_fields.FIELDS)
    lines = [{"event": "way_nearmiss", name: value} for name in names for value in JSON_VALUES]
    lines += [{name: rng.choice(JSON_VALUES) for name in rng.sample(names, 5)} for _ in range(2000)]
    for obj in lines:
        raw = raw_line(obj)
        read, _ = event_fields.event_fields(json.loads(raw))
        stored = {name: None if value != value else value for name, value in read.items()}  # NaN: NULL
        whole = event_fields.logged(raw)
        assert {name: whole[name] for name in read} == stored, obj
        assert whole["empty_fields"] == sorted(name for name, value in obj.items() if value == "")


def test_a_score_field_read_back_gives_the_generation_the_importer_gave():
    calibrated = raw_line({"event": "way_nearmiss", "tau_s": "0.6", "score_en": "0.1"})
    raw_score = raw_line({"event": "way_nearmiss", "thr_multi": 0.3})
    unscored = raw_line({"event": "way_nearmiss", "tau_s": "", "score_en": "x"})
    assert [event_fields.logged(raw)["schema_gen"] for raw in (calibrated, raw_score, unscored)] == [
        "calibrated",
        "raw_score",
        None,
    ]
    assert event_fields.logged(unscored)["empty_fields"] == ["tau_s"]


def test_a_line_read_leniently_by_the_importer_reads_back_as_it_was_stored():
    nan = '{"event":"way_fired","fire_score":NaN,"surface":"a\\ud800b"}'
    assert event_fields.logged(nan)["fire_score"] is None
    assert event_fields.logged(nan)["surface"] == "a\ufffdb"  # as importer/parser.sanitise stored it
    assert event_fields.logged("\ufeff" + raw_line({"agent_id": "a7"}))["agent_id"] == "a7"


def test_a_raw_line_that_is_no_object_reads_as_no_field():
    for raw in ("[1, 2]", "not json", orjson.dumps("text").decode()):
        fields = event_fields.logged(raw)
        assert fields["agent_id"] is None and fields["empty_fields"] == [] and fields["schema_gen"] is None
        assert event_fields.logged_field(event_fields.line_object(raw), "empty_fields") == []
