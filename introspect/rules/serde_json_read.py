"""One line of JSON read exactly as `serde_json::from_str` reads it (default features), for upstream's readers.

Where serde_json and Python's parsers part (each case is in the tests):
- a number is an unsigned or signed 64-bit integer or an f64 computed serde_json's way (`f64_from_parts`:
  the u64 significand times or divided by a power of ten, digits past 19 dropped); `-0` is the float -0.0;
  an integer past u64 is a float; a float past f64 is an error, never infinity; `NaN`/`Infinity` are errors;
- a string holding a lone surrogate (`"\\ud800"`) is an error, wherever it is;
- nesting past 127 arrays and objects is an error (serde_json's recursion limit);
- an object keeps every key, repeated ones too (as `Pairs`), since serde's derived structs refuse a
  repeated known field where Python would keep the last.

The writer's line (compact, as orjson writes it back, few brackets, no float serde_json would compute
otherwise) is parsed by orjson, whose answer is then exact; any other line takes the exact, slower path.
"""

from __future__ import annotations

import json
import re

import orjson

U64_MAX = 2**64 - 1
I32_MAX = 2**31 - 1
I32_MIN = -(2**31)
DEPTH_LIMIT = 128  # serde_json: remaining_depth starts at 128 and a container reaching 0 is refused
POW10 = tuple(float(f"1e{k}") for k in range(309))

# A float orjson writes with an exponent (`1e-7`, `1e+16`) or with 16 digits and dots shows, once digits
# and dots read `0`, as `0e-0` or a run of 16 `0`s. Text in a string that looks so costs only a walk;
# translating in C costs far less than a regex.
_SHAPES = bytes(
    0x30 if byte in b"0123456789." else 0x65 if byte in b"eE" else 0x2D if byte in b"-+" else 0x20
    for byte in range(256)
)
_EXPONENT = b"0e-0"
_LONG_RUN = b"0" * 16
_SURROGATE = re.compile("[\ud800-\udfff]")


class SerdeError(ValueError):
    """The line is not JSON serde_json accepts; `str(error)` says why."""


class Pairs(list):
    """A JSON object as its (key, value) pairs, in text order, repeated keys kept."""


def loads(text: str) -> object:
    """The JSON value of `text` with serde_json's acceptance and numbers (see the module doc)."""
    if text.count("[") + text.count("{") < DEPTH_LIMIT:
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
        else:
            # The writer's compact form comes back byte for byte; a line that does not (a repeated key,
            # white space, `-0`, an escape orjson writes otherwise) is read the exact way, and so is one
            # with a float serde_json computes otherwise (see `_inexact`).
            raw = text.encode()
            if orjson.dumps(value) == raw and not (_maybe_inexact(raw) and _inexact(value)):
                return value
    return _exact(text)


def _maybe_inexact(raw: bytes) -> bool:
    shapes = raw.translate(_SHAPES)
    return _EXPONENT in shapes or _LONG_RUN in shapes


def _inexact(value: object) -> bool:
    """Whether a float whose significand passes 15 digits or whose exponent passes 22 is in `value`:
    for no other does serde_json's `f64_from_parts` (one exact multiply or divide) differ from orjson."""
    if type(value) is float:
        text = repr(value)
        return len(text) > 15 or "e" in text
    if type(value) is dict:
        return any(_inexact(item) for item in value.values())
    if type(value) is list:
        return any(_inexact(item) for item in value)
    return False


def _refuse_constant(name: str) -> object:
    raise SerdeError(f"expected value ({name} is not JSON)")


def _exact(text: str) -> object:
    try:
        value = json.loads(
            text,
            object_pairs_hook=Pairs,
            parse_int=number,
            parse_float=number,
            parse_constant=_refuse_constant,
        )
    except json.JSONDecodeError as error:
        raise SerdeError(error.msg) from None
    except RecursionError:
        raise SerdeError("recursion limit exceeded") from None
    _check(value, 1)
    return value


def _check(value: object, depth: int) -> None:
    if isinstance(value, str):
        if _SURROGATE.search(value):
            raise SerdeError("lone surrogate in hex escape")
    elif isinstance(value, list):
        if depth >= DEPTH_LIMIT:
            raise SerdeError("recursion limit exceeded")
        if isinstance(value, Pairs):
            for key, item in value:
                _check(key, depth + 1)
                _check(item, depth + 1)
        else:
            for item in value:
                _check(item, depth + 1)


def number(raw: str) -> int | float:
    """A JSON number token as serde_json's parser yields it: U64 or I64 as int, F64 as float."""
    positive = not raw.startswith("-")
    pos = 0 if positive else 1
    end = len(raw)
    significand = 0
    if raw[pos] == "0":
        pos += 1
    else:
        while pos < end and raw[pos].isdigit():
            digit = ord(raw[pos]) - 48
            if significand * 10 + digit > U64_MAX:
                return _long_integer(raw, pos, positive, significand)
            significand = significand * 10 + digit
            pos += 1
    if pos < end and raw[pos] == ".":
        return _decimal(raw, pos, positive, significand, 0)
    if pos < end and raw[pos] in "eE":
        return _exponent(raw, pos, positive, significand, 0)
    if positive:
        return significand
    wrapped = significand - 2**64 if significand >= 2**63 else significand
    negated = -wrapped if wrapped != -(2**63) else wrapped
    if negated >= 0:  # -0, or below i64::MIN: serde_json makes it a float
        return -float(significand)
    return negated


def _long_integer(raw: str, pos: int, positive: bool, significand: int) -> float:
    exponent = 0
    while pos < len(raw) and raw[pos].isdigit():
        exponent += 1
        pos += 1
    if pos < len(raw) and raw[pos] == ".":
        return _decimal(raw, pos, positive, significand, exponent)
    if pos < len(raw) and raw[pos] in "eE":
        return _exponent(raw, pos, positive, significand, exponent)
    return _from_parts(positive, significand, exponent)


def _decimal(raw: str, pos: int, positive: bool, significand: int, exponent: int) -> float:
    pos += 1
    while pos < len(raw) and raw[pos].isdigit():
        digit = ord(raw[pos]) - 48
        if significand * 10 + digit > U64_MAX:
            while pos < len(raw) and raw[pos].isdigit():  # every further digit is dropped
                pos += 1
            if pos < len(raw) and raw[pos] in "eE":
                return _exponent(raw, pos, positive, significand, exponent)
            return _from_parts(positive, significand, exponent)
        significand = significand * 10 + digit
        exponent -= 1
        pos += 1
    # serde_json tells "no digit after the point" by an exponent of 0, so a long integer whose dropped
    # digits the fraction brings back to 0 (`18446744073709551616.0`) is refused too.
    if exponent == 0:
        raise SerdeError("invalid number")
    if pos < len(raw) and raw[pos] in "eE":
        return _exponent(raw, pos, positive, significand, exponent)
    return _from_parts(positive, significand, exponent)


def _exponent(raw: str, pos: int, positive: bool, significand: int, starting: int) -> float:
    pos += 1
    positive_exp = True
    if raw[pos] in "+-":
        positive_exp = raw[pos] == "+"
        pos += 1
    exp = 0
    while pos < len(raw) and raw[pos].isdigit():
        digit = ord(raw[pos]) - 48
        if exp * 10 + digit > I32_MAX:
            if significand != 0 and positive_exp:
                raise SerdeError("number out of range")
            return 0.0 if positive else -0.0
        exp = exp * 10 + digit
        pos += 1
    final = starting + exp if positive_exp else starting - exp
    return _from_parts(positive, significand, max(I32_MIN, min(I32_MAX, final)))


def _from_parts(positive: bool, significand: int, exponent: int) -> float:
    value = float(significand)
    while True:
        if abs(exponent) < len(POW10):
            if exponent >= 0:
                value *= POW10[exponent]
                if value == float("inf"):
                    raise SerdeError("number out of range")
            else:
                value /= POW10[-exponent]
            break
        if value == 0.0:
            break
        if exponent >= 0:
            raise SerdeError("number out of range")
        value /= 1e308
        exponent += 308
    return value if positive else -value
