"""The tailer reads complete lines only and notices when a file is no longer the same file."""

from __future__ import annotations

import dataclasses
import functools
import os
import pickle
import tracemalloc

from introspect.importer import tailer
from lib.hashing import sha256
from tests.conftest import append
from tests.introspect.importer.chunks import checkpoint_after, read_all


def test_it_leaves_a_torn_last_line_unconsumed(tmp_path):
    path = append(tmp_path / "e.jsonl", b'{"a":1}\n{"b":')
    chunk = tailer.read_chunk(path, None)
    assert [line.data for line in chunk.lines] == [b'{"a":1}']
    assert chunk.next_offset == 8
    append(path, b"2}\n")
    later = tailer.read_chunk(path, checkpoint_after(chunk))
    assert [(line.offset, line.data) for line in later.lines] == [(8, b'{"b":2}')]
    assert not later.new_generation


def test_it_reads_nothing_from_an_empty_or_unterminated_file(tmp_path):
    path = append(tmp_path / "e.jsonl", b"")
    assert tailer.read_chunk(path, None).lines == []
    append(path, b'{"x"')
    chunk = tailer.read_chunk(path, None)
    assert chunk.lines == [] and chunk.next_offset == 0


def test_it_starts_a_new_generation_after_truncation(tmp_path):
    path = append(tmp_path / "e.jsonl", b'{"a":1}\n{"b":2}\n')
    first = tailer.read_chunk(path, None)
    path.write_bytes(b'{"c":3}\n')
    again = tailer.read_chunk(path, checkpoint_after(first))
    assert again.new_generation
    assert [line.data for line in again.lines] == [b'{"c":3}']


def test_it_starts_a_new_generation_when_the_file_is_replaced(tmp_path):
    path = append(tmp_path / "e.jsonl", b'{"a":1}\n')
    first = tailer.read_chunk(path, None)
    replacement = append(tmp_path / "new.jsonl", b'{"a":1}\n{"z":9}\n{"y":8}\n')
    os.replace(replacement, path)
    again = tailer.read_chunk(path, checkpoint_after(first))
    assert again.new_generation
    assert [line.offset for line in again.lines] == [0, 8, 16]


def test_it_notices_a_rewrite_in_place_longer_than_the_old_offset(tmp_path):
    path = append(tmp_path / "e.jsonl", b'{"a":1}\n')
    first = tailer.read_chunk(path, None)
    with open(path, "r+b") as fh:  # same inode, new content, longer than what we read
        fh.write(b'{"q":7}\n{"r":8}\n')
    again = tailer.read_chunk(path, checkpoint_after(first))
    assert again.new_generation
    assert [line.data for line in again.lines] == [b'{"q":7}', b'{"r":8}']


def test_it_splits_on_newline_bytes_only_and_strips_cr_and_nul_prefixes(tmp_path):
    path = append(tmp_path / "e.jsonl", '{"t":"a\u2028b\x85c"}\r\n'.encode(), b'\x00\x00{"n":1}\n')
    chunk = tailer.read_chunk(path, None)
    assert [line.data for line in chunk.lines] == ['{"t":"a\u2028b\x85c"}'.encode(), b'{"n":1}']
    assert [line.nul_prefix for line in chunk.lines] == [0, 2]
    assert chunk.lines[1].offset == len('{"t":"a\u2028b\x85c"}\r\n'.encode())


def test_it_hashes_a_line_over_the_cap_without_keeping_it(tmp_path):
    long_line = b'{"big":"' + b"x" * 5000 + b'"}'
    path = append(tmp_path / "e.jsonl", long_line + b"\n", b'{"after":1}\n')
    chunk = tailer.read_chunk(path, None, max_line=1000, block=256)
    big, after = chunk.lines
    assert big.too_long and big.length == len(long_line)
    assert big.too_long_sha256 == sha256(long_line)
    assert len(big.data) == tailer.HEAD_KEEP
    assert after.data == b'{"after":1}'


def test_it_reads_lines_longer_than_a_block_whole(tmp_path):
    long_line = b'{"big":"' + b"y" * 3000 + b'"}'
    path = append(tmp_path / "e.jsonl", long_line + b"\n", b"{}\n")
    chunk = tailer.read_chunk(path, None, block=256)
    assert [line.data for line in chunk.lines] == [long_line, b"{}"]


def test_it_stops_after_max_lines_and_resumes(tmp_path):
    path = append(tmp_path / "e.jsonl", *(b'{"i":%d}\n' % i for i in range(5)))
    first = tailer.read_chunk(path, None, max_lines=2)
    assert len(first.lines) == 2 and not first.at_end
    rest = tailer.read_chunk(path, checkpoint_after(first), max_lines=10)
    assert [line.data for line in rest.lines] == [b'{"i":2}', b'{"i":3}', b'{"i":4}'] and rest.at_end


def test_it_reports_a_gone_file(tmp_path):
    assert tailer.read_chunk(tmp_path / "missing.jsonl", None) is None


def test_it_holds_a_long_line_once_while_reading_it(tmp_path):
    long_line = b'{"out":"' + b"z" * (20 << 20) + b'"}'
    path = append(tmp_path / "e.jsonl", long_line + b"\n", b"{}\n")
    tracemalloc.start()
    try:
        chunk = tailer.read_chunk(path, None)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert chunk.lines[0].data == long_line
    assert peak < len(long_line) + (4 << 20)  # not the blocks and their join at once (2x)


def test_it_gives_a_line_longer_than_a_block_a_batch_of_its_own(tmp_path):
    long_line = b'{"big":"' + b"y" * 3000 + b'"}'
    path = append(tmp_path / "e.jsonl", b"{}\n", long_line + b"\n", b'{"after":1}\n')
    chunks, _ = read_all(functools.partial(tailer.read_chunk, path), block=256)
    assert [[line.data for line in chunk.lines] for chunk in chunks] == [[b"{}"], [long_line, b'{"after":1}']]


@dataclasses.dataclass(frozen=True)
class FrozenLine:
    """tailer.Line as it was: a frozen dataclass (the worker's pickles must not change with it)."""

    offset: int
    data: bytes
    length: int
    index: int = 0
    nul_prefix: int = 0
    too_long_sha256: str = ""


def test_a_line_equals_hashes_and_pickles_as_the_frozen_dataclass_it_was():
    line = tailer.Line(5, b'{"a":1}', 8, 2, nul_prefix=1)
    frozen = FrozenLine(5, b'{"a":1}', 8, 2, nul_prefix=1)
    assert line.__reduce_ex__(5)[1:] == ((tailer.Line,), frozen.__reduce_ex__(5)[2], None, None)
    assert list(line.__reduce_ex__(5)[2]) == [field.name for field in dataclasses.fields(FrozenLine)]
    assert pickle.loads(pickle.dumps(line, protocol=pickle.HIGHEST_PROTOCOL)) == line
    assert line == tailer.Line(offset=5, data=b'{"a":1}', length=8, index=2, nul_prefix=1)
    assert line != tailer.Line(5, b'{"a":1}', 8, 2) and line != frozen
    assert len({line, tailer.Line(5, b'{"a":1}', 8, 2, 1), tailer.Line(5, b"", 8, 2, 1)}) == 2
    assert not line.too_long and tailer.Line(0, b"", 1, too_long_sha256="a" * 64).too_long
    assert repr(line) == repr(frozen).replace("FrozenLine", "Line")
