"""The events-log line at the file boundary: pydantic models, typed leniently as upstream reads it.

agent-ways writes numbers as strings (`"token_position":"1204"`) but a few rows carry native JSON
numbers; upstream reads either (`str_or_num_f64`, `str_or_num_u64`), and so do we
(formats-agent-ways.md §4). A field that fails validation is dropped from the typed row and named
in the `unparsed:` flag; the raw line keeps it.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, StrictStr, ValidationError

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


Num = Annotated[float | None, BeforeValidator(str_or_float)]
U64 = Annotated[int | None, BeforeValidator(str_or_u64)]


class EventLine(BaseModel):
    """The promoted columns of any events-log line (formats-agent-ways.md §12)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    ts: StrictStr | None = None
    event: StrictStr | None = None
    session: StrictStr | None = None
    project: StrictStr | None = None
    way: StrictStr | None = None
    domain: StrictStr | None = None
    trigger: StrictStr | None = None
    scope: StrictStr | None = None
    agent_id: StrictStr | None = None
    model: StrictStr | None = None
    token_position: U64 = None
    fire_score: Num = None
    surface: StrictStr | None = None
    matched_span: StrictStr | None = None
    reason: StrictStr | None = None
    verdict: StrictStr | None = None
    p_yes: Num = None
    threshold: Num = None
    check: StrictStr | None = None
    prob_en: Num = None
    prob_multi: Num = None
    tau_s: Num = None
    floor: Num = None
    margin: Num = None
    score_en: Num = None
    score_multi: Num = None
    thr_en: Num = None
    thr_multi: Num = None
    floor_en: Num = None
    floor_multi: Num = None

    @property
    def schema_gen(self) -> str | None:
        """Which score generation a near-miss or gate row belongs to (ADR-156)."""
        if any(getattr(self, name) is not None for name in CALIBRATED_FIELDS):
            return "calibrated"
        if any(getattr(self, name) is not None for name in RAW_SCORE_FIELDS):
            return "raw_score"
        return None


def validate_event(obj: dict) -> tuple[EventLine, tuple[str, ...]]:
    """Validate an events-log object; fields of the wrong type are dropped and flagged, never fatal."""
    flags: list[str] = []
    try:
        line = EventLine.model_validate(obj)
    except ValidationError as exc:
        bad = sorted({str(err["loc"][0]) for err in exc.errors() if err["loc"]})
        line = EventLine.model_validate({k: v for k, v in obj.items() if k not in bad})
        flags.append("unparsed:" + ",".join(bad))
    if line.event not in KNOWN_EVENTS:
        flags.append("unknown_type")
    return line, tuple(flags)


def fields_read_by(validator) -> tuple[str, ...]:
    return tuple(
        name
        for name, info in EventLine.model_fields.items()
        if any(getattr(meta, "func", None) is validator for meta in info.metadata)
    )


# The model's fields by how a value is read: text, a number, an unsigned integer.
NUM_FIELDS = fields_read_by(str_or_float)
U64_FIELDS = fields_read_by(str_or_u64)
STR_FIELDS = tuple(name for name in EventLine.model_fields if name not in NUM_FIELDS + U64_FIELDS)


class NeedsModel(Exception):
    """A value the plain reading does not take as it is: the pydantic model decides (and flags)."""


def event_fields(obj: dict) -> tuple[dict, tuple[str, ...]]:
    """`validate_event` as the dict `model_dump()` gives, read without pydantic where every value is
    what it usually is: text, a number or a numeric text, absent or "". The importer reads a million
    event lines in one cold pass, and building the model was most of each line's Python time; any
    other value (a boolean, a list, text that is no number) goes through the model, which flags it.
    The same values and flags either way (tests/introspect/importer/test_parser.py)."""
    try:
        fields = plain_fields(obj)
    except NeedsModel:
        line, flags = validate_event(obj)
        fields = line.model_dump()
        fields["schema_gen"] = line.schema_gen
        return fields, flags
    flags = () if fields["event"] in KNOWN_EVENTS else ("unknown_type",)
    return fields, flags


# Every field absent (None), in the model's order; a line's own keys then fill it.
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
    # The line's own keys (a handful) are read, not every field of the model (some fifty) looked up
    # in it: a key the model has no field for is left out, as the model leaves it out.
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
            into[at] = value
        elif how == "num":
            into[at] = plain_number(name, value)
        else:
            into[at] = plain_u64(name, value)


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
