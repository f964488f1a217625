"""The one content hash: sha256 as hex, for line identity, file change detection and cache keys."""

from __future__ import annotations

import hashlib


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    """A text's hash, any code point allowed (paths may hold undecodable bytes as surrogates)."""
    return sha256(text.encode("utf-8", "surrogateescape"))


def digest64(sha: str) -> int:
    """A sha256's first 8 bytes as a signed 64-bit integer: a compact key (an index on it is a
    quarter of the hex's), to be checked against the full hash (two lines may share it: 2**-64)."""
    return int.from_bytes(bytes.fromhex(sha[:16]), "big", signed=True)
