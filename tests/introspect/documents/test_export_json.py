"""The JSON export: the dump document the API serves, plus the conversation entries, validated."""

from __future__ import annotations

import orjson
import pytest

from introspect.documents import build, export_json
from introspect.queries import export as queries
from tests.introspect.export_session import REPLY, SID, export_session

pytestmark = pytest.mark.django_db


def exported(session) -> dict:
    return orjson.loads(export_json.json_export(session, queries.export_chunks(session)))


def test_it_carries_the_same_dump_the_api_serves(home, client):
    document = exported(export_session(home))
    assert document["format"] == export_json.FORMAT and document["session"] == SID
    assert document["dump"] == build.dump_document(SID, matched=True)
    assert document["dump"] == orjson.loads(client.get(f"/api/sessions/{SID}/dump.json?matched=1").content)
    assert [turn["epoch"] for turn in document["dump"]["turns"]] == [1, 2]


def test_it_lists_every_entry_in_order_with_its_turn_and_line(home):
    session = export_session(home)
    document = exported(session)
    entries = [item["entry"] for item in document["conversation"] if item["kind"] == "entry"]
    assert [e["uuid"] for e in entries] == ["p1", "i1", "th1", "a1", "c1", "r1", "p2", "a2"]
    assert [e["turn"] for e in entries] == [1, 1, 1, 1, 1, 1, 2, 2]
    reply = entries[3]
    assert reply["text"] == REPLY and reply["line"]["message"]["content"][0]["text"] == REPLY
    assert entries[4]["tool_name"] == "Bash" and entries[5]["tool_result_id"] == "t1"
    assert entries[0]["is_prompt"] is True and "is_prompt" not in reply  # omitted when false


def test_it_places_each_ways_turn_after_its_prompt(home):
    document = exported(export_session(home))
    order = [
        item["entry"]["uuid"] if item["kind"] == "entry" else item["ways_turn"]
        for item in document["conversation"]
    ]
    assert order.index(1) == order.index("p1") + 1
    assert order.index("p2") < order.index(2) < order.index("a2")


def test_the_document_validates_against_its_model(home):
    document = exported(export_session(home))
    assert export_json.SessionExport.model_validate(document).session == SID
