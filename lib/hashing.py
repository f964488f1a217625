"""The one content hash: sha256 as hex, for line identity, file change detection and cache keys."""

from __future__ import annotations

import hashlib


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    """A text's hash, any code point allowed (paths may hold undecodable bytes as surrogates)."""
    return sha256(text.encode("utf-8", "surrogateescape"))
