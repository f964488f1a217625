"""ADR ids and references as every format writes them: numbers, links, mentions, typed refs (records/refs.py)."""

from __future__ import annotations

import pytest

from ledger.records import refs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ADR-0086", "ADR-0086"),
        ("adr-0086", "ADR-0086"),
        ("0086", "ADR-0086"),
        ("86", "ADR-0086"),
        ("ADR 86", "ADR-0086"),
        ("[86](0086-x.md)", "ADR-0086"),
        ("[3. Use Go](0003-use-go.md)", "ADR-0003"),
        ("ADR-304.1", "ADR-0304.1"),
        ("ADR-167#4", "ADR-0167#4"),
        (86, "ADR-0086"),
        ("ADR-12345", "ADR-12345"),
        ("20200924-use-log4brains", None),
        ("2020-09-24", None),
        ("use-log4brains", None),
        ("", None),
        (None, None),
        (True, None),
        ("3D rendering", None),
    ],
)
def test_it_normalises_ids(text, expected):
    assert refs.canonical_id(text) == expected


def test_it_normalises_typed_references():
    assert refs.normalise_ref("rul:035") == "rul:035"
    assert refs.normalise_ref("RUL-035") == "rul:035" and refs.normalise_ref("SPEC-106") == "spec:106"
    assert refs.normalise_ref("adr:86") == "ADR-0086"
    assert refs.normalise_ref("file:src/x.rs") == "file:src/x.rs"
    assert refs.normalise_ref("[Use X](20210101-use-x.md)") == "20210101-use-x"
