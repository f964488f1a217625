"""Small display helpers for introspection pages (formatting only, no queries)."""

from __future__ import annotations

from decimal import Decimal

from django import template
from django.template.defaultfilters import stringfilter, truncatechars
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe

from introspect.rules import channels
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
def highlight(text: str, spans: list[str] | None, limit: int = 4000):
    """The text, escaped, with each recorded span marked where it occurs (case-insensitive)."""
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
def markdown(text: str):
    """Agent text as sanitised Markdown (lib/render.py)."""
    return render.render_markdown(text or "")


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
        # render_context lives for one render of the page (or fragment), shared by its partials.
        rendered = context.render_context.setdefault(self, {})
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
