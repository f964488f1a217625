"""How a stored transcript line is packed: zstd-compressed when that pays, the bytes as they are otherwise.

A row says only *whether* its line is compressed (`raw_compressed`); the codec is told by the data's
own magic number, so rows written before zstd (zlib, level 1) read back unchanged. zstd level 1 was
chosen on the bench corpus's stored lines: 3.4× faster than zlib level 1 on multi-kilobyte tool
results and 0.20 of their size against zlib's 0.31; on lines of 0.5–4 KiB 9 µs a line against
zlib's 40–80 µs (zlib sets up a 256 KiB deflate state per call), which is what makes compressing
short lines worth it at all.
"""

from __future__ import annotations

import threading
import zlib

import zstandard

# Below this a line is stored as it is: compression saves little on it (0.7–0.9 of its size).
PACK_ABOVE = 512
LEVEL = 1
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


class CorruptLine(ValueError):
    """A compressed row whose bytes no codec can read back."""


_local = threading.local()  # a zstd compressor holds state and is not safe to share between threads


def _compressor() -> zstandard.ZstdCompressor:
    compressor = getattr(_local, "compressor", None)
    if compressor is None:
        compressor = _local.compressor = zstandard.ZstdCompressor(level=LEVEL)
    return compressor


def pack(data: bytes) -> tuple[bytes, bool]:
    """The bytes to store for a line and whether they are compressed (only when that makes them smaller)."""
    if len(data) <= PACK_ABOVE:
        return data, False
    packed = _compressor().compress(data)
    return (packed, True) if len(packed) < len(data) else (data, False)


def unpack(stored: bytes | memoryview, compressed: bool) -> bytes:
    """The line a row holds. Raises CorruptLine when compressed bytes do not decompress."""
    data = bytes(stored)
    if not compressed:
        return data
    try:
        if data.startswith(ZSTD_MAGIC):
            return zstandard.decompress(data)
        return zlib.decompress(data)
    except (zstandard.ZstdError, zlib.error) as exc:
        raise CorruptLine(str(exc)) from exc
