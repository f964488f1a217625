"""Long texts on a page: prompts, replies and agent Markdown drawn whole up to a limit, longer ones
behind "show all", recorded spans marked, open in the entry a search hit opened."""

from __future__ import annotations

from django import template
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from introspect.queries import secret_masks
from introspect.rules import highlight as highlighting  # the `highlight` tag below marks recorded spans
from lib import render

register = template.Library()


@register.simple_tag
def highlight(text: str, spans: list[str] | None, limit: int | None = 4000):
    """The text, escaped, with each recorded span marked where it occurs (case-insensitive);
    its first `limit` characters (None: all of it)."""
    text = (text or "")[:limit]
    spans = [span for span in (spans or []) if span]
    if not spans:
        return escape(text)
    lowered = text.lower()
    marks: list[tuple[int, int]] = []
    for span in spans:
        at = lowered.find(span.lower())
        if at >= 0 and not any(a < at + len(span) and at < b for a, b in marks):
            marks.append((at, at + len(span)))
    out, pos = [], 0
    for start, end in sorted(marks):
        out.append(escape(text[pos:start]))
        out.append(
            format_html('<mark title="matched span recorded when the way fired">{}</mark>', text[start:end])
        )
        pos = end
    out.append(escape(text[pos:]))
    return mark_safe("".join(str(part) for part in out))


@register.filter
def masked(text: str) -> str:
    """Text a page shows outside a transcript's cards (memory, ledger entries, records) with its
    secrets masked (queries/secret_masks.py; values marked no secret left as they are)."""
    return secret_masks.Allowed().text(text or "")


@register.filter
def markdown(text: str):
    """Agent text as sanitised Markdown (lib/render.py)."""
    return render.render_markdown(text or "")


# A prompt, reply, thinking or summary up to LONG_TEXT characters is drawn whole in place; a longer
# one as its first PREVIEW_CHARS or so, with the whole text behind "show all (N characters)" (a
# <details>: no JavaScript needed). Never cut silently: a dashboard page draws up to PAGE_CHARS of
# one text (a transcript line may hold 64 MiB) and says how many more the exports hold; the HTML
# export (its context's `whole_texts`) draws every character.
LONG_TEXT = 20_000
PREVIEW_CHARS = 1_500
PAGE_CHARS = 2_000_000  # as a code box draws at most (rules/highlight.MAX_CODE_CHARS)
# Past this, Markdown is shown as the plain text it is: rendering it would take seconds a page.
MARKDOWN_CHARS = 200_000


def _whole(
    text: str, *, markdown: bool, spans: list[str] | None = None, cap: int | None = PAGE_CHARS
) -> SafeString:
    """`text` as Markdown or as escaped text with `spans` marked, its first `cap` characters (None:
    all) and a note of the rest."""
    part = text if cap is None else text[:cap]
    if not markdown:
        drawn = highlight(part, spans, limit=None)
    elif len(part) > MARKDOWN_CHARS:
        drawn = format_html('<pre class="long-plain">{}</pre>', part)
    else:
        drawn = render.render_markdown(part)
    if len(part) == len(text):
        return drawn
    return format_html(
        '{}<p class="muted code-note">… {} more characters not drawn here: the exports (HTML, Markdown, '
        "JSON) hold the whole text</p>",
        drawn,
        f"{len(text) - len(part):,}",
    )


def long_text(
    text: str | None,
    spans: list[str] | None = None,
    *,
    markdown: bool = False,
    is_open: bool = False,
    cap: int | None = PAGE_CHARS,
):
    """`text` whole (up to `cap`), as Markdown (`markdown`) or as escaped text with `spans` marked
    (a prompt), collapsed behind "show all (N characters)" when it is longer than LONG_TEXT."""
    text = text or ""
    if len(text) <= LONG_TEXT:
        return _whole(text, markdown=markdown, spans=spans, cap=None)
    head, _ = render.clamp(text, PREVIEW_CHARS)
    return format_html(
        '<div class="text-preview">{}</div><details class="show-all long-text"{}><summary>'
        '<span class="show-all-closed">show all ({} characters)</span><span class="show-all-open">'
        'all {} characters{}</span></summary><div class="text-whole">{}</div></details>',
        _whole(head.rstrip() + " …", markdown=markdown, spans=spans, cap=None),
        open_attr(is_open),
        f"{len(text):,}",
        f"{len(text):,}",
        " (as plain text: too long to render as Markdown)" if markdown and len(text) > MARKDOWN_CHARS else "",
        _whole(text, markdown=markdown, spans=spans, cap=cap),
    )


def page_cap(context) -> int | None:
    """How much of one text the render draws: all of it in the HTML export, PAGE_CHARS on a page."""
    return None if context.get("whole_texts") else PAGE_CHARS


@register.simple_tag(takes_context=True, name="long_text")
def long_text_tag(context, text: str | None, spans: list[str] | None = None, markdown: bool = False):
    """`{% long_text entry.text markdown=True %}`, `{% long_text entry.text entry_card.prompt_spans %}`:
    `long_text`, open in the entry a search hit opened."""
    return long_text(text, spans, markdown=markdown, is_open=opened(context), cap=page_cap(context))


def markdown_block(text: str | None, *, is_open: bool = False, cap: int | None = PAGE_CHARS):
    """Agent Markdown (a Task result) clamped like every long card: its first PREVIEW_LINES source
    lines rendered, the whole (up to `cap`) behind "show all N lines" (works without JS), open from
    the start when `is_open`. Few lines but many characters: collapsed as `long_text` is."""
    text = text or ""
    lines = text.splitlines()
    if len(lines) <= highlighting.PREVIEW_LINES + 2:
        return format_html(
            '<div class="markdown">{}</div>', long_text(text, markdown=True, is_open=is_open, cap=cap)
        )
    head, _ = render.clamp("\n".join(lines[: highlighting.PREVIEW_LINES]), LONG_TEXT)
    return format_html(
        '<div class="markdown markdown--preview">{}</div>'
        '<details class="show-all"{}><summary>show all {} lines</summary><div class="markdown">{}</div></details>',
        render.render_markdown(head),
        open_attr(is_open),
        len(lines),
        _whole(text, markdown=True, cap=cap),
    )


@register.simple_tag(takes_context=True, name="markdown_block")
def markdown_block_tag(context, text: str | None):
    """`{% markdown_block text %}`: `markdown_block`, open in the entry a search hit opened."""
    return markdown_block(text, is_open=opened(context), cap=page_cap(context))


def opened(context) -> bool:
    """True inside the entry a search hit opened: the page's `open_uuid` (its `hit=`) is the uuid of
    the entry being drawn, or of the tool result drawn inside its call's card. Its clamped boxes are
    drawn whole, so the match is on the page with or without JavaScript."""
    target = context.get("open_uuid")
    if not target:
        return False
    return any(getattr(context.get(name), "uuid", None) == target for name in ("result_entry", "entry"))


def open_attr(is_open: bool) -> SafeString:
    return mark_safe(" open" if is_open else "")
