"""A sha256's compact key is its first 8 bytes, read as a signed 64-bit integer."""

from __future__ import annotations

from lib import hashing


def test_it_reads_the_first_16_hex_digits_as_a_signed_big_endian_integer():
    assert hashing.digest64("00000000000000ff" + "e" * 48) == 255
    assert hashing.digest64("ffffffffffffffff" + "0" * 48) == -1
    assert hashing.digest64("8000000000000000" + "0" * 48) == -(2**63)
    assert hashing.digest64(hashing.sha256(b"")) == int("e3b0c44298fc1c14", 16) - 2**64
