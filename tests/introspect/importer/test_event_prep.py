"""A chunk of events-log lines sorted as the writer lands it: every line accounted for, in plain values."""

from __future__ import annotations

import dataclasses
import json
import pickle
import random

import pytest

from introspect.importer import event_prep, event_rows, parser, tailer
from introspect.rules import event_fields
from lib import hashing
from lib.hashing import sha256
from tests.introspect.importer.test_parser import ODD_VALUES

EVENT = json.dumps({"event": "way_fired", "ts": "2026-01-01T00:00:00Z", "session": "s1", "way": "w"}).encode()
ODD = json.dumps({"event": "way_fired", "ts": "2026-01-01T00:00:00Z", "p_yes": [1]}).encode()


def lines() -> list[tailer.Line]:
    rows = [EVENT, b"", b"{not json", ODD, b"[1, 2]"]
    at, out = 0, []
    for data in rows:
        out.append(tailer.Line(offset=at, data=data, length=len(data)))
        at += len(data) + 1
    out.append(tailer.Line(offset=at, data=b"{", length=9 << 20, too_long_sha256="a" * 64))
    return out


def test_every_line_gets_its_outcome_and_raw_row_and_each_record_its_row():
    read = lines()
    sorted_ = event_prep.sort_lines(read, event_rows.prep_config())
    assert sorted_.keys == [(line.offset, 0) for line in read]
    assert sorted_.outcomes[0] == "duplicate"  # a record: until the store finds it new
    assert sorted_.outcomes[1] == "inert"
    assert sorted_.outcomes[2] == "quarantined"
    assert sorted_.outcomes[5] == "quarantined"  # too long
    assert [raw[:2] for raw in sorted_.raw] == sorted_.keys
    assert sorted_.raw[0][2] == sha256(EVENT)
    assert sorted_.raw[5][2] == "a" * 64
    reasons = [reason for _, reason, _, _ in sorted_.quarantined]
    assert "too_long" in reasons and len(reasons) >= 2
    key, length, sha, digest, row, whole, clean = sorted_.records[0]
    assert (key, length, sha, whole, clean) == ((0, 0), len(EVENT), sha256(EVENT), True, True)
    assert digest == hashing.digest64(sha)  # the event's key, found here for the writer
    assert row[event_rows.AT["session_key"]] == "s1" and row[event_rows.AT["raw"]] == EVENT.decode()
    assert row[event_rows.AT["source_id"]] is None  # the writer's
    odd = next(record for record in sorted_.records if record[0] == (read[3].offset, 0))
    assert odd[3] == hashing.digest64(odd[2])
    assert isinstance(odd[4], tuple)  # (line, record): the writer reads it the general way
    assert odd[6] is False  # and scans all of it


def test_equal_texts_of_a_chunk_are_one_object_in_its_rows():
    # Equal texts the parser gave as distinct objects: a chunk's pickle then names a repeat by reference.
    read = []
    for n in range(3):
        data = json.dumps(
            {"event": "way_fired", "ts": f"2026-01-01T00:00:0{n}Z", "session": "s1", "way": "d/w"}
        )
        read.append(tailer.Line(offset=n * 200, data=data.encode(), length=len(data)))
    rows = [record[4] for record in event_prep.sort_lines(read, event_rows.prep_config()).records]
    for name in ("event", "session_key", "way"):
        at = event_rows.AT[name]
        assert rows[0][at] == rows[1][at] == rows[2][at]
        assert rows[0][at] is rows[1][at] is rows[2][at], name
    at = event_rows.AT["ts_raw"]
    assert len({row[at] for row in rows}) == 3  # distinct texts stay distinct


@pytest.mark.parametrize(
    "value",
    [
        "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",  # a secret
        "a GitHub token starts ghp_ and goes on",  # an anchor no secret follows
        "AKIA" + "QWERTYUIOPASDFGH ünïcode",  # an anchor in a line that is not ASCII
    ],
)
def test_a_line_is_clean_only_where_no_secret_could_begin_in_it(value):
    data = json.dumps(
        {"event": "way_fired", "ts": "2026-01-01T00:00:00Z", "surface": value}, ensure_ascii=False
    ).encode()
    lines = [
        tailer.Line(offset=0, data=data, length=len(data)),
        tailer.Line(offset=99, data=EVENT, length=len(EVENT)),
    ]
    anchored, plain = event_prep.sort_lines(lines, event_rows.prep_config()).records
    assert (anchored[6], plain[6]) == (False, True)


def test_a_chunk_crosses_to_the_writer_as_plain_values_but_its_odd_lines():
    plain = [line for line in lines() if line.data == EVENT]
    chunk = tailer.Chunk(plain, 100, False, 1, 2, 100, 0, 0, "", "", True)
    prepared = event_prep.prepare_chunk(chunk, event_rows.prep_config())
    assert prepared.lines == []  # the writer needs none of their bytes
    pickled = pickle.dumps(prepared.prepared, protocol=pickle.HIGHEST_PROTOCOL)
    assert pickled.count(b"introspect.importer") == 1  # the Sorted itself: no class a line
    # as text: an absent field's UNSET (a NaN) comes back as another NaN, equal to it only so
    assert repr(pickle.loads(pickle.dumps(prepared)).prepared) == repr(prepared.prepared)


def test_a_chunk_built_as_sqlite_stores_it_crosses_with_one_plain_nan_for_every_field_its_lines_lack():
    plain = [line for line in lines() if line.data == EVENT]
    chunk = tailer.Chunk(plain, 100, False, 1, 2, 100, 0, 0, "", "", True)
    config = dataclasses.replace(event_rows.prep_config(), stamps_as_text=True)
    rows = [record[4] for record in event_prep.prepare_chunk(chunk, config).prepared.records]
    unset = [value for row in rows for value in row if value is event_prep.UNSET]
    assert len(unset) > len(rows)  # an event line lacks most score fields
    crossed = pickle.loads(pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL))
    nans = {id(value): value for row in crossed for value in row if value != value}
    assert len(nans) == 1 and type(*nans.values()) is float  # the driver's fast path: an exact float
    assert sum(value != value for row in crossed for value in row) == len(unset)


def test_a_layout_goes_to_a_worker_without_the_plans_found_here():
    config = event_rows.prep_config()
    event_prep.sort_lines(lines(), config)
    assert config.layout.plans
    assert pickle.loads(pickle.dumps(config)).layout.plans == {}


def general(data: bytes) -> parser.Parsed:
    """parse_line under another name: sort_lines then sorts every line the general way."""
    return parser.parse_line(data)


TOKEN = "ghp_x9Kq2LmZ8vR4tY7wP3nB6cJ1hF5dS0gA2eUo"  # a GitHub token's shape: a finding
PLAIN_VALUES = ["", "0", " 12 ", "x", "0.5", 7, 0.25, "token_position"]


def odd_lines() -> list[tailer.Line]:
    """Plain lines and every kind of line the fast path leaves to the general way, in one chunk."""
    rng = random.Random(29)
    names = list(event_fields.FIELDS)
    objs = [
        {"ts": "2026-10-01T07:07:23Z", "event": "judge_call", "input_tokens": "1082", "cost_usd": "0.001"},
        {"ts": "2026-10-01T07:07:23Z", "event": "way_fired", "way": "a/b", "session": "s", "reason": ""},
        {"ts": "2026-10-01T07:59:59Z", "event": "way_nearmiss", "prob_en": "0.2", "tau_s": ""},
        {"ts": "2026-10-01T08:00:00Z", "event": "way_nearmiss", "score_en": "0.5", "thr_en": 1},
        {"ts": "0001-01-01T00:00:00Z", "event": "mystery", "surface": "password=Tr0ub4dor-3xK9q"},
        {"ts": "2026-10-01T07:60:00Z", "event": "way_fired", "matched_span": TOKEN},
        {"ts": "2026-10-01T07:07:23.5Z", "event": "way_fired", "way": "w" * 600},
        {"ts": "2026-02-30T00:00:00Z", "event": "way_fired", "p_yes": [1]},
    ]
    for i in range(300):  # every other one with values the plain reading takes (mostly)
        minute, second = rng.randint(0, 61), rng.randint(0, 61)
        obj = {"ts": f"2026-10-0{rng.randint(1, 3)}T0{rng.randint(0, 9)}:{minute:02}:{second:02}Z"}
        obj |= {name: rng.choice(ODD_VALUES if i % 2 else PLAIN_VALUES) for name in rng.sample(names, 4)}
        objs.append(obj)
    rows = [json.dumps(obj).encode() for obj in objs]
    rows += [b"", b"  ", b"{not json", b"[1, 2]", b'"text"', b"{}", b'{"a":1}{"event":"way_fired"}']
    rows += [b'\xef\xbb\xbf{"event":"way_fired"}', b'{"event":"way_fired","p_yes":NaN}', b'{"way":"\\u0000"}']
    rows += [b'{"way":"\\ud800","event":"way_fired"}', b"[" * 2000 + b"]" * 2000, b'{"event":"x"}']
    at, out = 0, []
    for i, data in enumerate(rows):
        out.append(tailer.Line(at, data, len(data) + i % 2, i % 3, nul_prefix=i % 2))
        at += len(data) + 1
    out.append(tailer.Line(at, b"{", 9 << 20, too_long_sha256="a" * 64))
    return out


@pytest.mark.parametrize("as_text", [True, False])
def test_plain_lines_are_sorted_to_the_same_bytes_as_the_general_way_sorts_them(as_text):
    # The worker's pickle of a chunk is the same whichever way its lines were read: every value, and
    # every value shared between records (a stamp read once a chunk, a line's hash).
    config = event_prep.Config(event_rows.LAYOUT, stamps_as_text=as_text)
    lines = odd_lines()
    fast = event_prep.sort_lines(lines, config)
    slow = event_prep.sort_lines(lines, config, general)
    assert sum(isinstance(record[4], list) for record in fast.records) > 50
    assert any(isinstance(record[4], tuple) for record in fast.records)
    assert pickle.dumps(fast, protocol=pickle.HIGHEST_PROTOCOL) == pickle.dumps(
        slow, protocol=pickle.HIGHEST_PROTOCOL
    )


def test_a_plain_object_is_one_record_of_the_whole_line_unchanged_and_anything_else_is_left_to_parse_line():
    for line in odd_lines():
        obj = parser.plain_object(line.data)
        parsed = parser.parse_line(line.data)
        if obj is None:
            assert not (
                len(parsed.records) == 1
                and parsed.records[0].data == line.data
                and parsed.records[0].flags == ()
                and parsed.quarantine is None
                and b"\\u0000" not in line.data
            ), line.data
        else:
            assert parsed == parser.Parsed(records=[parser.Record(obj, line.data)]), line.data
