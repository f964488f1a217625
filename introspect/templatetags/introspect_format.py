"""Values as the pages print them: channel labels, durations, token counts, dollars, scores,
instants, short ids, DOM ids, clipped text (formatting only, no queries)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal

from django import template
from django.template.defaultfilters import stringfilter, truncatechars
from django.utils.safestring import mark_safe

from introspect.rules import channels, usage
from lib import converters

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
