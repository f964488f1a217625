"""The events-log line's fields, typed leniently as upstream reads them: by the importer at the file
boundary, and by the models for the fields an event keeps in its raw line only (`logged`).

agent-ways writes numbers as strings (`"token_position":"1204"`) but a few rows carry native JSON
numbers; upstream reads either (`str_or_num_f64`, `str_or_num_u64`), and so do we
(formats-agent-ways.md §4). A field that fails validation is dropped from the typed row and named
in the `unparsed:` flag; the raw line keeps it.

Plain Python, no pydantic: this module is imported whenever the importer is (the line stores are
registered at the app's start), and importing pydantic alone cost 0.18-0.22 CPU s of every
`manage.py ingest`, a no-op's too (which parses no line). The reading is the one the pydantic model
it replaced gave, value for value (tests/introspect/importer/upstream_models.py keeps that model to
compare against).
"""

from __future__ import annotations

import json
import re

import orjson

KNOWN_EVENTS = frozenset(
    {
        "session_start",
        "way_fired",
        "way_redisclosed",
        "way_suppressed",
        "way_nearmiss",
        "way_keyword_gated",
        "check_fired",
        "way_judged",
        "judge_call",
        "injection_suppressed",
        "gate_fallback",
        "gate_capped",
        "scan_candidates",
        "way_pulled",
        "event_log_dropped",
    }
)
CALIBRATED_FIELDS = ("prob_en", "prob_multi", "tau_s", "floor")
RAW_SCORE_FIELDS = ("score_en", "score_multi", "thr_en", "thr_multi", "floor_en", "floor_multi")


def str_or_float(value: object) -> float | None:
    """A float from text or a JSON number; '' (computed, empty) reads as no value."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    if isinstance(value, (int, float)):
        try:
            return float(value)
        except OverflowError:  # an integer of hundreds of digits (the stdlib parser reads one)
            raise ValueError("an integer beyond a float's range") from None
    if isinstance(value, str):
        return float(value.strip())
    raise ValueError(f"expected a number or numeric text, got {type(value).__name__}")


# The largest integer a BigIntegerField holds on SQLite and PostgreSQL alike.
MAX_STORED_INT = 2**63 - 1


def str_or_u64(value: object) -> int | None:
    """An unsigned integer from text or a JSON number (upstream str_or_num_u64).

    Past the signed 64-bit range it is refused (flagged `unparsed:`, the raw line keeps it): such a
    number cannot be stored and is never trusted (importer-reliability.md §7.7).
    """
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int) and 0 <= value <= MAX_STORED_INT:
        return value
    raise ValueError(f"expected an unsigned integer below 2**63, got {value!r}")


def strict_text(value: object) -> str:
    """Text as it is: a number or a boolean is not taken for text."""
    if isinstance(value, str):
        return value
    raise ValueError(f"expected text, got {type(value).__name__}")


# The promoted columns of any events-log line (formats-agent-ways.md §12), in their order, by how
# a value is read: text, a number, an unsigned integer.
FIELDS = {
    "ts": strict_text,
    "event": strict_text,
    "session": strict_text,
    "project": strict_text,
    "way": strict_text,
    "domain": strict_text,
    "trigger": strict_text,
    "scope": strict_text,
    "agent_id": strict_text,
    "model": strict_text,
    "token_position": str_or_u64,
    "fire_score": str_or_float,
    "surface": strict_text,
    "matched_span": strict_text,
    "reason": strict_text,
    "verdict": strict_text,
    "p_yes": str_or_float,
    "threshold": str_or_float,
    "check": strict_text,
    "prob_en": str_or_float,
    "prob_multi": str_or_float,
    "tau_s": str_or_float,
    "floor": str_or_float,
    "margin": str_or_float,
    "score_en": str_or_float,
    "score_multi": str_or_float,
    "thr_en": str_or_float,
    "thr_multi": str_or_float,
    "floor_en": str_or_float,
    "floor_multi": str_or_float,
}
NUM_FIELDS = tuple(name for name, read in FIELDS.items() if read is str_or_float)
U64_FIELDS = tuple(name for name, read in FIELDS.items() if read is str_or_u64)
STR_FIELDS = tuple(name for name, read in FIELDS.items() if read is strict_text)


def schema_gen(fields: dict) -> str | None:
    """Which score generation a near-miss or gate row belongs to (ADR-156)."""
    if any(fields[name] is not None for name in CALIBRATED_FIELDS):
        return "calibrated"
    if any(fields[name] is not None for name in RAW_SCORE_FIELDS):
        return "raw_score"
    return None


def validate_event(obj: dict) -> tuple[dict, tuple[str, ...]]:
    """An events-log object's fields (each one, None where absent) and its schema generation; a
    field of the wrong type is dropped and flagged, never fatal."""
    fields = dict.fromkeys(FIELDS)
    bad = []
    for name, value in obj.items():
        read = FIELDS.get(name)
        if read is None or value is None:
            continue
        try:
            fields[name] = read(value)
        except ValueError:
            bad.append(name)
    fields["schema_gen"] = schema_gen(fields)
    flags = ["unparsed:" + ",".join(sorted(bad))] if bad else []
    if fields["event"] not in KNOWN_EVENTS:
        flags.append("unknown_type")
    return fields, tuple(flags)


class NeedsModel(Exception):
    """A value the plain reading does not take as it is: `validate_event` decides (and flags)."""


def event_fields(obj: dict) -> tuple[dict, tuple[str, ...]]:
    """`validate_event`, read the quick way where every value is what it usually is: text, a number
    or a numeric text, absent or "". The importer reads a million event lines in one cold pass; any
    other value (a boolean, a list, text that is no number) goes through `validate_event`, which
    flags it. The same values and flags either way (tests/introspect/importer/test_parser.py)."""
    try:
        fields = plain_fields(obj)
    except NeedsModel:
        return validate_event(obj)
    flags = () if fields["event"] in KNOWN_EVENTS else ("unknown_type",)
    return fields, flags


# Every field absent (None); a line's own keys then fill it.
ABSENT = dict.fromkeys((*STR_FIELDS, *NUM_FIELDS, *U64_FIELDS))
READ_AS = {
    **dict.fromkeys(STR_FIELDS, "str"),
    **dict.fromkeys(NUM_FIELDS, "num"),
    **dict.fromkeys(U64_FIELDS, "u64"),
}
# `read_plain`'s places for a dict of fields: each under its own name, no text too long.
BY_NAME = {name: (name, how, 0) for name, how in READ_AS.items()}


class Overlong(Exception):
    """A text longer than the length `read_plain` was given for it."""


def read_plain(obj: dict, places: dict, into) -> None:
    """The line's typed values put `into` a dict or a row: `places` maps a field to (where it goes,
    how it is read, the longest text it takes or 0). NeedsModel for a value the plain reading does
    not take, Overlong for a text past its length."""
    # The line's own keys (a handful) are read, not every field (some thirty) looked up in it: a key
    # that is no field is left out.
    place_of = places.get
    for name, value in obj.items():
        place = place_of(name)
        if place is None or value is None:
            continue
        at, how, length = place
        if how == "str":
            if type(value) is not str:
                raise NeedsModel(name)
            if length and len(value) > length:
                raise Overlong(name)
        elif how == "num":
            value = plain_number(name, value)
        else:
            value = plain_u64(name, value)
        if at is not None:  # a field with no column (UNSTORED) is read, to be flagged, and not kept
            into[at] = value


def plain_fields(obj: dict) -> dict:
    fields = ABSENT.copy()
    read_plain(obj, BY_NAME, fields)
    fields["schema_gen"] = (
        "calibrated"
        if any(fields[name] is not None for name in CALIBRATED_FIELDS)
        else "raw_score"
        if any(fields[name] is not None for name in RAW_SCORE_FIELDS)
        else None
    )
    return fields


def plain_number(name: str, value: object) -> float | None:
    if value == "":
        return None
    if type(value) is float:
        return value
    if type(value) is int and -MAX_STORED_INT <= value <= MAX_STORED_INT:
        return float(value)
    if type(value) is str:
        try:
            return float(value.strip())
        except (ValueError, OverflowError):
            raise NeedsModel(name) from None
    raise NeedsModel(name)


def plain_u64(name: str, value: object) -> int | None:
    if value == "":
        return None
    if type(value) is str and value.strip().isdigit():
        try:
            value = int(value.strip())
        except ValueError:
            raise NeedsModel(name) from None
    if type(value) is int and 0 <= value <= MAX_STORED_INT:
        return value
    raise NeedsModel(name)


def empty_fields(obj: dict) -> list[str]:
    """Keys logged with "" ("computed, empty"), kept distinct from absent keys."""
    return sorted(key for key, value in obj.items() if value == "")


# The fields no query selects by, joins on, sorts or sums: an event keeps them in its raw line only,
# and a page that shows one reads it from there (`logged_field`, models.LoggedField). As columns they
# were bindings a row for values most lines lack: the events tier's import pass 26.5 -> 22.1 s, its
# database 1,071 -> 1,005 MB (issue 29, bench/results/2026-12-05-stop54.txt).
UNSTORED = frozenset(
    {
        "domain",
        "scope",
        "agent_id",
        "surface",
        "check",
        "prob_multi",
        "tau_s",
        "floor",
        "margin",
        *RAW_SCORE_FIELDS,
    }
)
SURROGATE = re.compile("[\ud800-\udfff]")


def logged_field(obj: dict | None, name: str):
    """One field of an event's raw line (its object: `line_object`) as the importer reads it: the
    field's value as `validate_event` takes it, None where it is absent or not valid there, and for a
    NaN (SQLite stores a NaN as NULL: a score of "nan" was never shown as one); the score generation
    for `schema_gen`, the keys logged as "" for `empty_fields`. A field is read alone: the reading of
    one never depends on another's (`validate_event`)."""
    if obj is None:
        return [] if name == "empty_fields" else None
    if name == "schema_gen":
        return schema_gen(
            {field: read_field(obj, field) for field in (*CALIBRATED_FIELDS, *RAW_SCORE_FIELDS)}
        )
    if name == "empty_fields":
        return empty_fields(obj)
    value = read_field(obj, name)
    return None if value != value else value  # NaN


def read_field(obj: dict, name: str):
    """The field as `validate_event` reads it (a NaN kept: it decides the score generation)."""
    value = obj.get(name)
    if value is None:
        return None
    try:
        return FIELDS[name](value)
    except ValueError:
        return None


# What `logged` reads of a line: every field, its score generation, its keys logged as "".
LOGGED = (*FIELDS, "schema_gen", "empty_fields")


def logged(raw: str) -> dict:
    """Every field of an event's raw line as `logged_field` reads it (migration 0045's undo fills the
    columns from it)."""
    obj = line_object(raw)
    return {name: logged_field(obj, name) for name in LOGGED}


def line_object(raw: str) -> dict | None:
    """The raw line's object as the importer's parser read it: orjson, else the standard library
    (a NaN read as no value, a lone surrogate as U+FFFD, as importer/parser.sanitise stores them)."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        try:
            obj = json.loads(raw.removeprefix("\ufeff"), parse_constant=lambda _: None)
        except (ValueError, RecursionError):
            return None
        if isinstance(obj, dict):
            obj = {
                key: SURROGATE.sub("\ufffd", value) if isinstance(value, str) else value
                for key, value in obj.items()
            }
    return obj if isinstance(obj, dict) else None
