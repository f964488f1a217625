"""The parser turns any bytes into records, a quarantine reason, or an inert count — never an error."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

from introspect.importer import parser
from introspect.rules import event_fields
from tests.introspect.importer.upstream_models import model_event

ROOT = Path(__file__).resolve().parents[3]


def test_it_parses_an_object_line():
    parsed = parser.parse_line(b'{"ts":"2026-01-01T00:00:00Z","event":"session_start"}')
    assert [record.obj["event"] for record in parsed.records] == ["session_start"]
    assert parsed.quarantine is None and parsed.records[0].flags == ()


def test_it_counts_blank_lines_as_inert():
    assert parser.parse_line(b"   ").inert == "blank"
    assert parser.parse_line(b"").inert == "blank"


def test_it_quarantines_invalid_json_with_the_parser_message():
    parsed = parser.parse_line(b'{"ts": nope}')
    assert parsed.records == []
    reason, detail = parsed.quarantine
    assert reason == "invalid_json" and detail


def test_it_quarantines_invalid_utf8():
    parsed = parser.parse_line(b'{"a":"\xff\xfe"}')
    assert parsed.quarantine[0] == "invalid_utf8"


def test_it_quarantines_json_that_is_not_an_object():
    assert parser.parse_line(b"[1,2]").quarantine[0] == "not_object"
    assert parser.parse_line(b'"text"').quarantine[0] == "not_object"


def test_it_quarantines_nesting_too_deep_for_the_parsers():
    assert parser.parse_line(b"[" * 5000 + b"]" * 5000).quarantine[0] == "too_deep"


def test_it_replaces_lone_surrogates_and_flags_the_lenient_parse():
    (record,) = parser.parse_line(b'{"surface":"a\\ud800b"}').records
    assert record.obj["surface"] == "a\ufffdb"
    assert "parsed_lenient" in record.flags


def test_it_replaces_nul_so_both_backends_store_the_same_text():
    (record,) = parser.parse_line(b'{"surface":"a\\u0000b"}').records
    assert record.obj["surface"] == "a\ufffdb"
    assert "nul_replaced" in record.flags


def test_it_accepts_a_bom_and_nan():
    (record,) = parser.parse_line('\ufeff{"x":NaN}'.encode()).records
    assert record.obj == {"x": None}
    assert {"parsed_lenient", "bom"} <= set(record.flags)


def test_it_recovers_two_records_spliced_together():
    parsed = parser.parse_line(b'{"event":"a"}{"event":"b"}')
    assert [record.obj["event"] for record in parsed.records] == ["a", "b"]
    assert all("recovered" in record.flags for record in parsed.records)
    assert parsed.records[1].data == b'{"event":"b"}'


def test_it_recovers_the_record_after_a_torn_prefix_and_quarantines_the_prefix():
    parsed = parser.parse_line(b'{"ts":"2026-01-01T00:00:00Z","even{"ts":"2026-01-01T00:00:01Z","event":"x"}')
    assert [record.obj["event"] for record in parsed.records] == ["x"]
    assert parsed.quarantine[0] == "splice_prefix"


def test_it_recovers_a_record_after_half_a_mebibyte_of_spliced_braces():
    torn = b'{"ts":"2026-01-01T00:00:00Z","text":"' + b"}{" * (256 << 10)
    record = b'{"ts":"2026-01-01T00:00:01Z","event":"x"}'
    parsed = parser.parse_line(torn + record)
    assert [r.data for r in parsed.records] == [record]
    assert parsed.quarantine[0] == "splice_prefix"
    assert parsed.quarantine[1].startswith(f"{len(torn)} bytes before a recovered record")


def test_it_quarantines_a_line_of_braces_alone_as_invalid_json():
    parsed = parser.parse_line(b"}{" * (256 << 10))
    assert parsed.records == [] and parsed.quarantine[0] == "invalid_json"


def test_it_does_not_split_at_braces_inside_strings_or_after_escaped_quotes():
    inner = rb'{"event":"a","text":"x}{\\\"}{\\"}'  # three backslashes escape a quote, two do not
    record = b'{"event":"b"}'
    parsed = parser.parse_line(inner + record)
    assert [r.obj["event"] for r in parsed.records] == ["a", "b"]
    assert parsed.records[0].obj["text"] == 'x}{\\"}{\\'


def test_it_quarantines_a_line_past_the_recovery_cap_with_its_reason(monkeypatch):
    monkeypatch.setattr(parser, "RECOVER_TOKENS", 100)
    line = b'{"text":"' + b'"{"' * 200 + b'{"ts":"2026-01-01T00:00:01Z","event":"x"}'
    parsed = parser.parse_line(line)
    assert parsed.records == []
    reason, detail = parsed.quarantine
    assert reason == "too_long_to_recover" and "more than 100 quotes and brackets" in detail


def naive_recover(text: str, error: str) -> parser.Parsed:
    """The recovery as first written (a parse at every `}{` and every `{"`): the answer to match."""

    def positions(needle: str):
        at = text.find(needle)
        while at >= 0:
            yield at
            at = text.find(needle, at + 1)

    def whole(part: str) -> dict | None:
        try:
            obj = json.loads(part)
        except (ValueError, RecursionError):
            return None
        return obj if isinstance(obj, dict) else None

    for cut in positions("}{"):
        left, right = whole(text[: cut + 1]), whole(text[cut + 1 :])
        if left is not None and right is not None:
            return parser.Parsed(
                records=[
                    parser.Record(
                        obj=parser.sanitise(left), data=text[: cut + 1].encode(), flags=("recovered",)
                    ),
                    parser.Record(
                        obj=parser.sanitise(right), data=text[cut + 1 :].encode(), flags=("recovered",)
                    ),
                ]
            )
    for start in positions('{"'):
        obj = whole(text[start:]) if start else None
        if obj is not None and any(key in obj for key in parser.ENVELOPE_KEYS):
            return parser.Parsed(
                records=[
                    parser.Record(obj=parser.sanitise(obj), data=text[start:].encode(), flags=("recovered",))
                ],
                quarantine=("splice_prefix", f"{start} bytes before a recovered record: {error}"),
            )
    return parser.Parsed(quarantine=("invalid_json", error))


PIECES = ['{"', '"}', "{", "}", '"', "\\", '\\"', "[", "]", ":", ",", "1", "a", " "]
PIECES += ['"ts"', "}{", '{"ts":1}', '"x":"}{"']


def spliced_lines(count: int):
    """Records torn and run together, and random runs of JSON's punctuation, strings and escapes."""
    rng = random.Random(24)
    records = [
        '{"ts":"2026-01-01T00:00:00Z","event":"a"}',
        '{"type":"user","uuid":"u1","message":{"content":"say }{ and \\"{\\"","list":[1,{"a":"]"}]}}',
        '{"n":[{"x":"{\\\\"}"}],"uuid":"u2"}',
        '{"plain":true}',
        '{"ts":NaN,"event":"b"}',
        ' {"ts":"2026"} ',
    ]
    for _ in range(count):
        shape = rng.randrange(3)
        if shape == 0:
            first, second = rng.choice(records), rng.choice(records)
            yield first[: rng.randrange(len(first) + 1)] + second
        elif shape == 1:
            yield "".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 12))) + rng.choice(records)
        else:
            yield "".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 24)))


def test_it_recovers_exactly_what_a_parse_at_every_splice_point_would():
    for text in spliced_lines(4000):
        try:
            json.loads(text)
            continue  # a whole line never reaches the recovery
        except ValueError:
            pass
        fast, slow = parser.recover(text, "e"), naive_recover(text, "e")
        assert [(r.obj, r.data) for r in fast.records] == [(r.obj, r.data) for r in slow.records], text
        assert fast.quarantine == slow.quarantine, text


def test_it_reads_numbers_from_strings_or_json_numbers():
    from_text, _ = event_fields.validate_event(
        {"event": "way_fired", "token_position": "1204", "fire_score": "0.6220"}
    )
    from_number, _ = event_fields.validate_event(
        {"event": "way_fired", "token_position": 1204, "fire_score": 0.622}
    )
    assert from_text["token_position"] == from_number["token_position"] == 1204
    assert from_text["fire_score"] == from_number["fire_score"] == 0.622


def test_it_keeps_empty_fields_apart_from_absent_ones():
    obj = {"event": "way_nearmiss", "prob_en": "0.4791", "prob_multi": "", "tau_s": "0.5000"}
    line, _ = event_fields.validate_event(obj)
    assert line["prob_multi"] is None and line["prob_en"] == 0.4791
    assert event_fields.empty_fields(obj) == ["prob_multi"]
    assert event_fields.empty_fields({"event": "way_nearmiss", "prob_en": "0.4"}) == []


def test_it_drops_a_mistyped_field_and_names_it():
    line, flags = event_fields.validate_event(
        {"event": "way_fired", "way": 42, "token_position": "-3", "trigger": "bash"}
    )
    assert line["way"] is None and line["token_position"] is None and line["trigger"] == "bash"
    assert "unparsed:token_position,way" in flags


def test_it_flags_unknown_event_types():
    _, flags = event_fields.validate_event({"event": "way_capped", "ts": "2026-01-01T00:00:00Z"})
    assert flags == ("unknown_type",)
    _, known = event_fields.validate_event({"event": "judge_call"})
    assert known == ()


def test_it_labels_the_score_generation():
    calibrated, _ = event_fields.validate_event({"event": "way_nearmiss", "prob_en": "0.47", "tau_s": "0.5"})
    raw, _ = event_fields.validate_event({"event": "way_nearmiss", "score_en": "0.44", "thr_en": "0.46"})
    assert calibrated["schema_gen"] == "calibrated" and raw["schema_gen"] == "raw_score"


def model_fields(obj: dict) -> str:
    """What the pydantic model (upstream_models.py) makes of an events-log object, as `plain` shows
    event_fields'."""
    return plain(model_event(obj))


def plain(reading: tuple[dict, tuple[str, ...]]) -> str:
    """The fields in name order, as text: a NaN equals itself there."""
    fields, flags = reading
    return repr((sorted(fields.items()), flags))


ODD_VALUES = [
    None,
    "",
    " ",
    "0",
    " 12 ",
    "-3",
    "1e3",
    "1_000",
    "nan",
    "inf",
    "x",
    "²",
    "١٢",
    "0.5",
    0,
    7,
    -7,
    0.25,
    2**63 - 1,
    2**63,
    -(2**63),
    10**400,
    True,
    False,
    [],
    {},
    ["a"],
    {"a": 1},
    "way/with\u0000nul",
]


def test_the_plain_reading_of_an_event_equals_the_models_for_every_sample_line():
    home = ROOT / "sample" / "home"
    lines = []
    for path in sorted(home.rglob("events*.jsonl*")):
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rb") as fh:
            lines.extend(line for line in fh if line.strip())
    objs = [r.obj for line in lines for r in parser.parse_line(line.rstrip(b"\n")).records]
    assert len(objs) > 100
    for obj in objs:
        assert plain(event_fields.event_fields(obj)) == model_fields(obj), obj


def test_the_plain_reading_of_an_event_equals_the_models_for_odd_values_in_every_field():
    rng = random.Random(29)
    names = list(event_fields.FIELDS)
    for name in names:
        for value in ODD_VALUES:
            obj = {"event": "way_nearmiss", "ts": "2026-01-01T00:00:00Z", name: value}
            assert plain(event_fields.event_fields(obj)) == model_fields(obj), obj
            assert plain(event_fields.validate_event(obj)) == model_fields(obj), obj
    for _ in range(2000):  # several odd fields at once, mistyped ones among them
        obj = {name: rng.choice(ODD_VALUES) for name in rng.sample(names, 4)}
        assert plain(event_fields.event_fields(obj)) == model_fields(obj), obj
        assert plain(event_fields.validate_event(obj)) == model_fields(obj), obj
