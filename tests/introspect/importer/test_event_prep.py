"""A chunk of events-log lines sorted as the writer lands it: every line accounted for, in plain values."""

from __future__ import annotations

import json
import pickle

from introspect.importer import event_prep, event_rows, tailer
from lib import hashing
from lib.hashing import sha256

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
    key, length, sha, digest, row, found, whole = sorted_.records[0]
    assert (key, length, sha, whole) == ((0, 0), len(EVENT), sha256(EVENT), True)
    assert digest == hashing.digest64(sha)  # the event's key, found here for the writer
    assert row[event_rows.AT["session_key"]] == "s1" and row[event_rows.AT["raw"]] == EVENT.decode()
    assert row[event_rows.AT["source_id"]] is None  # the writer's
    assert found in ([], None)
    odd = next(record for record in sorted_.records if record[0] == (read[3].offset, 0))
    assert odd[3] == hashing.digest64(odd[2])
    assert isinstance(odd[4], tuple)  # (line, record): the writer reads it the general way


def test_a_chunk_crosses_to_the_writer_as_plain_values_but_its_odd_lines():
    plain = [line for line in lines() if line.data == EVENT]
    chunk = tailer.Chunk(plain, 100, False, 1, 2, 100, 0, 0, "", "", True)
    prepared = event_prep.prepare_chunk(chunk, event_rows.prep_config())
    assert prepared.lines == []  # the writer needs none of their bytes
    pickled = pickle.dumps(prepared.prepared, protocol=pickle.HIGHEST_PROTOCOL)
    assert pickled.count(b"introspect.importer") == 1  # the Sorted itself: no class a line
    assert pickle.loads(pickle.dumps(prepared)).prepared == prepared.prepared


def test_a_layout_goes_to_a_worker_without_the_plans_found_here():
    config = event_rows.prep_config()
    event_prep.sort_lines(lines(), config)
    assert config.layout.plans
    assert pickle.loads(pickle.dumps(config)).layout.plans == {}
