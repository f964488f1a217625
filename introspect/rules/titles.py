"""Session titles shortened for a list: cut at a word boundary, never mid-word, with an ellipsis."""

from __future__ import annotations

ELLIPSIS = "…"
# A word boundary further back than this share of the limit wastes the line: cut the word instead.
MIN_KEPT = 0.6
# Left dangling before an ellipsis these read as a sentence that ended, or as a stray mark.
TRAILING = " \t,;:.-–—/([{"


def cut_title(title: str, limit: int = 80) -> str:
    """`title` on one line in at most `limit` characters, the ellipsis included.

    Runs of whitespace (a multi-line first prompt) become one space. A title that fits is returned
    whole; a longer one is cut at the last space that keeps at least MIN_KEPT of the limit, else
    mid-word (one very long token, such as a path), and ends in "…".
    """
    text = " ".join(title.split())
    if len(text) <= limit:
        return text
    if limit <= 1:
        return ELLIPSIS[:limit]
    room = limit - len(ELLIPSIS)
    head = text[: room + 1]  # one more: the character after the cut says whether it falls between words
    space = head.rfind(" ")
    cut = head[:space] if space >= room * MIN_KEPT else text[:room]
    return (cut.rstrip(TRAILING) or cut) + ELLIPSIS
