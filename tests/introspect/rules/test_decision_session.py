"""The `introspect decisions SESSION --json` document: a session's turns and judged pulls (§8.8)."""

from __future__ import annotations

from introspect.rules.decision_session import session_document
from tests.introspect.rules.decision_log import READER_ARCHIVE, READER_LIVE


def test_it_lists_the_sessions_turns_by_ordinal_over_the_whole_log_and_its_pulls_in_stream_order():
    lines = READER_ARCHIVE + READER_LIVE
    assert session_document(lines, "s1") == {
        "session": "s1",
        "turns": [
            {"ordinal": 0, "session": "s1", "agent": "main", "scan_id": "a1", "scans": ["a2"]},
            {"ordinal": 2, "session": "s1", "agent": "main", "scan_id": "a3", "scans": []},
        ],
        "pulls": [
            {
                "ts": "2026-09-01T10:01:00Z",
                "agent": "main",
                "way": "d/a",
                "scan_id": "a1",
                "join": "delivered",
                "turn": 0,
            },
            {
                "ts": "2026-09-01T10:02:00Z",
                "agent": "main",
                "way": "d/x",
                "scan_id": "a2",
                "join": "recall_miss",
                "turn": 0,
            },
        ],
    }
    s2 = session_document(lines, "s2")
    assert [turn["ordinal"] for turn in s2["turns"]] == [1]
    assert [(p["join"], p["turn"]) for p in s2["pulls"]] == [("no_scan_id", None), ("recall_miss", 1)]


def test_a_session_with_no_records_has_no_turns_and_no_pulls():
    assert session_document(READER_LIVE, "nobody") == {"session": "nobody", "turns": [], "pulls": []}
