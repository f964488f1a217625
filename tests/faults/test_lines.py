"""Fault cases 1–3 and 9–16 (importer-reliability.md §14): what one line can look like.

Each test writes lines, runs the importer and compares the stored row set (sha256 multisets of
events, transcript entries and raw lines) and the exact quarantine rows with what it wrote.
"""

from __future__ import annotations

import tracemalloc

import orjson
import pytest

from introspect.models import PhysicalLine, Quarantine, RawLine, SourceFile, TranscriptEntry, WaysEvent
from tests.conftest import append
from tests.faults.conftest import (
    assert_counters_add_up,
    assert_rows,
    entry,
    event,
    expected,
    ingest,
    jsonl,
    sha,
)

pytestmark = pytest.mark.django_db


def offsets(lines: list[bytes]) -> list[int]:
    """Where each line starts when the file is split on b"\\n" only."""
    out, position = [], 0
    for line in lines:
        out.append(position)
        position += len(line)
    return out


def test_case_01_final_line_without_newline_is_imported_once_when_completed(home):
    done = [event(1), event(2)]
    torn = event(3)
    append(home.live, *done, torn[:25])
    ingest()
    assert_rows(expected(events=done, raw=done))
    assert SourceFile.objects.get().offset == len(b"".join(done))  # stays at the torn line's start
    ingest()
    assert SourceFile.objects.get().offset == len(b"".join(done))
    append(home.live, torn[25:])
    ingest()
    ingest()
    assert_rows(expected(events=[*done, torn], raw=[*done, torn]))
    assert SourceFile.objects.get().offset == home.live.stat().st_size
    assert_counters_add_up()


def test_case_02_partial_line_across_an_importer_restart_is_one_row(home):
    start = b'{"ts":"2026-11-02T10:00:00Z","event":"way_fired","session":"s1","surface":"partial'
    rest = b' line"}\n'
    append(home.live, start)
    trunk = home.transcript("/p", "s1")
    append(trunk, b'{"type":"user","uuid":"u1","sessionId":"s1","message":{"role":"user","content":"partial')
    ingest()  # one run sees only the partial lines, and stops
    assert_rows(expected())
    append(home.live, rest)
    append(trunk, b' line"}}\n')
    ingest()  # the next run (a restart: state comes from the database only)
    line = start + rest
    transcript_line = (
        b'{"type":"user","uuid":"u1","sessionId":"s1","message":{"role":"user","content":"partial line"}}\n'
    )
    assert_rows(expected(events=[line], entries=[transcript_line], raw=[line, transcript_line]))
    assert WaysEvent.objects.get().surface == "partial line"
    assert TranscriptEntry.objects.get().text == "partial line"


def test_case_03_empty_file_and_short_unterminated_line_are_tracked_then_imported(home):
    append(home.live, b"")
    trunk = home.transcript("/p", "s1")
    append(trunk, b'{"type":"user"')  # shorter than any fingerprint window
    output = ingest()
    assert "Traceback" not in output
    assert_rows(expected())
    tracked = SourceFile.objects.order_by("kind")
    assert [(row.kind, row.offset, row.status) for row in tracked] == [
        ("events", 0, "active"),
        ("transcript", 0, "active"),
    ]
    line = event(1)
    append(home.live, line)
    append(trunk, b',"uuid":"u1","sessionId":"s1","message":{"role":"user","content":"hi"}}\n')
    ingest()
    whole = b'{"type":"user","uuid":"u1","sessionId":"s1","message":{"role":"user","content":"hi"}}\n'
    assert_rows(expected(events=[line], entries=[whole], raw=[line, whole]))
    assert SourceFile.objects.count() == 2  # the same generations, grown


def test_case_09_spliced_records_are_recovered_and_the_prefix_quarantined(home):
    good = event(1)
    torn, follower = event(2), event(3)
    splice = torn[:31] + follower  # `…"way_f{"ts":…`: a torn record run into the next
    first, second = event(4), event(5)
    concatenated = first.rstrip(b"\n") + second  # `}{`
    later = event(6)
    append(home.live, good, splice, concatenated, later)
    ingest()
    splice_at = len(good)
    assert_rows(
        expected(
            events=[good, follower, first, second, later],
            raw=[good, splice, concatenated, later],
            quarantine=[("splice_prefix", splice_at)],
        )
    )
    recovered = [e.sha256 for e in WaysEvent.objects.all() if "recovered" in e.flags]
    assert sorted(recovered) == sorted(expected(events=[follower, first, second]).events)
    prefix = Quarantine.objects.get()
    assert bytes(prefix.raw) == splice.rstrip(b"\n") and "31 bytes before a recovered record" in prefix.detail
    source = SourceFile.objects.get()
    assert (source.lines_seen, source.imported, source.quarantined) == (4, 4, 0)  # every line gave a record
    assert_counters_add_up()


def test_case_10_invalid_utf8_is_quarantined_with_its_bytes_and_later_lines_imported(home, client):
    good, later = event(1), event(2)
    bad = b'{"ts":"2026-11-02T10:00:00Z","event":"way_fired","way":"\xff\xfe"}\n'
    append(home.live, good, bad, later)
    ingest()
    assert_rows(
        expected(events=[good, later], raw=[good, bad, later], quarantine=[("invalid_utf8", len(good))])
    )
    assert bytes(Quarantine.objects.get().raw) == bad.rstrip(b"\n")
    assert RawLine.objects.get(offset=len(good)).outcome == "quarantined"
    page = client.get("/status/")
    assert page.status_code == 200 and "invalid_utf8" in page.content.decode()


def test_case_11_surrogates_nan_bom_and_deep_nesting_never_stop_the_stream(home):
    surrogate = b'{"ts":"2026-11-02T10:00:01Z","event":"way_fired","session":"s1","surface":"a\\ud800b"}\n'
    nan = b'{"ts":"2026-11-02T10:00:02Z","event":"way_fired","session":"s1","fire_score":NaN}\n'
    bom = b'\xef\xbb\xbf{"ts":"2026-11-02T10:00:03Z","event":"way_fired","session":"s1"}\n'
    shallow = b'{"ts":"2026-11-02T10:00:04Z","event":"x","deep":' + b"[" * 1000 + b"]" * 1000 + b"}\n"
    lines = [surrogate, nan, bom, shallow]
    deep_at = []
    # Past orjson's depth limit (1024): near the interpreter's recursion limit, and far past it.
    for depth in (1030, 1200, 1600, 5000):
        deep_at.append(sum(map(len, lines)))
        lines.append(
            b'{"ts":"2026-11-02T10:00:05Z","event":"x","deep":' + b"[" * depth + b"]" * depth + b"}\n"
        )
    later = event(9)
    lines.append(later)
    transcript = home.transcript("/p", "s1")
    lone = b'{"type":"user","uuid":"u1","sessionId":"s1","message":{"role":"user","content":"x\\udc00y"}}\n'
    append(transcript, lone)
    append(home.live, *lines)
    ingest()
    assert_rows(
        expected(
            events=[surrogate, nan, bom, shallow, later],
            entries=[lone],
            raw=[*lines, lone],
            quarantine=[("too_deep", offset) for offset in deep_at],
        )
    )
    by_sha = {e.sha256: e for e in WaysEvent.objects.all()}
    stored_surrogate = by_sha[sha(surrogate)]
    assert stored_surrogate.surface == "a\ufffdb" and "parsed_lenient" in stored_surrogate.flags
    assert by_sha[sha(nan)].fire_score is None
    assert "bom" in by_sha[sha(bom)].flags
    assert TranscriptEntry.objects.get().text == "x\ufffdy"  # encodes on both backends
    assert_counters_add_up()


def test_case_12_nul_escapes_are_replaced_and_flagged_on_every_backend(home, client):
    line = b'{"ts":"2026-11-02T10:00:00Z","event":"way_fired","session":"s1","way":"d/a\\u0000b","trigger":"bash"}\n'
    key = b'{"ts":"2026-11-02T10:00:01Z","event":"way_fired","session":"s1","odd\\u0000key":"v"}\n'
    transcript = home.transcript("/p", "s1")
    said = jsonl(entry("s1", 0, text="before\x00after"))
    append(transcript, said)
    append(home.live, line, key)
    ingest()
    assert_rows(expected(events=[line, key], entries=[said], raw=[line, key, said]))
    stored_line = WaysEvent.objects.get(sha256=sha(line))
    assert stored_line.way == "d/a\ufffdb" and "nul_replaced" in stored_line.flags
    text = TranscriptEntry.objects.get().text
    assert text == "before\ufffdafter" and "\x00" not in text
    assert client.get("/sessions/s1/").status_code == 200


def test_case_13_nul_run_before_a_valid_record_is_recovered_with_its_count(home):
    good, padded = event(1), event(2)
    transcript = home.transcript("/p", "s1")
    said = jsonl(entry("s1", 0))
    append(transcript, b"\x00" * 7 + said)
    append(home.live, good, b"\x00" * 300 + padded)
    ingest()
    assert_rows(expected(events=[good, padded], entries=[said], raw=[good, padded, said]))
    assert "nul_prefix=300" in WaysEvent.objects.get(sha256=sha(padded)).flags
    assert "nul_prefix=7" in TranscriptEntry.objects.get().flags
    assert RawLine.objects.get(offset=len(good)).length == 300 + len(padded) - 1


def test_case_14_unicode_line_separators_and_crlf_split_only_on_newline(home):
    odd = '{"ts":"2026-11-02T10:00:01Z","event":"way_fired","session":"s1","surface":"a\u2028b\u2029c\x85d\\u001ce"}'
    lines = [
        odd.encode() + b"\n",
        event(2).rstrip(b"\n") + b"\r\n",
        event(3),
        odd.replace("a", "z").encode() + b"\r\n",
    ]
    append(home.live, *lines)
    ingest()
    assert_rows(expected(events=lines, raw=lines))
    assert sorted(PhysicalLine.objects.values_list("offset", flat=True)) == offsets(lines)
    assert [event.surface for event in WaysEvent.objects.filter(event="way_fired", session_key="s1")].count(
        "a\u2028b\u2029c\x85d\x1ce"
    ) == 1
    assert SourceFile.objects.get().offset == sum(map(len, lines))


def test_case_15_ten_mib_line_imported_and_line_over_64_mib_skipped_in_bounded_memory(home, settings):
    assert settings.WAYSWEB_MAX_LINE_BYTES == 64 << 20  # the real cap, not a shrunken one
    big = (
        b'{"ts":"2026-11-02T10:00:01Z","event":"way_fired","session":"s1","surface":"'
        + b"x" * (10 << 20)
        + b'"}\n'
    )
    append(home.live, event(0), big)
    ingest()
    assert_rows(expected(events=[event(0), big], raw=[event(0), big]))
    assert len(WaysEvent.objects.get(sha256=sha(big)).surface) == 10 << 20
    # Another session: the pass rebuilds the sessions it touched, and s1 holds the 10 MiB line.
    huge = (
        b'{"ts":"2026-11-02T10:00:02Z","event":"way_fired","session":"s2","surface":"'
        + b"y" * (65 << 20)
        + b'"}\n'
    )
    after = event(3, session="s2")
    append(home.live, huge, after)
    huge_at = len(event(0)) + len(big)
    tracemalloc.start()
    try:
        ingest()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, f"{peak / 2**20:.0f} MiB held while skipping a 65 MiB line"
    assert_rows(
        expected(
            events=[event(0), big, after],
            raw=[event(0), big, huge, after],
            quarantine=[("too_long", huge_at)],
        )
    )
    skipped = Quarantine.objects.get()
    assert skipped.length == len(huge) - 1 and len(bytes(skipped.raw)) == 1024
    assert SourceFile.objects.get().offset == home.live.stat().st_size  # tailing continues past it


def test_case_16_unknown_types_and_schema_drift_are_stored_raw_flagged_and_shown(home, client):
    unknown_event = event(1, name="way_capped", ways="a,b")
    drifted = event(2, token_position="not-a-number")
    lines = [event(0, name="session_start", project="/p"), unknown_event, drifted]
    append(home.live, *lines)
    said = [
        jsonl(entry("s1", 0)),
        jsonl(
            {
                "type": "atis-latch",
                "uuid": "s1-latch",
                "parentUuid": "s1-u0",
                "sessionId": "s1",
                "state": "on",
            }
        ),
        jsonl(
            {
                "type": "attachment",
                "uuid": "s1-hook",
                "parentUuid": "s1-u0",
                "sessionId": "s1",
                "attachment": {"type": "hook_success", "hookEvent": "BrandNewHookEvent", "content": ["ok"]},
            }
        ),
        jsonl(
            {
                "type": "user",
                "uuid": "s1-numeric",
                "parentUuid": "s1-hook",
                "sessionId": "s1",
                "message": {"0": "h", "1": "i"},
            }
        ),
        jsonl({"type": "brand-new-thing", "uuid": "s1-new", "sessionId": "s1", "payload": [1, 2]}),
    ]
    append(home.transcript("/p", "s1"), *said)
    ingest()
    assert_rows(expected(events=lines, entries=said, raw=[*lines, *said]))
    assert "unknown_type" in WaysEvent.objects.get(event="way_capped").flags
    assert "unparsed:token_position" in WaysEvent.objects.get(sha256=sha(drifted)).flags
    entries = {e.uuid: e for e in TranscriptEntry.objects.all()}
    assert entries["s1-latch"].inert and bytes(entries["s1-latch"].raw) == b""  # counted, its DAG node kept
    assert entries["s1-hook"].hook_event == "BrandNewHookEvent"
    assert "unknown_type" in entries["s1-new"].flags and orjson.loads(entries["s1-new"].line)["payload"] == [
        1,
        2,
    ]
    assert any(flag.startswith("unparsed:") for flag in entries["s1-numeric"].flags)
    assert orjson.loads(entries["s1-numeric"].line)["message"] == {"0": "h", "1": "i"}
    for url in ("/", "/sessions/s1/", "/sessions/s1/events/", "/status/", "/search/?q=prompt"):
        assert client.get(url).status_code == 200, url
    assert_counters_add_up()
