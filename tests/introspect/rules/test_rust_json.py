"""Output as serde_json and Rust print it: ryu floats, pretty printing, escapes, f64::round."""

from __future__ import annotations

import pytest

from introspect.rules.rust_json import dumps, format_f64, round4, rust_round, rust_trim


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (1.0, "1.0"),
        (0.04, "0.04"),
        (1 / 3, "0.3333333333333333"),
        (123.456, "123.456"),
        (1e15, "1000000000000000.0"),
        (1e16, "1e16"),
        (1.5e17, "1.5e17"),
        (1e-5, "0.00001"),
        (1.25e-5, "0.0000125"),
        (1e-6, "1e-6"),
        (1.5e-7, "1.5e-7"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e308"),
        (float("nan"), "null"),
        (float("inf"), "null"),
    ],
)
def test_it_formats_an_f64_as_ryu_does(value, text):
    assert format_f64(value) == text


def test_it_prints_compact_and_pretty_as_serde_json_does():
    value = {"a": [], "b": {}, "c": [1, 2.0, None, True], "d": {"e": "x"}}
    assert dumps(value) == '{"a":[],"b":{},"c":[1,2.0,null,true],"d":{"e":"x"}}'
    assert dumps(value, pretty=True) == (
        '{\n  "a": [],\n  "b": {},\n  "c": [\n    1,\n    2.0,\n    null,\n    true\n  ],\n'
        '  "d": {\n    "e": "x"\n  }\n}'
    )


def test_it_escapes_only_quotes_backslashes_and_control_characters():
    assert dumps('a"b\\c\n\t\x01\x1f\x7f/é\u2028') == '"a\\"b\\\\c\\n\\t\\u0001\\u001f\x7f/é\u2028"'


def test_it_rounds_halves_away_from_zero_exactly():
    assert [rust_round(v) for v in (0.5, 1.5, 2.5, -0.5, -2.5, 0.49999999999999994)] == [1, 2, 3, -1, -3, 0]
    assert round4(1 / 3) == 0.3333
    assert round4(0.00005) == 0.0001
    assert round4(2 / 3) == 0.6667


def test_it_trims_the_unicode_white_space_set_only():
    assert rust_trim("\u00a0\u3000 x \u2029\r\n") == "x"
    assert rust_trim("\x1cx\x1f") == "\x1cx\x1f"
