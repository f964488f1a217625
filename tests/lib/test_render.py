"""Agent text rendering: hostile content must come out inert (importer-reliability.md §14 case 26)."""

from __future__ import annotations

import re

from django.utils.safestring import SafeString

from lib.render import clamp, render_markdown, sanitize_html

ATTRIBUTE = re.compile(r"<[^>]*\s(on\w+|hx-[\w-]+|data-[\w-]+|style|src)\s*=", re.IGNORECASE)


def assert_inert(html: str) -> None:
    lowered = html.lower()
    assert "<script" not in lowered
    assert "<img" not in lowered
    assert "<iframe" not in lowered
    assert "<div" not in lowered
    assert 'href="javascript' not in lowered
    assert 'href="data:' not in lowered
    assert not ATTRIBUTE.search(html), html


def test_it_returns_safe_html_for_markdown():
    html = render_markdown("**bold** and `code`")

    assert isinstance(html, SafeString)
    assert "<strong>bold</strong>" in html
    assert "<code>code</code>" in html


def test_it_escapes_a_script_tag_in_text():
    html = render_markdown("before <script>alert(1)</script> after")

    assert_inert(html)
    assert "&lt;script&gt;" in html


def test_it_escapes_a_raw_html_block():
    html = render_markdown('<script>\nalert(1)\n</script>\n\n<div hx-get="/">\nhi\n</div>\n')

    assert_inert(html)
    assert "&lt;div hx-get=" in html


def test_it_neutralises_an_img_onerror():
    assert_inert(render_markdown("<img src=x onerror=alert(1)>"))


def test_it_loads_no_markdown_image():
    html = render_markdown("![pixel](https://tracker.example/p.png)")

    assert_inert(html)
    assert "pixel" in html


def test_it_drops_a_javascript_link():
    html = render_markdown("[x](javascript:alert(1)) [y](JAVASCRIPT:alert(1))")

    assert_inert(html)
    assert "<a" not in html


def test_it_drops_a_data_url():
    html = render_markdown(
        "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) "
        "![y](data:image/png;base64,iVBORw0KGgo=)"
    )

    assert_inert(html)


def test_it_escapes_htmx_attributes_in_markdown():
    html = render_markdown('<a href="/x" hx-post="/ledger/x">promote</a> and <div hx-get="/">x</div>')

    assert_inert(html)
    assert "<a" not in html


def test_it_keeps_an_autolink_as_a_safe_link():
    html = render_markdown("see <https://example.com>")

    assert '<a href="https://example.com" rel="noopener noreferrer nofollow">https://example.com</a>' in html


def test_it_does_not_linkify_bare_urls():
    assert "<a" not in render_markdown("see www.example.com and https://example.com")


def test_it_keeps_angle_brackets_escaped_in_code_blocks():
    html = render_markdown("```html\n<script>alert(1)</script>\n```\n\n`<b>`")

    assert_inert(html)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<code>&lt;b&gt;</code>" in html


def test_it_sanitises_hostile_html_directly():
    html = sanitize_html(
        '<a href="/x" hx-post="/ledger/x" onclick="go()" data-hx-post="/y">a</a>'
        '<a href="javascript:alert(1)">b</a><a href="data:text/html,x">c</a>'
        '<a href="https://example.com" target="_blank">d</a><a href="mailto:a@example.com">e</a>'
        '<div hx-get="/">f</div><img src=x onerror=alert(1)><script>alert(1)</script>'
        '<p style="x" class="y" id="z">g</p><iframe src="https://example.com"></iframe>'
    )

    assert_inert(html)
    assert "alert(1)" not in html
    assert 'href="/x"' not in html
    assert '<a href="https://example.com" rel="noopener noreferrer nofollow">d</a>' in html
    assert 'href="mailto:a@example.com"' in html
    assert "<p>g</p>" in html


def test_it_renders_tables_without_inline_style():
    html = render_markdown("| a | b |\n|--:|---|\n| 1 | 2 |\n")

    assert "<table>" in html
    assert "style" not in html


def test_it_survives_a_lone_surrogate():
    assert "ok" in render_markdown("ok \ud800")


def test_it_returns_the_cached_object_for_identical_text():
    text = "# cached heading\n\nsome *text*"

    assert render_markdown(text) is render_markdown(text)
    assert render_markdown(text) is not render_markdown(text + " ")


def test_it_leaves_short_text_unclamped():
    assert clamp("short\ntext", 100) == ("short\ntext", False)
    assert clamp("exact", 5) == ("exact", False)


def test_it_clamps_at_a_line_boundary():
    text = "line one\nline two\nline three\n"

    assert clamp(text, 20) == ("line one\nline two", True)


def test_it_clamps_hard_without_a_near_line_break():
    text = "a\n" + "x" * 100

    assert clamp(text, 50) == (text[:50], True)


def test_it_clamps_to_nothing_at_zero():
    assert clamp("abc", 0) == ("", True)
    assert clamp("", 0) == ("", False)
