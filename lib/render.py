"""Rendering agent-produced text: markdown to sanitised HTML, and clamping long text.

The only place agent text becomes HTML (STYLE.md §2, importer-reliability.md §13.2 item 5):
markdown-it-py `js-default` with raw HTML off, then nh3 with an explicit allow-list, then
`mark_safe`. Templates may print `{{ html }}` unescaped only when it came from here.
"""

from __future__ import annotations

import hashlib

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

from lib.lru import LruCache

# `js-default` keeps raw HTML off (the `commonmark` preset passes `<script>` and `<img onerror>`
# straight through) and its validateLink drops javascript:/vbscript:/file: links.
_MD = MarkdownIt("js-default", {"linkify": False, "typographer": False})
# Images would load a remote resource when the page is viewed: `![alt](url)` renders as "!" and
# a plain link instead. nh3 below drops any <img> that still gets through.
_MD.disable("image")

ALLOWED_TAGS = {
    "p",
    "br",
    "hr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "pre",
    "code",
    "em",
    "strong",
    "s",
    "del",
    "a",
    "ul",
    "ol",
    "li",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
}
# No class/style/id/data-*/hx-*/on*: table alignment's inline style would be blocked by the CSP
# anyway, and htmx must never find an attribute it acts on inside agent content.
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}

_CLEANER = nh3.Cleaner(
    tags=ALLOWED_TAGS,
    attributes=ALLOWED_ATTRIBUTES,
    url_schemes={"http", "https", "mailto"},
    # A relative link in agent text points into this dashboard, never where the agent meant.
    url_relative="deny",
    link_rel="noopener noreferrer nofollow",
    strip_comments=True,
)

# Markdown costs 0.3–10 ms per message and nh3 ~0.7 ms (importer-reliability.md §13.2): keep the
# most recent results, keyed by content digest so the cache does not hold the texts themselves.
CACHE_SIZE = 4096
# A longer text is rendered each time it is shown, never kept: the cache's memory stays bounded
# (4,096 entries of at most this size) however long the texts a page shows whole.
CACHED_CHARS = 20_000
_cache = LruCache(CACHE_SIZE)


def sanitize_html(html: str) -> str:
    """Clean an HTML fragment with the allow-list above (no `mark_safe`)."""
    return _CLEANER.clean(html)


def render_markdown(text: str) -> SafeString:
    """Render agent markdown to inert HTML; identical text (of up to CACHED_CHARS) returns the
    identical cached object."""
    # Lone surrogates cannot cross into nh3 (Rust strings): replace them before hashing.
    data = text.encode("utf-8", "replace")
    if len(text) > CACHED_CHARS:
        return mark_safe(sanitize_html(_MD.render(data.decode("utf-8"))))
    key = hashlib.sha256(data).digest()
    html = _cache.get(key, None)
    if html is None:
        html = _cache.put(key, mark_safe(sanitize_html(_MD.render(data.decode("utf-8")))))
    return html


def clear_cache() -> None:
    """Forget every rendered text (bench/render_pages.py times first renders with it)."""
    _cache.clear()


def clamp(text: str, limit: int) -> tuple[str, bool]:
    """Cut `text` to at most `limit` characters, at a line break when one is near; say whether it was cut."""
    if len(text) <= limit:
        return text, False
    if limit <= 0:
        return "", True
    cut = text.rfind("\n", 0, limit + 1)
    # A break in the last half of the window is "near"; otherwise (minified JSON, one long line)
    # a hard cut keeps more of the text than a far-back break would.
    if cut < limit // 2:
        cut = limit
    return text[:cut], True
