"""Provenance as labelled fields, whatever the format nests (records/provenance.py)."""

from __future__ import annotations

from ledger.records.provenance import provenance_fields


def test_it_gives_majordomus_provenance_one_field_per_key_and_one_value_per_reference():
    value = {"origin": "extracted", "derived_from": ["knowledge:ww-1", "session:s-1"]}
    assert provenance_fields(value) == [
        ("origin", ["extracted"]),
        ("derived from", ["knowledge:ww-1", "session:s-1"]),
    ]


def test_it_labels_nested_keys_by_their_path_and_merges_repeated_labels():
    value = {
        "basis": [{"evidence": "test:test_refill"}, {"evidence": "file:limits.lua"}],
        "agent": "claude",
        "imported": {"from": "v0", "status": "Accepted"},
    }
    assert provenance_fields(value) == [
        ("basis · evidence", ["test:test_refill", "file:limits.lua"]),
        ("agent", ["claude"]),
        ("imported · from", ["v0"]),
        ("imported · status", ["Accepted"]),
    ]


def test_it_leaves_out_empty_values_and_names_a_bare_scalar():
    assert provenance_fields({"origin": "authored", "derived_from": [], "agent": None}) == [
        ("origin", ["authored"])
    ]
    assert provenance_fields("hand-written") == [("provenance", ["hand-written"])]
    assert provenance_fields({}) == []
