"""Code boxes and diffs: numbered, highlighted (rules/highlight.py), clamped behind "show all", within
one highlighting budget per render of a page; a box past it is served coloured by its own URL."""

from __future__ import annotations

from collections.abc import Callable

from django import template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from introspect.rules import highlight as highlighting
from introspect.templatetags.introspect_text import open_attr, opened

register = template.Library()


def _lines_html(lines: tuple[str, ...], first: int) -> str:
    # Each line is a block carrying its number for a CSS gutter (::before), so copying the code
    # copies no numbers; the trailing \n keeps the text readable without the stylesheet.
    numbers = range(first, first + len(lines))
    return "".join(
        [f'<span class="line" data-n="{n}">{line}\n</span>' for n, line in zip(numbers, lines, strict=True)]
    )


def code_block(
    text: str | None,
    language: str = "text",
    start: int | None = None,
    *,
    budget: highlighting.HighlightBudget | None = None,
    url: Callable[[], str] | None = None,
    is_open: bool = False,
):
    """A text as a numbered, highlighted code box: PREVIEW_LINES lines, the rest behind "show all N lines"
    (open from the start when `is_open`).

    The lines are HTML from rules/highlight.py (Pygments output or `html.escape`), so the text is
    escaped once there and marked safe only here. Works without JavaScript: a <details> holds the rest.
    With a `budget`, a box past it is drawn plain, says so, and names `url()`, where its coloured
    version is served (the page's script swaps it in when the box comes into view).
    """
    block = highlighting.code_block(text or "", language or "text", start=start, budget=budget)
    if not block.total_lines:
        return format_html('<p class="muted code-empty">{}</p>', "(no output)" if text is None else "(empty)")
    last = block.start + block.total_lines - 1
    # A one-line command needs no gutter; five-digit numbers need a wider one.
    wide = " code--single" if block.total_lines == 1 else " code--wide" if last >= 10_000 else ""
    parts = [
        format_html(
            '<div class="code{}" data-language="{}"{}><pre class="code-lines hl">{}</pre>',
            wide,
            block.language,
            _colour_url(url) if block.deferred else "",
            mark_safe(_lines_html(block.head, block.start)),
        )
    ]
    if block.clamped:
        parts.append(
            format_html(
                '<details class="show-all"{}><summary><span class="show-all-closed">show all {} lines</span>'
                '<span class="show-all-open">lines {}–{}</span></summary><pre class="code-lines hl">{}</pre>',
                open_attr(is_open),
                block.total_lines,
                block.start + len(block.head),
                block.start + len(block.head) + len(block.rest) - 1,
                mark_safe(_lines_html(block.rest, block.start + len(block.head))),
            )
        )
        if block.omitted:
            parts.append(
                format_html(
                    '<p class="muted code-note">… {} more lines not drawn here (the raw line keeps them)</p>',
                    block.omitted,
                )
            )
        parts.append(mark_safe("</details>"))
    drawn = len(block.head) + len(block.rest)
    if block.deferred:
        parts.append(_deferred_note(budget))
    elif block.language != "text" and 0 < block.highlighted < drawn:
        parts.append(
            format_html(
                '<p class="muted code-note">colours stop after line {}; the rest is plain text</p>',
                block.start + block.highlighted - 1,
            )
        )
    parts.append(mark_safe("</div>"))
    return mark_safe("".join(parts))


def _colour_url(url: Callable[[], str] | None) -> SafeString:
    return format_html(' data-colour-url="{}"', url()) if url is not None else mark_safe("")


def _deferred_note(budget: highlighting.HighlightBudget | None) -> SafeString:
    # No silent degradation: a reader without JavaScript learns why this box has no colours.
    size = budget.size if budget is not None else highlighting.HIGHLIGHT_PAGE_BUDGET
    return format_html(
        '<p class="muted code-note code-note--plain">plain text for now: a page colours {} of code at '
        "most, and that went to the boxes above; this one is coloured when it scrolls into view "
        "(needs JavaScript)</p>",
        f"{size // 1024} KiB" if size % 1024 == 0 else f"{size:,} characters",
    )


# One highlighting budget per render of a page or fragment, in the render context's first dict:
# it lives for the whole render, across partials and includes (see once_per.OncePerNode.render).
_BUDGET = "introspect_code.highlight_budget"
_URL_TAIL = "/0/code/slot/"


def page_budget(context) -> highlighting.HighlightBudget:
    """The highlighting budget of the render `context` belongs to."""
    root = context.render_context.dicts[0]
    budget = root.get(_BUDGET)
    if budget is None:
        budget = root[_BUDGET] = highlighting.HighlightBudget()
    return budget


def _lazy(context, entry, slot: str) -> tuple[highlighting.HighlightBudget | None, Callable[[], str] | None]:
    """The page's budget and where the entry's box is served coloured (asked only for a box that
    is deferred), or (None, None) for a box nothing names: such a box is always coloured in place."""
    session = context.get("session")
    pk = getattr(entry, "pk", None)
    if not slot or pk is None or session is None:
        return None, None
    root = context.render_context.dicts[0]

    def url() -> str:
        # reverse() costs ~30 µs and a page defers dozens of boxes: the session's part of the
        # URL is reversed once per render, the entry and slot appended as the route spells them
        # (and reversed each time should the route ever end otherwise).
        key = (_BUDGET, session.sid)
        if key not in root:
            sample = reverse("introspect:entry-code", args=[session.sid, 0, "slot"])
            root[key] = sample[: -len(_URL_TAIL)] if sample.endswith(_URL_TAIL) else None
        if root[key] is None:
            return reverse("introspect:entry-code", args=[session.sid, pk, slot])
        return f"{root[key]}/{pk}/code/{slot}/"

    return page_budget(context), url


@register.simple_tag(takes_context=True, name="code_block")
def code_block_tag(
    context, text: str | None, language: str = "text", start: int | None = None, entry=None, slot=""
):
    """`{% code_block text language start entry=entry slot="command" %}`: `code_block`, and when
    `entry` and `slot` name where the box is served again (views/sessions.entry_code), within the
    page's highlighting budget."""
    budget, url = _lazy(context, entry, slot)
    return code_block(text, language, start, budget=budget, url=url, is_open=opened(context))


def _diff_rows(rows: tuple[highlighting.DiffRow, ...], numbered: bool) -> str:
    # f-strings, not format_html_join: a diff has up to 2,000 rows and nothing here needs escaping
    # (kind and marker come from closed sets, the numbers are ints, `html` is HTML already).
    def number(value: int | None) -> str:
        return "" if value is None else str(value)

    if numbered:
        return "".join(
            [
                f'<tr class="diff--{r.kind}"><td class="diff-no">{number(r.old)}</td><td class="diff-no">'
                f'{number(r.new)}</td><td class="diff-marker">{r.marker}</td><td class="diff-code">'
                f'<pre class="hl">{r.html}</pre></td></tr>'
                for r in rows
            ]
        )
    return "".join(
        [
            f'<tr class="diff--{r.kind}"><td class="diff-marker">{r.marker}</td><td class="diff-code">'
            f'<pre class="hl">{r.html}</pre></td></tr>'
            for r in rows
        ]
    )


def diff_block(
    diff,
    language: str = "text",
    *,
    budget: highlighting.HighlightBudget | None = None,
    url: Callable[[], str] | None = None,
    is_open: bool = False,
):
    """A diff (DiffLine tuples) as a highlighted table clamped like `code_block` (and deferred like it)."""
    block = highlighting.diff_block(tuple(diff or ()), language or "text", budget=budget)
    if not block.head:
        return ""
    rows = (*block.head, *block.rest)
    numbered = any(r.old is not None or r.new is not None for r in rows)
    table = '<table class="diff{}"><tbody>{}</tbody></table>'
    numbered_class = " diff--numbered" if numbered else ""
    out = format_html(table, numbered_class, mark_safe(_diff_rows(block.head, numbered)))
    if block.clamped:
        out += format_html(
            '<details class="show-all"{}><summary><span class="show-all-closed">show all {} lines</span>'
            '<span class="show-all-open">the other {} rows</span></summary>' + table + "</details>",
            open_attr(is_open),
            block.total_lines,
            len(block.rest),
            numbered_class,
            mark_safe(_diff_rows(block.rest, numbered)),
        )
    if block.deferred:
        return format_html(
            '<div class="diff-box"{}>{}{}</div>', _colour_url(url), out, _deferred_note(budget)
        )
    return format_html('<div class="diff-box">{}</div>', out)


@register.simple_tag(takes_context=True, name="diff_block")
def diff_block_tag(context, diff, language: str = "text", entry=None, slot=""):
    """`{% diff_block diff language entry=entry slot="diff" %}`: `diff_block` within the page's budget."""
    budget, url = _lazy(context, entry, slot)
    return diff_block(diff, language, budget=budget, url=url, is_open=opened(context))
