"""Fault cases 4–8, 23 and 29–32 (importer-reliability.md §14): files that rotate, shrink, get
rewritten, replaced or archived. Rows already imported are never lost or duplicated; every
generation is read from 0; logical events are de-duplicated by their line's sha256.
"""

from __future__ import annotations

import os
import shutil
import zlib

import pytest

from introspect.derive.session_inputs import events_in_order
from introspect.models import PhysicalLine, Quarantine, Session, SourceFile, WaysEvent
from tests.conftest import append, gzip_member
from tests.faults.conftest import assert_counters_add_up, assert_rows, event, expected, ingest, sha

pytestmark = pytest.mark.django_db


def generations() -> list[tuple[str, int, str]]:
    return list(
        SourceFile.objects.order_by("kind", "rel_path", "generation").values_list(
            "rel_path", "generation", "status"
        )
    )


def test_case_04_rename_rotation_drains_the_old_file_and_reads_the_new_from_0(home):
    before = [event(n) for n in range(5)]
    append(home.live, *before)
    ingest()
    with open(home.live, "ab") as writer:  # the writer keeps its descriptor across the rename
        os.rename(home.live, home.state / "events.jsonl.1")
        late = [event(10), event(11)]
        writer.write(b"".join(late))
        writer.flush()
        fresh = [event(20), event(21)]
        append(home.live, *fresh)
        ingest()
    # The old inode is still reachable under its rotated name: it is drained to its end first.
    assert_rows(expected(events=[*before, *late, *fresh], raw=[*before, *late, *fresh]))
    assert generations() == [("events.jsonl", 1, "superseded"), ("events.jsonl", 2, "active")]
    assert_counters_add_up()


def test_case_05_copy_truncate_while_running_reads_from_0_past_the_nul_hole(home):
    before = [event(n) for n in range(4)]
    append(home.live, *before)
    ingest()
    old_size = home.live.stat().st_size
    with open(home.live, "r+b") as writer:  # logrotate copytruncate: the writer is not in append mode
        writer.seek(old_size)
        copy = home.state / "events.jsonl.1"
        shutil.copy(home.live, copy)
        os.truncate(home.live, 0)
        ingest()  # sees the empty file: a new generation
        after = [event(10), event(11)]
        writer.write(b"".join(after))  # lands at the old position: a hole of NULs before it
        writer.flush()
    assert home.live.read_bytes()[:old_size] == b"\x00" * old_size
    ingest("--events", str(copy))  # the rotated copy is matched too: it adds no logical event
    assert_rows(expected(events=[*before, *after], raw=[*before, *after, *before]))
    first_after = WaysEvent.objects.get(sha256=sha(after[0]))
    assert f"nul_prefix={old_size}" in first_after.flags
    assert generations() == [
        ("events.jsonl", 1, "superseded"),
        ("events.jsonl", 2, "active"),
        ("events.jsonl.1", 1, "active"),
    ]
    assert SourceFile.objects.get(rel_path="events.jsonl.1").duplicate == len(before)
    assert_counters_add_up()


def test_case_06_copy_truncate_while_down_with_longer_content_is_a_new_generation(home):
    before = [event(n) for n in range(3)]
    append(home.live, *before)
    ingest()
    after = [event(n, session="s2") for n in range(10, 18)]  # longer than the old offset
    with open(home.live, "r+b") as fh:  # same inode, truncated, then written again while we were down
        fh.truncate(0)
        fh.write(b"".join(after))
    assert home.live.stat().st_size > sum(map(len, before))
    ingest()
    assert_rows(expected(events=[*before, *after], raw=[*before, *after]))
    assert generations() == [("events.jsonl", 1, "superseded"), ("events.jsonl", 2, "active")]
    assert SourceFile.objects.get(generation=2).imported == len(after)  # nothing skipped


@pytest.mark.parametrize(
    "poll_between", [False, True], ids=["recreated-before-the-next-poll", "gone-then-back"]
)
def test_case_07_delete_and_recreate_keeps_old_rows(home, client, poll_between):
    before = [event(0, name="session_start", project="/p", session="old"), event(1, session="old")]
    append(home.live, *before)
    ingest()
    inode = home.live.stat().st_ino
    home.live.unlink()
    if poll_between:
        assert "gone upstream" in ingest()
        assert generations() == [("events.jsonl", 1, "gone")]
    after = [event(0, name="session_start", project="/p", session="new"), event(1, session="new")]
    append(home.live, *after)  # the same path; often the same inode number again
    ingest()
    assert_rows(expected(events=[*before, *after], raw=[*before, *after]))
    assert generations() == [("events.jsonl", 1, "superseded"), ("events.jsonl", 2, "active")]
    assert Session.objects.get(sid="old").event_count == 2  # old rows kept and browsable
    page = client.get("/sessions/old/")
    assert page.status_code == 200
    print(f"inode reused: {home.live.stat().st_ino == inode}")


def test_case_08_same_size_rewrite_with_mtime_restored_is_read_again(home):
    before = [event(n) for n in range(3)]
    append(home.live, *before)
    ingest()
    stat = home.live.stat()
    rewritten = [before[0], before[1], event(2, trigger="changed")[: len(before[2]) - 1] + b"\n"]
    rewritten[2] = event(2, way="d/zz")  # same length as before[2], different bytes
    assert len(rewritten[2]) == len(before[2])
    with open(home.live, "r+b") as fh:
        fh.write(b"".join(rewritten))
    os.utime(home.live, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # mtime restored; ctime cannot be
    assert home.live.stat().st_size == stat.st_size
    ingest()
    assert_rows(expected(events=[*before, rewritten[2]], raw=[*before, *rewritten]))
    assert generations() == [("events.jsonl", 1, "superseded"), ("events.jsonl", 2, "active")]


def test_case_08_rewrite_outside_the_anchor_window_is_caught_by_verify(home):
    before = [event(n, surface="p" * 300) for n in range(40)]  # the anchor covers the last 4 KiB only
    append(home.live, *before)
    ingest()
    ingest("--verify")  # nothing changed: nothing to read again
    assert generations() == [("events.jsonl", 1, "active")]
    stat = home.live.stat()
    changed = event(5, surface="q" * 300)
    assert len(changed) == len(before[5])
    offset = sum(map(len, before[:5]))
    with open(home.live, "r+b") as fh:
        fh.seek(offset)
        fh.write(changed)
    os.utime(home.live, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    ingest()  # neither size, anchor nor head fingerprint changed: undetectable without --verify
    assert_rows(expected(events=before, raw=before))
    ingest("--verify")
    now = [*before[:5], changed, *before[6:]]
    assert_rows(expected(events=[*before, changed], raw=[*before, *now]))
    assert generations() == [("events.jsonl", 1, "superseded"), ("events.jsonl", 2, "active")]


def test_case_23_clock_skew_and_out_of_order_timestamps_skip_nothing(home):
    first = [event(n) for n in range(3)]
    append(home.live, *first)
    future = 4_000_000_000  # year 2096
    os.utime(home.live, (future, future))
    ingest()
    late = [
        event(1, surface="late, stamped earlier"),
        event(0, surface="older still"),
        b'{"ts":"2001-01-01T00:00:00Z","event":"way_fired","session":"s1","way":"d/old"}\n',
    ]
    append(home.live, *late)
    past = 1_000_000_000  # 2001: older than the mtime recorded at the last poll
    os.utime(home.live, (past, past))
    ingest()
    same_ts = [
        b'{"ts":"2026-11-02T12:00:00Z","event":"way_fired","session":"s1","way":"d/b","n":1}\n',
        b'{"ts":"2026-11-02T12:00:00Z","event":"way_fired","session":"s1","way":"d/a","n":2}\n',
    ]
    append(home.live, *same_ts)
    os.utime(home.live, (past, past))
    ingest()
    everything = [*first, *late, *same_ts]
    assert_rows(expected(events=everything, raw=everything))
    ordered = [
        e.sha256 for e in events_in_order(Session.objects.get(sid="s1")) if e.ts_raw == "2026-11-02T12:00:00Z"
    ]
    assert ordered == [sha(same_ts[0]), sha(same_ts[1])]  # same second: file order (generation, offset)
    assert Session.objects.get(sid="s1").event_count == len(everything)


def test_case_29_size_cap_compaction_adds_no_logical_event(home):
    lines = []
    for n in range(600):
        if n % 50 == 0:
            lines.append(event(n, name="judge_call", input_tokens="10", output_tokens="1", cost_usd="0.01"))
        else:
            lines.append(event(n, surface="s" * 200))
    append(home.live, *lines)
    ingest()
    judge_calls = set(WaysEvent.objects.filter(event="judge_call").values_list("sha256", flat=True))
    # Cut to about its last 75 % at a line boundary; judge_call lines of the dropped head carried.
    cut = len(lines) // 4
    compacted = [line for line in lines[:cut] if b'"judge_call"' in line] + lines[cut:]
    replacement = home.state / "events.jsonl.compact"
    replacement.write_bytes(b"".join(compacted))
    os.replace(replacement, home.live)
    ingest()
    assert_rows(expected(events=lines, raw=[*lines, *compacted]))
    assert set(WaysEvent.objects.filter(event="judge_call").values_list("sha256", flat=True)) == judge_calls
    second = SourceFile.objects.get(generation=2)
    assert (second.imported, second.duplicate) == (0, len(compacted))
    # The same compaction written in place (truncate and rewrite the same inode).
    in_place = compacted[len(compacted) // 3 :]
    with open(home.live, "r+b") as fh:
        fh.truncate(0)
        fh.write(b"".join(in_place))
    ingest()
    assert_rows(expected(events=lines, raw=[*lines, *compacted, *in_place]))
    assert SourceFile.objects.get(generation=3).imported == 0
    assert_counters_add_up()


def test_case_30_age_rotation_while_down_imports_archive_only_lines_once(home):
    old = [event(n, session="s-old") for n in range(5)]
    recent = [event(n, session="s-new") for n in range(100, 104)]
    append(home.live, *old, *recent)
    ingest()
    # While the importer is down: lines appended, then rotation archives the expired ones
    # (including some never imported from the live file) and rewrites the live file.
    appended_old = [event(n, session="s-old") for n in range(5, 8)]
    appended_new = [event(n, session="s-new") for n in range(104, 106)]
    append(home.live, *appended_old, *appended_new)
    append(home.archive("2026-10-01"), gzip_member(*old, *appended_old))
    rewritten = home.state / "events.jsonl.tmp"
    rewritten.write_bytes(b"".join([*recent, *appended_new]))
    os.replace(rewritten, home.live)
    ingest()
    everything = [*old, *recent, *appended_old, *appended_new]
    assert_rows(expected(events=everything, raw=[*old, *recent, *old, *appended_old, *recent, *appended_new]))
    archive = SourceFile.objects.get(kind="events_archive")
    assert (archive.imported, archive.duplicate) == (len(appended_old), len(old))
    assert SourceFile.objects.get(rel_path="events.jsonl", generation=2).imported == len(appended_new)
    assert_counters_add_up()


def decoded_before_damage(member: bytes) -> list[bytes]:
    """The complete lines a cut-off gzip member still gives (what §6 says must be imported)."""
    text = zlib.decompressobj(wbits=31).decompress(member)
    return [line + b"\n" for line in text[: text.rfind(b"\n")].split(b"\n")] if b"\n" in text else []


def test_case_31_torn_trailing_and_corrupt_middle_gzip_members(home):
    first = [event(n) for n in range(3)]
    middle = [event(n, surface="m" * 50) for n in range(3, 203)]
    third = [event(n) for n in range(300, 303)]
    m1, m2, m3 = gzip_member(*first), gzip_member(*middle), gzip_member(*third)
    broken = m2[: len(m2) - 40]  # cut off mid-stream: a damaged member
    survivors = decoded_before_damage(broken)
    assert 0 < len(survivors) < len(middle)
    fourth = [event(n) for n in range(400, 410)]
    m4 = gzip_member(*fourth)
    path = append(
        home.archive("2026-10-01"), m1, broken, m3, m4[: len(m4) // 2]
    )  # the last still being written
    ingest()
    damaged_at = len(m1)
    assert_rows(
        expected(
            events=[*first, *survivors, *third],
            raw=[*first, *survivors, *third],
            quarantine=[("gzip_corrupt", damaged_at)],
        )
    )
    damage = Quarantine.objects.get()
    assert (damage.length, damage.index) == (len(broken), -1)
    archive = SourceFile.objects.get()
    assert archive.offset == len(m1) + len(broken) + len(m3)  # the torn member is retried later
    append(path, m4[len(m4) // 2 :])
    ingest()
    assert_rows(
        expected(
            events=[*first, *survivors, *third, *fourth],
            raw=[*first, *survivors, *third, *fourth],
            quarantine=[("gzip_corrupt", damaged_at)],
        )
    )
    assert sorted(PhysicalLine.objects.filter(offset=archive.offset).values_list("index", flat=True)) == list(
        range(10)
    )
    assert_counters_add_up()


def test_case_32_legacy_and_xdg_logs_hold_one_logical_event_per_line(home):
    start_only_in_legacy = event(0, name="session_start", project="/legacy", session="s-legacy")
    shared = [event(n, session="s-legacy") for n in range(1, 4)]
    legacy_only = [event(n, session="s-other") for n in range(10, 12)]
    append(home.legacy, start_only_in_legacy, *shared, *legacy_only)
    xdg_only = [event(n, session="s-legacy") for n in range(20, 23)]
    append(home.live, *shared, *xdg_only)
    ingest()
    assert_rows(
        expected(
            events=[start_only_in_legacy, *shared, *legacy_only, *xdg_only],
            raw=[start_only_in_legacy, *shared, *legacy_only, *shared, *xdg_only],
        )
    )
    session = Session.objects.get(sid="s-legacy")
    assert session.origin == "events" and session.recorded_project == "/legacy"
    assert session.event_count == 1 + len(shared) + len(xdg_only)
    # The live log ranks before the legacy one (formats-agent-ways.md §2.3 rule 4).
    assert {WaysEvent.objects.get(sha256=sha(line)).source.kind for line in shared} == {"events"}
    assert_counters_add_up()
