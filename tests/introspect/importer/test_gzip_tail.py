"""gzip archives are read member by member in bounded memory; damaged members keep every line
decoded before the damage, and a decompression bomb stops at the cap."""

from __future__ import annotations

import functools
import gzip
import random
import tracemalloc
import zlib

import pytest

from introspect.importer import gzip_tail, tailer
from lib.hashing import sha256
from tests.conftest import append, gzip_member, rejected_member
from tests.introspect.importer.chunks import checkpoint_after, keys, numbered, read_all


def read_gzip_chunk(path, checkpoint, **kwargs) -> tailer.Chunk | None:
    """One batch of an archive from a fresh open, as a restarted importer reads it."""
    with gzip_tail.GzipTail(path) as tail:
        return tail.chunk(checkpoint, **kwargs)


def test_it_reads_gzip_archives_member_by_member(tmp_path):
    first = gzip_member(b'{"a":1}\n', b'{"b":2}\n')
    second = gzip_member(b'{"c":3}\n')
    path = append(tmp_path / "events-2026-01-01.jsonl.gz", first, second)
    chunk = read_gzip_chunk(path, None)
    assert [(line.offset, line.index, line.data) for line in chunk.lines] == [
        (0, 0, b'{"a":1}'),
        (0, 1, b'{"b":2}'),
        (len(first), 0, b'{"c":3}'),
    ]
    assert chunk.next_offset == len(first) + len(second)
    assert gzip.decompress(path.read_bytes()).count(b"\n") == 3


def test_it_leaves_a_torn_trailing_member_for_later(tmp_path):
    first = gzip_member(b'{"a":1}\n')
    second = gzip_member(b'{"b":2}\n' * 50)
    path = append(tmp_path / "events-2026-01-01.jsonl.gz", first, second[: len(second) // 2])
    chunk = read_gzip_chunk(path, None)
    assert [line.data for line in chunk.lines] == [b'{"a":1}'] and chunk.next_offset == len(first)
    assert chunk.damage == []
    append(path, second[len(second) // 2 :])
    rest = read_gzip_chunk(path, checkpoint_after(chunk))
    assert len(rest.lines) == 50 and not rest.new_generation


def test_it_skips_a_corrupt_middle_member_and_resumes_at_the_next(tmp_path):
    first = gzip_member(b'{"a":1}\n')
    broken = gzip_member(b'{"b":2}\n' * 200)
    third = gzip_member(b'{"c":3}\n')
    path = append(tmp_path / "events-2026-01-01.jsonl.gz", first, broken[: len(broken) - 20], third)
    chunk = read_gzip_chunk(path, None)
    data = [line.data for line in chunk.lines]
    assert data[0] == b'{"a":1}' and data[-1] == b'{"c":3}'
    assert len(chunk.damage) == 1
    assert chunk.damage[0].offset == len(first)
    assert chunk.next_offset == path.stat().st_size


def test_it_inflates_a_200_mb_member_in_bounded_memory(tmp_path):
    path = tmp_path / "events-2026-01-01.jsonl.gz"
    deflate = zlib.compressobj(1, zlib.DEFLATED, 31)  # one gzip member, written without holding it
    line_count = 3200
    rng = random.Random(31)
    with open(path, "wb") as fh:
        # 4 KiB of hex repeated: ~21:1, as well as real archives compress (a run of one letter is
        # ~218:1, over the decompression-bomb cap).
        fh.writelines(
            deflate.compress(b'{"i":%06d,"pad":"' % i + rng.randbytes(2048).hex().encode() * 16 + b'"}\n')
            for i in range(line_count)
        )
        fh.write(deflate.flush())
    tracemalloc.start()
    try:
        with gzip_tail.GzipTail(path) as tail:
            count = batches = 0
            checkpoint = None
            while True:
                chunk = tail.chunk(checkpoint)
                count += len(chunk.lines)
                batches += 1
                assert [line.index for line in chunk.lines] == list(range(count - len(chunk.lines), count))
                checkpoint = chunk.checkpoint()
                del chunk
                if checkpoint.position == (path.stat().st_size, 0, 0):
                    break
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == line_count and batches > 20  # 200 MiB in batches of at most 8 MiB
    assert peak < 24 << 20  # one batch, one read block, one inflate step, one line being assembled


def test_it_keeps_inflating_a_member_across_batches_instead_of_starting_it_again(tmp_path, monkeypatch):
    path = append(tmp_path / "events-2026-01-01.jsonl.gz", gzip_member(*numbered(2500)))
    inflaters = []
    original = zlib.decompressobj

    def counted(*args, **kwargs):
        inflaters.append(args or kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(gzip_tail.zlib, "decompressobj", counted)
    with gzip_tail.GzipTail(path) as tail:
        chunks, _ = read_all(tail.chunk)
    assert [len(chunk.lines) for chunk in chunks] == [1000, 1000, 500]
    assert len(inflaters) == 2  # one pass to learn where the member ends, one reading it: not one per batch


def test_it_resumes_inside_a_member_from_a_fresh_open(tmp_path):
    first = gzip_member(*numbered(7))
    path = append(tmp_path / "events-2026-01-01.jsonl.gz", first, gzip_member(*numbered(2, start=7)))
    whole = read_gzip_chunk(path, None)
    # A fresh open for every batch, as after a restart: the member is inflated again and skipped into.
    chunks, checkpoint = read_all(functools.partial(read_gzip_chunk, path), max_lines=3)
    assert keys(chunks) == keys([whole])
    assert [(c.next_offset, c.member_bytes, c.member_lines) for c in chunks] == [
        (0, 24, 3),
        (0, 48, 6),
        (len(first), 16, 2),
        (path.stat().st_size, 0, 0),
    ]
    assert checkpoint.position == (path.stat().st_size, 0, 0)


def test_it_reads_a_member_as_a_new_generation_when_it_no_longer_holds_the_committed_lines(tmp_path):
    path = append(tmp_path / "events-2026-01-01.jsonl.gz", gzip_member(*numbered(5)))
    stopped = read_gzip_chunk(path, None, max_lines=3)
    assert stopped.member_lines == 3
    path.write_bytes(gzip_member(b'{"x":1}\n' * 2))  # rewritten in place: the same inode, other lines
    again = read_gzip_chunk(path, stopped.checkpoint())
    assert again.new_generation
    assert [(line.index, line.data) for line in again.lines] == [(0, b'{"x":1}'), (1, b'{"x":1}')]


def test_it_recovers_a_damaged_member_read_in_several_batches(tmp_path):
    first = gzip_member(*numbered(1))
    broken = gzip_member(*numbered(400, start=1))
    third = gzip_member(b'{"c":3}\n')
    path = append(tmp_path / "events-2026-01-01.jsonl.gz", first, broken[: len(broken) - 20], third)
    whole = read_gzip_chunk(path, None)
    chunks, checkpoint = read_all(functools.partial(read_gzip_chunk, path), max_lines=50)
    assert keys(chunks) == keys([whole])
    assert keys(chunks)[-1] == (len(first) + len(broken) - 20, 0, b'{"c":3}')
    damage = [d for chunk in chunks for d in chunk.damage]
    assert damage == whole.damage and len(damage) == 1
    assert (damage[0].offset, damage[0].length) == (len(first), len(broken) - 20)
    assert checkpoint.position == (path.stat().st_size, 0, 0)


def test_it_picks_up_a_member_appended_after_the_end_was_reached(tmp_path):
    path = append(tmp_path / "events-2026-01-01.jsonl.gz", gzip_member(*numbered(3)))
    with gzip_tail.GzipTail(path) as tail:
        _, checkpoint = read_all(tail.chunk)
        header = gzip_member(*numbered(2, start=3))
        append(path, header[:2])  # the first bytes of a header: being written, not damage
        waiting = tail.chunk(checkpoint)
        assert waiting.lines == [] and waiting.damage == [] and waiting.next_offset == checkpoint.offset
        append(path, header[2:])
        later = tail.chunk(waiting.checkpoint())
    assert [(line.offset, line.index) for line in later.lines] == [
        (checkpoint.offset, 0),
        (checkpoint.offset, 1),
    ]
    assert later.next_offset == path.stat().st_size and not later.new_generation


def test_it_hashes_an_archived_line_over_the_cap_without_keeping_it(tmp_path):
    long_line = b'{"big":"' + b"x" * 5000 + b'"}'
    path = append(tmp_path / "events-2026-01-01.jsonl.gz", gzip_member(long_line + b"\n", b'{"after":1}\n'))
    chunk = read_gzip_chunk(path, None, max_line=1000)
    big, after = chunk.lines
    assert big.too_long and big.length == len(long_line) and big.too_long_sha256 == sha256(long_line)
    assert len(big.data) == tailer.HEAD_KEEP
    assert (after.index, after.data) == (1, b'{"after":1}')


def decodable(member: bytes) -> bytes:
    """Everything zlib decodes of a damaged member: the output of its longest prefix that decodes without an error."""

    def fails(length: int) -> bool:
        try:
            zlib.decompressobj(wbits=31).decompress(member[:length])
        except zlib.error:
            return True
        return False

    good, bad = 0, len(member)  # a longer prefix holds the bits zlib rejects in a shorter one
    assert fails(bad)
    while bad - good > 1:
        middle = (good + bad) // 2
        good, bad = (good, middle) if fails(middle) else (middle, bad)
    return zlib.decompressobj(wbits=31).decompress(member[:good])


def corrupted(member: bytes, at: int, garbage: bytes) -> bytes:
    return member[:at] + garbage + member[at + len(garbage) :]


def test_it_keeps_every_line_zlib_decoded_of_a_member_before_rejecting_it(tmp_path):
    member = gzip_member(*numbered(200_000))  # 2.5 MB inflated: many zlib calls before the damage
    # Near its end: the zlib call that fails (at the checksum, after garbage) also decoded real lines.
    broken = corrupted(member, len(member) - 2000, b"\xff" * 8)
    path = append(tmp_path / "events-2026-01-01.jsonl.gz", broken, gzip_member(b'{"after":1}\n'))
    text = decodable(broken)
    complete, rest = text[: text.rfind(b"\n")], text[text.rfind(b"\n") + 1 :]
    chunk = read_gzip_chunk(path, None, max_lines=1 << 20, limit=1 << 30)
    assert [line.data for line in chunk.lines[:-1]] == complete.split(b"\n")
    assert len(chunk.lines) > 199_000
    assert (chunk.lines[-1].offset, chunk.lines[-1].index, chunk.lines[-1].data) == (
        len(broken),
        0,
        b'{"after":1}',
    )
    [damage] = chunk.damage
    assert (damage.offset, damage.length, damage.tail) == (0, len(broken), rest)
    assert "incorrect data check" in damage.detail


def test_it_keeps_the_lines_before_the_byte_zlib_rejects_and_reports_the_torn_one(tmp_path):
    lines = numbered(100_000)  # 1.2 MB inflated before the damage: more than one inflate step
    broken = rejected_member(b"".join(lines) + b'{"torn":', b"".join(numbered(50, start=100_000)))
    path = append(tmp_path / "events-2026-01-01.jsonl.gz", broken, gzip_member(b'{"after":1}\n'))
    chunk = read_gzip_chunk(path, None, max_lines=1 << 20, limit=1 << 30)
    assert [line.data + b"\n" for line in chunk.lines[:-1]] == lines
    assert [line.index for line in chunk.lines[:-1]] == list(range(len(lines)))
    assert (chunk.lines[-1].offset, chunk.lines[-1].data) == (len(broken), b'{"after":1}')
    [damage] = chunk.damage
    assert (damage.offset, damage.length, damage.tail) == (0, len(broken), b'{"torn":')
    assert "invalid block type" in damage.detail
    assert chunk.next_offset == path.stat().st_size


def test_it_stops_inflating_a_member_at_the_floor_when_it_inflates_more_than_200_times_its_size(tmp_path):
    bomb = gzip_member(b"\n" * 2_000_000)  # 1,973 bytes
    path = append(tmp_path / "events-2026-01-01.jsonl.gz", bomb, gzip_member(b'{"after":1}\n'))
    with gzip_tail.GzipTail(path) as tail:
        chunks, checkpoint = read_all(tail.chunk)
    lines = [line for chunk in chunks for line in chunk.lines]
    assert len(lines) == gzip_tail.BOMB_FLOOR + 1 and {line.data for line in lines[:-1]} == {b""}
    assert (lines[-1].offset, lines[-1].index, lines[-1].data) == (len(bomb), 0, b'{"after":1}')
    [damage] = [d for chunk in chunks for d in chunk.damage]
    assert (damage.offset, damage.length, damage.tail) == (0, len(bomb), b"")
    assert damage.detail == (
        "inflates more than 200× its size: a decompression bomb? the rest of this member was not read"
    )
    assert checkpoint.position == (path.stat().st_size, 0, 0)


def test_it_cuts_a_member_past_the_floor_where_it_has_inflated_200_times_what_it_consumed(tmp_path):
    rng = random.Random(8)
    deflate = zlib.compressobj(6, zlib.DEFLATED, 31)
    real = b"".join(b'{"pad":"%s"}\n' % rng.randbytes(100).hex().encode() for _ in range(2000))  # ~2:1
    member = deflate.compress(real) + b"".join(deflate.compress(b"\n" * (1 << 20)) for _ in range(100))
    path = append(tmp_path / "events-2026-01-01.jsonl.gz", member + deflate.flush())
    with open(path, "rb") as fh:
        inflation = gzip_tail.Inflation(fh, 0, path.stat().st_size)
        inflated = sum(len(piece) for piece in inflation.pieces())
    assert inflation.capped and not inflation.ended
    assert inflated == inflation.produced == gzip_tail.BOMB_RATIO * inflation.consumed
    assert len(real) < inflated < 100 << 20


def test_it_does_not_cap_a_member_that_compresses_like_a_real_archive(tmp_path):
    lines = numbered(50_000)  # 590 KB inflating 5:1, nine times the floor
    path = append(tmp_path / "events-2026-01-01.jsonl.gz", gzip_member(*lines))
    chunk = read_gzip_chunk(path, None, max_lines=1 << 20, limit=1 << 30)
    assert len(chunk.lines) == len(lines) and chunk.damage == []


def hostile(kind: str) -> bytes:
    if kind == "rejected":
        return rejected_member(b"".join(numbered(3000)) + b'{"torn":', b"".join(numbered(10, start=3000)))
    return gzip_member(b"\n" * 2_000_000)


@pytest.mark.parametrize("kind", ["rejected", "bomb"])
def test_it_reads_a_damaged_member_the_same_in_batches_and_after_restarts(tmp_path, kind):
    first = gzip_member(*numbered(5))
    path = append(
        tmp_path / "events-2026-01-01.jsonl.gz", first, hostile(kind), gzip_member(b'{"after":1}\n')
    )
    whole = read_gzip_chunk(path, None, max_lines=1 << 20, limit=1 << 30)
    with gzip_tail.GzipTail(path) as tail:
        kept_open, _ = read_all(tail.chunk, max_lines=333)
    # A fresh open for every batch, as after a restart: the member is inflated again and skipped into.
    reopened, checkpoint = read_all(functools.partial(read_gzip_chunk, path), max_lines=7000)
    for chunks in (kept_open, reopened):
        assert keys(chunks) == keys([whole])
        assert [d for chunk in chunks for d in chunk.damage] == whole.damage and len(whole.damage) == 1
    assert checkpoint.position == (path.stat().st_size, 0, 0)


def test_it_strips_cr_and_nul_prefixes_as_the_tailer_does(tmp_path):
    text = b'{"a":1}\r\n\x00\x00{"b":2}\n\x00\r\n\r\n{"c":3}\r'
    path = append(tmp_path / "events-2026-01-01.jsonl.gz", gzip_member(text))
    plain = tailer.read_chunk(append(tmp_path / "events.jsonl", text + b"\n"), None).lines
    read = read_gzip_chunk(path, None).lines
    assert [(line.data, line.length, line.nul_prefix) for line in read] == [
        (line.data, line.length, line.nul_prefix) for line in plain
    ]
    assert [line.nul_prefix for line in read] == [0, 2, 1, 0, 0] and read[-1].data == b'{"c":3}'
