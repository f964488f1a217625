"""How a stored transcript line is packed: zstd-compressed when that pays, the bytes as they are otherwise.

A row says only *whether* its line is compressed (`raw_compressed`); the codec is told by the data's
own magic number, so rows written before zstd (zlib, level 1) read back unchanged. zstd level 1 was
chosen on the bench corpus's stored lines: 3.4× faster than zlib level 1 on multi-kilobyte tool
results and 0.20 of their size against zlib's 0.31; on lines of 0.5–4 KiB 9 µs a line against
zlib's 40–80 µs (zlib sets up a 256 KiB deflate state per call), which is what makes compressing
short lines worth it at all.

With a dictionary trained on the database's own lines (introspect/importer/line_dictionary.py) a
line packs to 0.17 of its size instead of 0.28 (the large tier's lines, level 3; 0.38 instead of
0.47 on the real transcripts in shared/fixtures), short lines included: most of a short line is the
keys and ids every line repeats. Such a frame names its dictionary by the zstd dictionary id in its
header, so rows packed without one, or with an older dictionary, read back as they were written.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import zstandard

# Below this a line is stored as it is: compression saves little on it (0.7–0.9 of its size).
PACK_ABOVE = 512
LEVEL = 1
# With a dictionary even a line of a hundred bytes halves, and level 3 costs ~10 µs a line more
# than level 1 for 0.17 of the size instead of 0.19.
DICTIONARY_PACK_ABOVE = 64
DICTIONARY_LEVEL = 3
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


class CorruptLine(ValueError):
    """A compressed row whose bytes no codec can read back."""


@dataclass(frozen=True)
class Dictionary:
    """A zstd dictionary as stored: its id (the one its frames carry) and its bytes."""

    dict_id: int
    data: bytes


_local = threading.local()  # zstd (de)compressors hold state and are not safe to share between threads
_loader: Callable[[int], bytes | None] = lambda dict_id: None  # noqa: E731
_dictionaries: dict[int, zstandard.ZstdCompressionDict] = {}


def set_loader(loader: Callable[[int], bytes | None]) -> None:
    """Where `unpack` finds a dictionary by its id (the database's, set by introspect at startup)."""
    global _loader
    _loader = loader


def _compressor(dictionary: Dictionary | None = None) -> zstandard.ZstdCompressor:
    compressors = getattr(_local, "compressors", None)
    if compressors is None:
        compressors = _local.compressors = {}
    key = dictionary.dict_id if dictionary else 0
    compressor = compressors.get(key)
    if compressor is None:
        if dictionary is None:
            compressor = zstandard.ZstdCompressor(level=LEVEL)
        else:
            compressor = zstandard.ZstdCompressor(level=DICTIONARY_LEVEL, dict_data=_dictionary(dictionary))
        compressors[key] = compressor
    return compressor


def _dictionary(dictionary: Dictionary) -> zstandard.ZstdCompressionDict:
    found = _dictionaries.get(dictionary.dict_id)
    if found is None:
        found = _dictionaries[dictionary.dict_id] = zstandard.ZstdCompressionDict(dictionary.data)
    return found


def _decompressor(dict_id: int) -> zstandard.ZstdDecompressor:
    decompressors = getattr(_local, "decompressors", None)
    if decompressors is None:
        decompressors = _local.decompressors = {}
    decompressor = decompressors.get(dict_id)
    if decompressor is None:
        data = _loader(dict_id) if dict_id not in _dictionaries else _dictionaries[dict_id].as_bytes()
        if data is None:
            raise CorruptLine(f"zstd dictionary {dict_id} is not in the database")
        decompressor = decompressors[dict_id] = zstandard.ZstdDecompressor(
            dict_data=_dictionary(Dictionary(dict_id, data))
        )
    return decompressor


def train(samples: list[bytes], size: int) -> Dictionary:
    """A dictionary of about `size` bytes for lines like `samples`."""
    trained = zstandard.train_dictionary(size, samples, level=DICTIONARY_LEVEL)
    return Dictionary(trained.dict_id(), trained.as_bytes())


def pack(data: bytes, dictionary: Dictionary | None = None) -> tuple[bytes, bool]:
    """The bytes to store for a line and whether they are compressed (only when that makes them smaller)."""
    if len(data) <= (PACK_ABOVE if dictionary is None else DICTIONARY_PACK_ABOVE):
        return data, False
    packed = _compressor(dictionary).compress(data)
    return (packed, True) if len(packed) < len(data) else (data, False)


def unpack(stored: bytes | memoryview, compressed: bool) -> bytes:
    """The line a row holds. Raises CorruptLine when compressed bytes do not decompress, or name a
    dictionary the database does not hold."""
    data = bytes(stored)
    if not compressed:
        return data
    try:
        if data.startswith(ZSTD_MAGIC):
            dict_id = zstandard.get_frame_parameters(data).dict_id
            if not dict_id:
                return zstandard.decompress(data)
            return _decompressor(dict_id).decompress(data)
        return zlib.decompress(data)
    except (zstandard.ZstdError, zlib.error) as exc:
        raise CorruptLine(str(exc)) from exc


# An entry's text (what a page shows, what search finds) is packed above this on SQLite: stored as a
# zstd BLOB in its TEXT column (lib/packed_text.py). Plain zstd, never a trained dictionary:
# one text always packs to the same bytes, so SQL still groups equal texts by the stored value.
# Level 3 above 128 bytes: the large tier's texts 68.7 -> 67.0 MB against level 1 above 256.
TEXT_PACK_ABOVE = 128
TEXT_LEVEL = 3


def pack_text(text: str) -> str | bytes:
    """The value to store for a text: the text itself when short or when packing does not pay."""
    if len(text) <= TEXT_PACK_ABOVE // 4:  # no UTF-8 character is longer than 4 bytes
        return text
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= TEXT_PACK_ABOVE:
        return text
    compressor = getattr(_local, "text_compressor", None)
    if compressor is None:
        compressor = _local.text_compressor = zstandard.ZstdCompressor(level=TEXT_LEVEL)
    packed = compressor.compress(data)
    return packed if len(packed) < len(data) else text


def unpack_text(stored: str | bytes | memoryview | None) -> str | None:
    """The text a stored value holds (a str is a text stored as it is)."""
    if stored is None or isinstance(stored, str):
        return stored
    try:
        return zstandard.decompress(bytes(stored)).decode("utf-8", "surrogatepass")
    except zstandard.ZstdError as exc:
        raise CorruptLine(str(exc)) from exc
