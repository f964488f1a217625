"""JSON and numbers as agent-ways' Rust writes them, so waysweb's output can equal upstream's byte for byte.

serde_json prints an f64 with ryu (`1e16`, `0.00001`, `1.5e-7`), where Python and orjson print
`1e+16`, `1e-05`; `serde_json::to_string_pretty` indents by two spaces, writes `"k": v` and `[]`/`{}`
for empty containers, and escapes only `"`, `\\` and control characters. Rust's `f64::round` rounds half
away from zero, where Python's `round` rounds half to even, and Rust's `str::trim` strips the Unicode
White_Space set, where Python's `str.strip` strips more (the file separators \\x1c-\\x1f).
"""

from __future__ import annotations

import math

# char::is_whitespace: the Unicode White_Space property.
RUST_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
_ESCAPE_TABLE = {code: f"\\u{code:04x}" for code in range(0x20)} | {
    ord(char): escaped for char, escaped in _ESCAPES.items()
}


def rust_trim(text: str) -> str:
    """`str::trim`."""
    return text.strip(RUST_WHITESPACE)


def rust_round(value: float) -> float:
    """`f64::round`: the nearest integer, halves away from zero (exact, no `+ 0.5` rounding error)."""
    if not math.isfinite(value):
        return value
    floor = math.floor(abs(value))
    whole = floor + 1 if abs(value) - floor >= 0.5 else floor
    return math.copysign(float(whole), value)


def round4(value: float) -> float:
    """agent-ways' `fn round`: `(v * 10_000.0).round() / 10_000.0`."""
    return rust_round(value * 10_000.0) / 10_000.0


def shortest_digits(value: float) -> tuple[str, int]:
    """The shortest round-trip digits of a finite, non-zero |value| and kk, with
    10^(kk-1) <= |value| < 10^kk (ryu's `d2d` as `format64` reads it). Python's repr finds the same digits."""
    text = repr(abs(value))
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(exponent) if exponent else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    return stripped.rstrip("0"), point


def format_f64(value: float) -> str:
    """An f64 as serde_json writes it: ryu's `format64`, and `null` for a non-finite value."""
    if not math.isfinite(value):
        return "null"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return f"{sign}0.0"
    digits, kk = shortest_digits(value)
    length = len(digits)
    k = kk - length
    if k >= 0 and kk <= 16:
        body = digits + "0" * k + ".0"
    elif 0 < kk <= 16:
        body = f"{digits[:kk]}.{digits[kk:]}"
    elif -5 < kk <= 0:
        body = "0." + "0" * -kk + digits
    elif length == 1:
        body = f"{digits}e{kk - 1}"
    else:
        body = f"{digits[0]}.{digits[1:]}e{kk - 1}"
    return sign + body


def dumps(value: object, *, pretty: bool = False) -> str:
    """`serde_json::to_string` (compact) or `to_string_pretty` of a value built from dict, list, str, int,
    float, bool and None. Keys keep the dict's order, as serde_json's `preserve_order` does."""
    out: list[str] = []
    _write(value, out, "\n" if pretty else "", "  " if pretty else "", 0)
    return "".join(out)


def _write(value: object, out: list[str], newline: str, indent: str, depth: int) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        out.append(format_f64(value))
    elif isinstance(value, str):
        out.append(quote(value))
    elif isinstance(value, dict):
        _container(list(value.items()), "{", "}", out, newline, indent, depth)
    elif isinstance(value, list | tuple):
        _container(list(value), "[", "]", out, newline, indent, depth)
    else:
        raise TypeError(f"not a JSON value: {type(value).__name__}")


def _container(items: list, open_: str, close: str, out: list[str], newline: str, indent: str, depth: int):
    out.append(open_)
    if not items:
        out.append(close)
        return
    inner = newline + indent * (depth + 1)
    separator = ": " if newline else ":"
    for index, item in enumerate(items):
        out.append(("," if index else "") + inner)
        if open_ == "{":
            key, item = item
            out.append(quote(key) + separator)
        _write(item, out, newline, indent, depth + 1)
    out.append(newline + indent * depth + close)


def quote(text: str) -> str:
    """A JSON string as serde_json escapes it (lower-case `\\u00XX` for the other control characters)."""
    return '"' + text.translate(_ESCAPE_TABLE) + '"'
