"""Code boxes as HTML lines: Pygments' colours within the caps and the page's budget, the rest escaped."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from pygments.lexers import find_lexer_class_for_filename, get_all_lexers

from introspect.rules import highlight
from introspect.rules.highlight import code_block, diff_block, language_for_path, split_lines
from lib.lru import MISSING


def test_it_clamps_a_long_bash_output_to_twelve_lines():
    output = "\n".join(f"line {n}" for n in range(1, 41)) + "\n"

    block = code_block(output)

    assert block.total_lines == 40
    assert len(block.head) == 12
    assert block.head[0] == "line 1" and block.head[-1] == "line 12"
    assert len(block.rest) == 28 and block.rest[0] == "line 13"
    assert block.clamped is True


def test_it_leaves_a_short_output_whole():
    block = code_block("one\ntwo\n")

    assert block.head == ("one", "two")
    assert block.rest == ()
    assert block.clamped is False


def test_it_keeps_empty_lines_where_the_numbers_expect_them():
    block = code_block("\n\nx = 1\n\n", "python")

    assert block.total_lines == 4
    assert block.head[0] == "" and block.head[1] == "" and block.head[3] == ""
    assert "x" in block.head[2]


def test_it_splits_lines_as_pygments_counts_them():
    assert split_lines("a\r\nb\rc\n") == ["a", "b", "c"]
    assert split_lines("") == []
    assert split_lines("a\u2028b") == ["a\u2028b"]


def test_it_picks_the_lexer_from_the_file_name():
    assert language_for_path("/repo/app/models.py") == "python"
    assert language_for_path("/repo/web/index.tsx") == "tsx"
    assert language_for_path("/repo/Makefile") == "make"
    assert language_for_path("C:\\repo\\main.rs") == "rust"
    assert language_for_path("/repo/LICENSE") == "text"
    assert language_for_path("") == "text"


def names_for_every_lexer_glob() -> set[str]:
    """A file name matching each glob Pygments knows, and near misses of it (case, prefix, suffix)."""
    names = {"Makefile.am", "foo.tar.gz", "x.py.", "a..py", ".", "..", "x", "LICENSE", "Dockerfile.dev"}
    for _name, _aliases, globs, _mimetypes in get_all_lexers(plugins=True):
        for glob in globs:
            name = re.sub(r"\[([^\]]*)\]", lambda m: m.group(1)[0], glob).replace("*", "x").replace("?", "a")
            names |= {name, name.upper(), "a" + name, name + ".bak", "dir.d" + name, ".x" + name}
    return names


def test_it_picks_the_lexer_pygments_picks_for_every_file_name_it_knows():
    # lexer_class_for_filename indexes the `*.ext` globs instead of matching all of them in turn.
    for name in names_for_every_lexer_glob():
        assert highlight.lexer_class_for_filename(name) is find_lexer_class_for_filename(name), name


def test_it_highlights_python():
    block = code_block("def f():\n    return 1\n", "python")

    assert block.head[0].startswith('<span class="k">def</span>')
    assert block.highlighted == 2


class Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, tuple(name for name, _ in attrs)))

    def handle_data(self, data):
        self.text.append(data)


def test_it_escapes_hostile_text_inside_highlighted_code():
    hostile = '<script>alert(1)</script>\n<img src=x onerror="alert(2)">\n" hx-get="/x\n&amp; <!-- -->'
    for language in ("python", "html", "bash", "javascript", "text"):
        block = code_block(hostile, language)
        parser = Tags()
        parser.feed("\n".join(block.head))
        parser.close()

        # Pygments' spans with a class, nothing else; the text reads back exactly as it was.
        assert {tag for tag, _ in parser.tags} <= {"span"}, language
        assert {attrs for _, attrs in parser.tags} <= {("class",)}, language
        assert "".join(parser.text) == hostile, language


def test_it_stops_highlighting_at_the_cap():
    lines = [f"x_{n} = {n}  # a comment" for n in range(highlight.HIGHLIGHT_MAX_LINES + 100)]

    block = code_block("\n".join(lines), "python")
    rendered = (*block.head, *block.rest)

    assert block.highlighted == highlight.HIGHLIGHT_MAX_LINES
    assert "<span" in rendered[highlight.HIGHLIGHT_MAX_LINES - 1]
    assert (
        rendered[highlight.HIGHLIGHT_MAX_LINES]
        == f"x_{highlight.HIGHLIGHT_MAX_LINES} = {highlight.HIGHLIGHT_MAX_LINES}  # a comment"
    )


def test_it_stops_highlighting_at_the_byte_cap():
    line = "y = '" + "a" * 1000 + "'"
    block = code_block("\n".join([line] * 40), "python")

    assert block.highlighted == highlight.HIGHLIGHT_MAX_BYTES // (len(line) + 1)
    assert "<span" not in block.rest[-1]


def test_it_draws_a_huge_read_quickly_and_only_up_to_the_cap():
    text = "z = 1\n" * 400_000  # 2.4 MB

    block = code_block(text, "python")

    assert block.total_lines == 400_000
    assert len(block.head) + len(block.rest) == highlight.MAX_CODE_LINES
    assert block.omitted == 400_000 - highlight.MAX_CODE_LINES


def test_it_falls_back_to_plain_text_for_an_unknown_lexer():
    block = code_block("a < b", "no-such-language")

    assert block.head == ("a &lt; b",)
    assert block.highlighted == 0


# --- the page's highlighting budget and the cache ---------------------------------------------------


def test_it_colours_boxes_in_page_order_while_they_fit_the_budget():
    budget = highlight.HighlightBudget(100)
    first = code_block("a = 1\n" * 10, "python", budget=budget)  # 60 characters to lex
    second = code_block("b = 2\n" * 10, "python", budget=budget)  # 60 more: only 40 left
    third = code_block("c = 3\n" * 5, "python", budget=budget)  # 30: still fits

    assert not first.deferred and first.highlighted == 10 and "<span" in first.head[0]
    assert second.deferred and second.highlighted == 0
    assert not third.deferred and third.highlighted == 5
    assert (budget.left, budget.deferred) == (10, 1)


def test_it_draws_a_box_past_the_budget_as_its_lines_escaped():
    text = '<script>x = "1"</script>\n' * 20
    block = code_block(text, "html", budget=highlight.HighlightBudget(0))

    assert block.deferred
    assert (*block.head, *block.rest) == ('&lt;script&gt;x = "1"&lt;/script&gt;',) * 20
    assert block.total_lines == 20 and block.language == "html"  # numbered and clamped as ever


def test_it_never_defers_without_a_budget_or_for_plain_text():
    assert not code_block("x = 1", "python").deferred
    assert not code_block("x = 1", "text", budget=highlight.HighlightBudget(0)).deferred


def test_it_charges_nothing_for_a_text_already_coloured():
    coloured = code_block("x = 1\n", "python")  # once, anywhere: a page, a box fetched later

    again = code_block("x = 1\n", "python", budget=highlight.HighlightBudget(0))

    assert not again.deferred and again.head == coloured.head


def test_it_colours_a_cached_text_exactly_as_pygments_does():
    text = "def f(x):\n    return x  # é\n\n"
    fresh = code_block(text, "python")
    cached = code_block(text, "python")  # from the cache this time

    assert fresh == cached
    assert list(fresh.head) == highlight._pygments("\n".join(split_lines(text)) + "\n", "python")


def test_it_keeps_the_cache_within_its_byte_bound(monkeypatch):
    monkeypatch.setattr(highlight._cache, "limit", 2000)
    for n in range(40):
        code_block(f"value_{n} = {n}\n", "python")

    assert highlight._cache.weight <= 2000
    assert 0 < len(highlight._cache) < 40
    # The least recently used went first: the newest text is still there, the oldest is not.
    assert highlight._cache.get(highlight._digest("value_39 = 39\n", "python")) is not MISSING
    assert highlight._cache.get(highlight._digest("value_0 = 0\n", "python")) is MISSING


def test_it_colours_both_sides_of_a_diff_or_neither():
    diff = (("-", "a = 1"), ("+", "a = 2"))
    budget = highlight.HighlightBudget(7)  # one side's 6 characters fit, both sides' 12 do not

    block = diff_block(diff, "python", budget=budget)

    assert block.deferred and [row.html for row in block.head] == ["a = 1", "a = 2"]
    assert budget.left == 7
    assert not diff_block(diff, "python", budget=highlight.HighlightBudget(12)).deferred
