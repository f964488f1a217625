"""Issue 12, single bad inputs in a gzip archive (importer-reliability.md §6, case 31): a member
damaged after thousands of lines, and a decompression bomb. Each keeps what it decoded before the
damage (or the cap), is quarantined as one `gzip_corrupt` row with its byte range, and the next
member of the archive and the live log are imported in the same pass.
"""

from __future__ import annotations

import pytest

from introspect.importer import gzip_tail
from introspect.models import Quarantine, SourceFile
from tests.conftest import append, gzip_member, rejected_member
from tests.faults.conftest import assert_counters_add_up, assert_rows, event, expected, ingest

pytestmark = pytest.mark.django_db


def test_case_31_a_member_damaged_after_thousands_of_lines_keeps_every_line_before_the_damage(home):
    first = [event(n) for n in range(3)]
    before = [event(n, prompt=f"what does line {n} say? " * 10) for n in range(3, 4003)]  # 1.3 MB
    torn = event(4003)[:40]  # the damage falls inside this line
    never_decoded = [event(n) for n in range(4004, 5000)]
    damaged = rejected_member(b"".join(before) + torn, b"".join(never_decoded))
    assert damaged.find(gzip_tail.GZIP_MAGIC, 1) < 0  # so the next header is the next member's
    third = [event(n) for n in range(5000, 5003)]
    m1, m3 = gzip_member(*first), gzip_member(*third)
    path = append(home.archive("2026-10-01"), m1, damaged, m3)
    live = [event(6000, session="s-live")]
    append(home.live, *live)
    ingest()
    kept = [*first, *before, *third, *live]
    assert_rows(expected(events=kept, raw=kept, quarantine=[("gzip_corrupt", len(m1))]))
    damage = Quarantine.objects.get()
    assert (damage.length, damage.index, bytes(damage.raw)) == (len(damaged), -1, torn)
    assert "invalid block type" in damage.detail
    archive = SourceFile.objects.get(kind="events_archive")
    assert (archive.imported, archive.quarantined) == (len(first) + len(before) + len(third), 1)
    assert archive.offset == path.stat().st_size
    assert SourceFile.objects.get(rel_path="events.jsonl").imported == len(live)
    assert_counters_add_up()
    ingest()
    assert_rows(expected(events=kept, raw=kept, quarantine=[("gzip_corrupt", len(m1))]))


def test_it_stops_inflating_a_decompression_bomb_and_imports_what_follows_in_the_same_pass(home, client):
    first = [event(n) for n in range(3)]
    bomb = gzip_member(b"\n" * 2_000_000)  # 1,973 bytes inflating 1013:1
    assert bomb.find(gzip_tail.GZIP_MAGIC, 1) < 0
    third = [event(n) for n in range(3, 6)]
    m1 = gzip_member(*first)
    append(home.archive("2026-10-01"), m1, bomb, gzip_member(*third))
    live = [event(100, session="s-live")]
    append(home.live, *live)
    ingest()
    # What the cap lets any member give (its floor: 64 KiB, here blank lines), not 2,000,000 lines.
    blank = [b"\n"] * gzip_tail.BOMB_FLOOR
    assert_rows(
        expected(
            events=[*first, *third, *live],
            raw=[*first, *blank, *third, *live],
            quarantine=[("gzip_corrupt", len(m1))],
        )
    )
    damage = Quarantine.objects.get()
    assert (damage.length, damage.index, bytes(damage.raw)) == (len(bomb), -1, b"")
    assert damage.detail == (
        "inflates more than 200× its size: a decompression bomb? the rest of this member was not read"
    )
    archive = SourceFile.objects.get(kind="events_archive")
    assert (archive.imported, archive.inert, archive.quarantined) == (len(first) + len(third), len(blank), 1)
    assert SourceFile.objects.get(rel_path="events.jsonl").imported == len(live)
    assert_counters_add_up()
    body = client.get("/status/").content.decode()
    assert "gzip_corrupt × 1" in body and "a decompression bomb? the rest of this member was not read" in body


def test_an_archive_of_many_tiny_bomb_members_gets_the_cap_s_floor_once(home, monkeypatch):
    """Each member on its own is under the floor; together they get it once, plus the ratio of
    what each consumed. (A small floor and ratio keep the row counts of the test small.)"""
    monkeypatch.setattr(gzip_tail, "BOMB_FLOOR", 4096)
    monkeypatch.setattr(gzip_tail, "BOMB_RATIO", 10)
    tiny = gzip_member(b"\n" * 60_000)  # ~90 bytes, 650:1
    bombs = [tiny] * 20  # 20 × 4,096 blank lines if each member had the floor to itself
    after = [event(n) for n in range(3)]
    path = append(home.archive("2026-10-01"), *bombs, gzip_member(*after))
    live = [event(100, session="s-live")]
    append(home.live, *live)
    ingest()
    archive = SourceFile.objects.get(kind="events_archive")
    assert archive.inert <= 4096 + 10 * path.stat().st_size < 20 * 4096
    assert archive.imported == len(after)  # the real member after them keeps its whole ratio
    assert (
        archive.quarantined == Quarantine.objects.filter(source=archive, reason="gzip_corrupt").count() == 20
    )
    assert SourceFile.objects.get(rel_path="events.jsonl").imported == len(live)
    assert_counters_add_up()
