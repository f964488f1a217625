"""JSON numbers and acceptance as serde_json (default features) reads them, where Python would differ."""

from __future__ import annotations

import math

import pytest

from introspect.rules.serde_json_read import Pairs, SerdeError, loads, number


def test_it_keeps_integers_in_u64_and_i64_and_makes_the_rest_floats():
    assert number("18446744073709551615") == 2**64 - 1
    assert number("-9223372036854775808") == -(2**63)
    assert number("-9223372036854775809") == -9.223372036854775809e18
    assert number("18446744073709551616") == 1.8446744073709552e19
    minus_zero = number("-0")
    assert isinstance(minus_zero, float) and math.copysign(1, minus_zero) == -1


def test_it_computes_a_float_serde_jsons_way_not_correctly_rounded():
    # 90071992547409930 is not an f64; serde_json rounds it, then divides by 10: one ulp above
    # the correctly rounded 9007199254740992.0 that Python and orjson give.
    assert number("9007199254740993.0") == 9007199254740994.0
    assert float("9007199254740993.0") == 9007199254740992.0
    assert loads('{"a":9007199254740993.0}') == Pairs([("a", 9007199254740994.0)])


def test_it_reads_exponents_to_zero_or_refuses_them_past_f64():
    assert number("1E2") == 100.0
    assert number("1e-400") == 0.0
    assert math.copysign(1, number("-1e-400")) == -1
    assert number("0e99999999999") == 0.0
    assert number("1e-99999999999") == 0.0
    for raw in ("1e400", "1e99999999999", "17976931348623159e292"):
        with pytest.raises(SerdeError, match="out of range"):
            number(raw)


def test_it_refuses_what_python_alone_accepts():
    for text in ("NaN", "[Infinity]", '"\\udc00"', '{"a":"\\ud800x"}', "[" * 128 + "]" * 128):
        with pytest.raises(SerdeError):
            loads(text)
    assert loads("[" * 127 + "]" * 127) is not None


def test_it_keeps_a_repeated_key_and_reads_the_same_values_on_both_paths():
    assert loads('{"a":1,"a":2}') == Pairs([("a", 1), ("a", 2)])
    assert loads('{"a":"x\\"y","b":[1,2.5]}') == {"a": 'x"y', "b": [1, 2.5]}, "as orjson writes it back"
    assert loads('{"a":"x\\/y", "b":[1,2.5]}') == Pairs([("a", "x/y"), ("b", [1, 2.5])]), "the exact way"


def test_it_reads_a_float_serde_json_computes_otherwise_the_exact_way_even_in_the_writers_form():
    assert loads('{"a":1.2345678901234567e-30}') == Pairs([("a", number("1.2345678901234567e-30"))])
    assert loads('{"a":0.4121,"id":"8f0c2d1e-5b7a"}') == {"a": 0.4121, "id": "8f0c2d1e-5b7a"}
