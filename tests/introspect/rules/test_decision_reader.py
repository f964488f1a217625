"""The decision reader as agent-ways' `decisions.rs` (@8e1a61ba) reads: its own tests first, then ours.

Upstream's tests keep their names (`test_` + the Rust test's name).
"""

from __future__ import annotations

from introspect.rules.decision_reader import Records, Window, archive_day, source_order
from introspect.rules.decision_records import (
    BAD_FIELD,
    MALFORMED,
    MISSING_KIND,
    UNKNOWN_KIND,
    Pull,
    Rejected,
    Scan,
    parse_line,
)
from tests.introspect.rules.decision_log import (
    READER_ARCHIVE,
    READER_LIVE,
    READER_MALFORMED,
    READER_S1,
    READER_S2,
    READER_UNKNOWN_KIND,
    source_lines,
    write_log,
)


def test_reads_the_archive_then_the_live_file_and_skips_what_it_cannot_parse(tmp_path):
    directory = write_log(tmp_path / "state", READER_ARCHIVE, READER_LIVE)
    sources = source_order(path.name for path in directory.iterdir())
    assert sources == ["decisions-2026-09-01.jsonl.gz", "decisions.jsonl"]
    reader = Records(source_lines(directory))
    ts = [record.ts for record in reader]
    assert reader.skipped == 2, "the malformed line and the unknown kind"
    assert ts == [
        "2026-09-01T10:00:00Z",
        "2026-09-01T10:00:30Z",
        "2026-09-01T10:00:05Z",
        "2026-09-01T10:01:00Z",
        "2026-09-01T10:02:00Z",
        "2026-09-01T11:00:00Z",
        "2026-09-02T09:00:00Z",
        "2026-09-02T09:00:10Z",
    ], "archive lines first, in file order"


def test_typed_fields_come_through_and_unknown_fields_are_ignored():
    scan = parse_line(READER_S1[0])
    assert isinstance(scan, Scan)
    assert (scan.scan_id, scan.epoch, scan.turn_start) == ("a1", 3, True)
    assert scan.outcomes[0].verdict == "pass"
    assert scan.outcomes[1].shortfall == 0.04
    assert scan.judge.status == "judged"
    pull = parse_line(READER_S2[1])
    assert isinstance(pull, Pull)
    assert (pull.way, pull.scan_id) == ("d/c", None)
    assert isinstance(parse_line(READER_MALFORMED), Rejected)
    assert isinstance(parse_line(READER_UNKNOWN_KIND), Rejected)


def test_the_window_bounds_both_ends_by_ts(tmp_path):
    directory = write_log(tmp_path / "state", READER_ARCHIVE, READER_LIVE)
    window = Window(since="2026-09-01T10:00:30Z", until="2026-09-01T11:00:00Z")
    assert len(list(Records(source_lines(directory), window))) == 4, (
        "b1, two pulls and a3; a2 is before since, though later in the file"
    )


# Ours: what a skipped line is, and why.


def test_it_names_the_reason_of_every_skipped_line_and_passes_blank_lines_uncounted():
    lines = [*READER_ARCHIVE, "", "   \r", "\u3000", '{"kind":"scan","epoch":"3"}', '{"ts":"x"}']
    reader = Records(lines)
    assert len(list(reader)) == 4
    assert reader.skipped == 4
    assert reader.rejected == {MALFORMED: 1, UNKNOWN_KIND: 1, BAD_FIELD: 1, MISSING_KIND: 1}


def test_it_reads_a_torn_last_line_as_malformed_and_the_line_before_it_whole():
    torn = READER_S1[0][:-12]
    reader = Records([READER_S1[4], torn])
    assert [record.scan_id for record in reader] == ["a3"]
    assert reader.rejected == {MALFORMED: 1}


def test_it_counts_a_record_outside_the_window_neither_as_read_nor_as_skipped():
    reader = Records([READER_S1[0], READER_S2[1]], Window(until="2026-09-01T12:00:00Z"))
    assert [record.ts for record in reader] == ["2026-09-01T10:00:00Z"]
    assert (reader.read, reader.skipped) == (1, 0)


def test_it_takes_only_exactly_dated_archives_oldest_day_first_then_the_live_file():
    names = [
        "decisions.jsonl",
        "decisions-2026-10-02.jsonl.gz",
        "decisions-2026-9-01.jsonl.gz",
        "decisions-preserved.jsonl.gz",
        "events-2026-01-01.jsonl.gz",
        "decisions-2026-01-31.jsonl.gz",
        "decisions-1969-12-31.jsonl.gz",
    ]
    assert source_order(names) == [
        "decisions-2026-01-31.jsonl.gz",
        "decisions-2026-10-02.jsonl.gz",
        "decisions.jsonl",
    ]
    assert archive_day("decisions-2026-09-01.jsonl.gz") == 1_788_220_800
    assert source_order(["decisions-2026-09-01.jsonl.gz"]) == ["decisions-2026-09-01.jsonl.gz"]
