"""Bytes of one line in, parsed objects or a quarantine reason out (importer-reliability.md §7).

No Django, no I/O, never raises on input: bad input is data.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import orjson

# Bump when parsing changes, so `--requarantine` knows which quarantined lines to retry.
PARSER_VERSION = 1
ENVELOPE_KEYS = ("type", "ts", "event", "uuid")


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
    """Spliced records (`…}{…`, or a torn record run into the next): import what parses."""
    for cut in _positions(text, "}{"):
        left, right = _object(text[: cut + 1]), _object(text[cut + 1 :])
        if left is not None and right is not None:
            return Parsed(
                records=[
                    Record(obj=sanitise(left), data=text[: cut + 1].encode(), flags=("recovered",)),
                    Record(obj=sanitise(right), data=text[cut + 1 :].encode(), flags=("recovered",)),
                ]
            )
    for start in _positions(text, '{"'):
        if start == 0:
            continue
        obj = _object(text[start:])
        if obj is not None and any(key in obj for key in ENVELOPE_KEYS):
            return Parsed(
                records=[Record(obj=sanitise(obj), data=text[start:].encode(), flags=("recovered",))],
                quarantine=("splice_prefix", f"{start} bytes before a recovered record: {error}"),
            )
    return Parsed(quarantine=("invalid_json", error))


def _positions(text: str, needle: str):
    pos = text.find(needle)
    while pos >= 0:
        yield pos
        pos = text.find(needle, pos + 1)


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
