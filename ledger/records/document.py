"""A Markdown document with front matter, split into its parts (knowledge-and-records.md §2.4, §4.1). No Django.

The entry, knowledge and memory formats all start here; one that does not split cleanly comes back
with a quarantine reason, never guessed at. Reading the bytes is the importer's (ledger/importer/document.py).
"""

from __future__ import annotations

from lib import frontmatter

MAX_DOCUMENT_BYTES = 1 << 20


def split_document(raw: bytes) -> tuple[dict | None, str, tuple[str, str] | None]:
    """(front matter, body, quarantine) of a Markdown document."""
    if len(raw) > MAX_DOCUMENT_BYTES:
        return None, "", ("document_too_large", f"{len(raw)} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, "", ("invalid_utf8", str(exc))
    block, body = frontmatter.split(text)
    if block is None:
        return None, text, ("frontmatter_missing", "the first line is not ---")
    try:
        data = frontmatter.load(block)
    except ValueError as exc:
        reason = "yaml_too_large" if "larger than" in str(exc) else "yaml_invalid"
        return None, body, (reason, str(exc))
    if not isinstance(data, dict):
        return None, body, ("yaml_invalid", "front matter is not a mapping")
    return data, body, None
