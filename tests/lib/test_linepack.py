"""A stored transcript line comes back byte for byte, however it was packed."""

import os
import zlib

import pytest

from lib import linepack


def test_a_short_line_is_stored_as_it_is():
    line = b'{"type":"user"}'
    assert linepack.pack(line) == (line, False)
    assert linepack.unpack(line, False) == line


def test_a_long_line_is_compressed_with_zstd_and_given_back_whole():
    line = b'{"type":"user","message":{"content":"' + b"the same words again " * 500 + b'"}}'
    packed, compressed = linepack.pack(line)
    assert compressed and packed.startswith(linepack.ZSTD_MAGIC)
    assert len(packed) < len(line) // 10
    assert linepack.unpack(packed, True) == line


def test_a_line_that_does_not_shrink_is_kept_uncompressed():
    noise = os.urandom(4096)
    assert linepack.pack(noise) == (noise, False)


def test_rows_compressed_with_zlib_before_zstd_read_back_unchanged():
    line = b"x" * 40_000
    assert linepack.unpack(zlib.compress(line, 1), True) == line
    assert linepack.unpack(memoryview(zlib.compress(line, 1)), True) == line


def test_compressed_bytes_that_no_codec_reads_are_a_corrupt_line():
    packed, _ = linepack.pack(b"y" * 10_000)
    for damaged in (packed[:-4], b"\x78\x01garbage", b"plainly not compressed"):
        with pytest.raises(linepack.CorruptLine):
            linepack.unpack(damaged, True)
