"""Small display helpers for introspection pages (formatting only, no queries)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal

from django import template
from django.template.defaultfilters import stringfilter, truncatechars
from django.urls import reverse
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from introspect.queries import secret_masks
from introspect.rules import channels, entry_kinds, tool_cards, usage
from introspect.rules import highlight as highlighting  # the `highlight` tag below marks search hits
from lib import converters, render

register = template.Library()


@register.filter
def channel_label(trigger: str | None) -> str:
    """The terminal's short label (render.rs format_trigger), e.g. embed:en."""
    return channels.trigger_label(trigger) if trigger else ""


@register.filter
def channel_kind(trigger: str | None) -> str:
    """A CSS modifier grouping channels by family (semantic, keyword, bash, file, state, …)."""
    return channels.channel_kind(trigger)


@register.filter
def duration(secs: int | None) -> str:
    if not secs:
        return "0 s"
    secs = int(secs)
    hours, rest = divmod(secs, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} m"
    if minutes:
        return f"{minutes} m {seconds:02d} s"
    return f"{seconds} s"


@register.filter
def tokens(value: int | None) -> str:
    """Token counts as people read them: 1,204 → 1.2K; 0 means not recorded."""
    if not value:
        return "—"
    if value >= 1_000_000:
        return f"{value / 1_000_000:.1f}M"
    if value >= 1000:
        return f"{value / 1000:.1f}K"
    return str(value)


@register.filter
def total_tokens(counts: object) -> int:
    """A session's, a run's or a message's tokens, as every page names them (rules/usage.tokens)."""
    return usage.tokens(counts)


@register.filter
def call_status(result_card: object) -> str:
    """How the call whose paired result's card (queries.entry_cards.EntryCard) this is ended
    (rules/tool_cards.call_status)."""
    return tool_cards.call_status(getattr(result_card, "result", None))


GIST_CHARS = 160
MARKUP = re.compile(r"[`*]+|(?<!\S)#{1,6} |\[([^\]]*)\]\([^)]*\)")


@register.filter
def gist(text: str) -> str:
    """Agent Markdown as one line of plain words, for a collapsed card's summary: its first lines
    folded, emphasis and code marks dropped, a link as its text (the whole is cut by CSS)."""
    head = " ".join((text or "")[: GIST_CHARS * 2].split())
    return MARKUP.sub(lambda m: m.group(1) or "", head)[:GIST_CHARS]


@register.filter
def usd(value: Decimal | float | None) -> str:
    """A list-price estimate in dollars: cents from $1 up, four places below (a message costs
    fractions of a cent); "—" when nothing was priced (never $0 for unknown)."""
    if value is None:
        return "—"
    return f"${value:,.2f}" if value >= 1 or value == 0 else f"${value:.4f}"


@register.filter
def short_id(sid: str) -> str:
    return sid[:8] if len(sid) > 12 else sid


@register.filter(name="dom_id")
def dom_id(value) -> str:
    """An id from data as a token for `id="…"`, `#…` and `hx-target` selectors (lib/converters.py)."""
    return converters.dom_id("" if value is None else value)


@register.filter
def entry_anchor(entry) -> str:
    """` id="u-…"`, the attribute a permalink (`#u-…`) and the live tail's swaps find an entry's card
    by; nothing for a line without a uuid."""
    return format_html(' id="u-{}"', dom_id(entry.uuid)) if entry.uuid else ""


@register.filter
def score(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}".rstrip("0").rstrip(".") if value != 0 else "0"


@register.filter
def percent(part: int, whole: int) -> str:
    if not whole:
        return "—"
    return f"{round(100 * part / whole)}%"


@register.filter
def get_item(mapping: dict, key: str):
    return mapping.get(key) if mapping else None


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
        _open_attr(is_open),
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
        _open_attr(is_open),
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


def _open_attr(is_open: bool) -> SafeString:
    return mark_safe(" open" if is_open else "")


@register.filter(is_safe=True)
@stringfilter
def clip(value: str, limit: int) -> str:
    """`truncatechars`, without its cost when nothing is cut.

    Django's filter normalises the whole text and walks it character by character in Python even
    when it fits (~1 ms per 10,000 characters), and a session page prints dozens of long tool outputs
    and injections under limits of 20,000 and more. A text of at most `limit` code points never has
    more than `limit` characters, so it is returned as it is; a longer one goes to `truncatechars`.
    """
    return value if len(value) <= int(limit) else truncatechars(value, limit)


class OncePerNode(template.Node):
    def __init__(self, key: template.base.FilterExpression, nodelist: template.NodeList):
        self.key, self.nodelist = key, nodelist

    def render(self, context) -> str:
        # The render context's first dict lives for one render of the page (or fragment); each
        # partial and include pushes a dict of its own over it, so a cache kept in the top one would
        # last one row (IncludeNode keeps its template cache in dicts[0] for the same reason).
        rendered = context.render_context.dicts[0].setdefault(self, {})
        key = self.key.resolve(context)
        if key not in rendered:
            rendered[key] = self.nodelist.render(context)
        return rendered[key]


@register.tag
def once_per(parser, token):
    """`{% once_per key %}…{% endonce_per %}`: the block rendered once per key in one render of the page.

    For a block that depends on the key alone (a way's current criteria and body, repeated under
    every row of that way on a page of turns): later rows with the same key reuse the HTML.
    """
    bits = token.split_contents()
    if len(bits) != 2:
        raise template.TemplateSyntaxError("once_per takes one argument: the key")
    nodelist = parser.parse(("endonce_per",))
    parser.delete_first_token()
    return OncePerNode(parser.compile_filter(bits[1]), nodelist)


# --- conversation cards ---------------------------------------------------------------------------


# Which card partials/entry.html draws for a transcript entry: one classification, shared with search.
card = register.filter("card", entry_kinds.card)


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
                _open_attr(is_open),
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
# it lives for the whole render, across partials and includes (see OncePerNode.render).
_BUDGET = "introspect_tags.highlight_budget"
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
            _open_attr(is_open),
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


@register.filter
def answered(call: tool_cards.ToolCall, entry_card):
    """AskUserQuestion: the call's questions, with the answers of its card's `paired_result` (a
    queries.entry_cards.EntryCard) once it has one.

    Takes the call's card, not the result: a missing `paired_result` must not fail the lookup of a
    filter argument (Django raises there, where it forgives the filtered value).
    """
    paired = getattr(entry_card, "paired_result", None)
    return tool_cards.answered(call, getattr(paired, "result", None))


@register.filter(expects_localtime=True)
def iso(value) -> str:
    """`value|date:"c"` (ISO 8601 in the current time zone) without building Django's date formatter
    for it (~50 µs, under every fire turn of a page)."""
    if value in (None, ""):
        return ""
    return value.isoformat()


@register.filter
def timestamp(value: datetime | None):
    """`<time>` with the ISO instant for the browser script and a readable UTC text without it."""
    if value is None:
        return ""
    value = value.astimezone(UTC)
    iso = value.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    text = value.strftime("%Y-%m-%d %H:%M:%S")
    # Digits, dashes, colons, a space, T and Z only: nothing to escape (format_html would escape
    # both strings anyway, ~190 times a page).
    return mark_safe(f'<time class="ts" datetime="{iso}" data-local title="{text} UTC">{text} UTC</time>')
