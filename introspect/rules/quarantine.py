"""What each quarantine reason (importer/parser.py, importer/loader.py) says, in a reader's words.

The reason is stored as a short key; the session page's mark where a line could not be read, and
anything else that names why, says it with these.
"""

from __future__ import annotations

REASONS = {
    "invalid_utf8": "invalid UTF-8",
    "invalid_json": "not valid JSON",
    "not_object": "JSON, but not an object",
    "too_deep": "nested deeper than the parser allows",
    "too_long": "too long to import",
    "too_long_to_recover": "not valid JSON, and too long to search for a record spliced into it",
    "splice_prefix": "a torn record, before a record that was recovered from the same line",
    "gzip_corrupt": "corrupt gzip data",
}


def reason_label(reason: str) -> str:
    """The reader's words for a quarantine reason; an unknown one as its key, spaced."""
    return REASONS.get(reason, reason.replace("_", " "))
