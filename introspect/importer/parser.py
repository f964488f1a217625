"""Bytes of one line in, parsed objects or a quarantine reason out (importer-reliability.md §7).

No Django, no I/O, never raises on input: bad input is data.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field

import orjson

# Bump when parsing changes, so `--requarantine` knows which quarantined lines to retry.
PARSER_VERSION = 1
ENVELOPE_KEYS = ("type", "ts", "event", "uuid")
# A line that does not parse and holds more quotes and runs of brackets than this is quarantined
# without being searched for a spliced record: the search is one scan, but each of these costs it
# about a microsecond of Python (a line of nothing but `"{"` about a second a MiB), while the text
# between them costs next to nothing: real transcripts hold one every 10 to 60 characters, so only
# a torn line of tens of MiB reaches the cap (it is kept whole, with its reason, in the quarantine).
RECOVER_TOKENS = 1_000_000
JSON_SPACE = " \t\n\r"
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Record:
    """One JSON object and the exact bytes it was parsed from (its identity)."""

    obj: dict
    data: bytes
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Parsed:
    """What became of a line: records, and/or a quarantined part, or an inert count."""

    records: list[Record] = field(default_factory=list)
    quarantine: tuple[str, str] | None = None  # (reason, detail)
    inert: str = ""


def parse_line(data: bytes) -> Parsed:
    """Parse one line (already split on b"\\n", CR and NUL prefix removed)."""
    if not data.strip():
        return Parsed(inert="blank")
    try:
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            # orjson stops at 1024 levels ("depth limit exceeded"); the stdlib parses a little deeper.
            if any(word in str(exc).lower() for word in ("recursion", "depth limit")):
                return Parsed(quarantine=("too_deep", str(exc)))
            return parse_lenient(data)
        return as_record(obj, data, ())
    except RecursionError:
        # `sanitise` walks the object recursively: a line nested nearly as deep as the
        # interpreter allows must be quarantined, never stop the stream (§0.6).
        return Parsed(quarantine=("too_deep", "nesting deeper than the parser allows"))


def plain_object(data: bytes) -> dict | None:
    """The line's object when `parse_line` makes it one Record of the whole line, unchanged and with
    no flags (nearly every line of a log): orjson reads it as an object and no escaped NUL is to be
    replaced in it. None for any other line (blank, not JSON, not an object, deeper than orjson
    reads, an escaped NUL): `parse_line` decides it."""
    if b"\\u0000" in data:
        return None
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    return obj if type(obj) is dict else None


def as_record(obj: object, data: bytes, flags: tuple[str, ...]) -> Parsed:
    if not isinstance(obj, dict):
        return Parsed(quarantine=("not_object", f"a JSON {type(obj).__name__}, not an object"))
    if b"\\u0000" in data:
        # importer-reliability.md §7.8: PostgreSQL rejects NUL in text; both backends hold U+FFFD.
        obj = sanitise(obj)
        flags = (*flags, "nul_replaced")
    return Parsed(records=[Record(obj=obj, data=data, flags=flags)])


def parse_lenient(data: bytes) -> Parsed:
    """The stdlib fallback: lone surrogates, NaN, a BOM; then splice recovery; then quarantine."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Parsed(quarantine=("invalid_utf8", str(exc)))
    flags: tuple[str, ...] = ("parsed_lenient",)
    if text.startswith("\ufeff"):
        text = text[1:]
        flags = (*flags, "bom")
    try:
        obj = json.loads(text)
    except RecursionError:
        return Parsed(quarantine=("too_deep", "nesting deeper than the parser allows"))
    except ValueError as exc:
        return recover(text, str(exc))
    return as_record(sanitise(obj), data, flags)


def recover(text: str, error: str) -> Parsed:
    """Spliced records (`…}{…`, or a torn record run into the next): import what parses.

    Linear in the line's length (a line full of `}{` once took minutes): each way of splitting is
    decided by one scan (`splice_points`) and checked by at most three parses, never one per `}{`.
    """
    left, cut = leading_value(text)
    if isinstance(left, dict) and text.startswith("{", cut):
        right = _object(text[cut:])
        if right is not None:
            return Parsed(
                records=[
                    Record(obj=sanitise(left), data=text[:cut].encode(), flags=("recovered",)),
                    Record(obj=sanitise(right), data=text[cut:].encode(), flags=("recovered",)),
                ]
            )
    starts = splice_points(text)
    if starts is None:
        return Parsed(
            quarantine=(
                "too_long_to_recover",
                f"not searched for a spliced record: more than {RECOVER_TOKENS:,} quotes and brackets: {error}",
            )
        )
    for start in starts:
        obj = _object(text[start:])
        if obj is not None and any(key in obj for key in ENVELOPE_KEYS):
            return Parsed(
                records=[Record(obj=sanitise(obj), data=text[start:].encode(), flags=("recovered",))],
                quarantine=("splice_prefix", f"{start} bytes before a recovered record: {error}"),
            )
    return Parsed(quarantine=("invalid_json", error))


def leading_value(text: str) -> tuple[object, int]:
    """The JSON value the text starts with (after whitespace) and where it ends; (None, 0) if none.

    A value has one end, so that is the one `}` at which the text can split into two objects.
    """
    try:
        return _DECODER.raw_decode(text, len(text) - len(text.lstrip(JSON_SPACE)))
    except (ValueError, RecursionError):
        return None, 0


# A quote with the run of backslashes before it (escaped when the run is odd), or a run of brackets.
_STRUCTURE = re.compile(r'\\*"|[{}\[\]]+')


def splice_points(text: str) -> list[int] | None:
    """The positions after 0 of `{"` from which the rest of the line could be one JSON object;
    None when the line holds more than RECOVER_TOKENS quotes and runs of brackets.

    One scan. In a valid object the string delimiters are exactly the quotes not escaped by an odd
    run of backslashes, so which brackets lie outside strings depends only on whether a start sees
    an even or an odd number of such quotes before it: two parities, each with its bracket depth.
    An object from `s` to the end needs the depth at `s` to equal the depth at the end, and no
    later position to come back down to it: only the last such `{"` of each parity can qualify.
    """
    quotes = 0
    depth = [0, 0]
    last_at: tuple[dict[int, int], dict[int, int]] = ({}, {})
    for tokens, match in enumerate(_STRUCTURE.finditer(text)):
        if tokens == RECOVER_TOKENS:
            return None
        run = match.group()
        if run[-1] == '"':
            quotes += len(run) % 2  # an even run of backslashes (or none) before it: a delimiter
            continue
        parity = quotes & 1
        # Inside a run only its last bracket can be followed by a quote, so only it can start one.
        end = match.end()
        if run[-1] == "{" and end > 1 and text.startswith('"', end):
            last_at[parity][depth[parity] + opened(run) - 1] = end - 1
        depth[parity] += opened(run)
    return sorted(start for parity in (0, 1) if (start := last_at[parity].get(depth[parity])) is not None)


def opened(run: str) -> int:
    """How much deeper a run of brackets leaves the nesting."""
    return 2 * (run.count("{") + run.count("[")) - len(run)


def _object(text: str) -> dict | None:
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def sanitise(value):
    """Replace NUL and lone surrogates with U+FFFD and non-finite numbers with None, recursively."""
    if isinstance(value, str):
        if "\x00" in value:
            value = value.replace("\x00", "\ufffd")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            value = "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in value)
        return value
    if isinstance(value, dict):
        return {sanitise(k): sanitise(v) for k, v in value.items()}
    if isinstance(value, list):
        return [sanitise(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
