"""The outcome signals of a session's conversation turns (rules/outcome_signals.py) as TurnOutcome rows.

They are read from the trunk's conversation lines (the copies of another file's lines and the inert
ones left out, as the page numbers its turns), CHUNK at a time and one turn held at once: a tool
call's input is parsed from its raw line, a result's or a user line's text read to its head only.
A whole rebuild plans every turn before its transaction (`plan`); a live session's extension reads
again from the prompt of its last stored turn (`extend`), whose correction the new prompt decides.
"""

from __future__ import annotations

from collections.abc import Iterator

import orjson
from django.db.models import BinaryField, Case, ExpressionWrapper, F, IntegerField, Q, TextField, Value, When
from django.db.models.functions import Substr

from introspect.derive import fields, session_inputs
from introspect.models import Session, SourceFile, TranscriptEntry, TurnOutcome
from introspect.rules import outcome_signals as signals
from lib import linepack, stamps
from lib.packed_text import Unpacked

CHUNK = 5000
HEAD = 300  # a result's or a user line's first characters: its exit code, its interruption
PROMPT_CHARS = 4000  # a prompt's words as the correction rule reads them

COLUMNS = (
    "id",
    "uuid",
    "type",
    "subtype",
    "is_prompt",
    Case(
        When(is_prompt=True, then=Substr(Unpacked("text"), 1, PROMPT_CHARS)),
        When(type="user", then=Substr(Unpacked("text"), 1, HEAD)),
        default=Value(""),
        output_field=TextField(),
    ),
    "tool_name",
    "tool_use_id",
    "tool_result_id",
    "is_error",
    "ts",
    "message_id",
    "request_id",
    "model",
    *fields.USAGE_COLUMNS,
    # A tool call's line only: its input is what a retry and an edit are told by.
    Case(
        When(type="assistant", tool_use_id__isnull=False, then=F("raw")),
        default=Value(b""),
        output_field=BinaryField(),
    ),
    "raw_compressed",
    "offset",
    "index",
)


def flag(name: str) -> ExpressionWrapper:
    """A BooleanField read as the 0 or 1 SQLite stores (PostgreSQL's bool as it is): Django's
    converter is a Python call a value, with the stamps' a sixth of reading a large tier's trunks."""
    return ExpressionWrapper(F(name), output_field=IntegerField())


def columns() -> tuple:
    """What `line_of` reads of a line, its stamp as the database reads it fastest (lib/stamps.py)."""
    return (
        *COLUMNS[:4],
        flag("is_prompt"),
        *COLUMNS[5:9],
        flag("is_error"),
        stamps.column("ts"),
        *COLUMNS[11:-3],
        flag("raw_compressed"),
        *COLUMNS[-2:],
    )


def conversation_lines(trunk: SourceFile) -> Q:
    return Q(source=trunk, inert=False, is_copy=False)


def lines_of(
    trunk: SourceFile, *, after: tuple[int, int] | None = None
) -> Iterator[tuple[int, signals.Line]]:
    """(id, line) of the trunk's conversation lines in file order, from position `after` on (itself
    included), read CHUNK at a time."""
    rows = TranscriptEntry.objects.filter(conversation_lines(trunk))
    parse = stamps.reader()
    for chunk in session_inputs.in_file_order(rows, columns(), CHUNK, after=after):
        for row in chunk:
            yield row[0], line_of(row, parse)


def line_of(row: tuple, parse=None) -> signals.Line:
    """One row of `columns()` as the signals read it (`parse`: its stamp's reader, lib/stamps.py)."""
    (_, uuid, kind, subtype, is_prompt, text, tool_name, tool_use_id, tool_result_id, is_error, ts) = row[:11]
    message_id, request_id, model = row[11:14]
    counts = row[14 : 14 + len(fields.USAGE_COLUMNS)]
    raw, compressed = row[14 + len(fields.USAGE_COLUMNS) : -2]
    said = any(count is not None for count in counts[:-1])  # a usage row, as fields.usage_rows reads them
    tool_input = None
    if raw:
        try:
            tool_input = signals.tool_input_of(orjson.loads(linepack.unpack(bytes(raw), compressed)))
        except orjson.JSONDecodeError:
            tool_input = None  # a line kept whole but not JSON: no input to compare
    return signals.Line(
        uuid=uuid or "",
        type=kind,
        subtype=subtype,
        is_prompt=bool(is_prompt),
        text=text or "",
        tool_name=tool_name,
        tool_use_id=tool_use_id,
        tool_result_id=tool_result_id,
        is_error=bool(is_error),
        tool_input=tool_input,
        ts=parse(ts) if parse is not None else ts,
        usage=(message_id, request_id, model, *counts) if said else None,
    )


def plan(session: Session, trunk: SourceFile | None) -> list[TurnOutcome]:
    """Every conversation turn's outcome row of the session (none without a trunk), read alone: a
    whole rebuild reads them with the trunk's facts (derive/trunk_pass.py)."""
    if trunk is None:
        return []
    return rows_for(session, lines_of(trunk), first_number=0)


def rows_for(
    session: Session, read: Iterator[tuple[int, signals.Line]], *, first_number: int
) -> list[TurnOutcome]:
    prompts: dict[str, int] = {}

    def lines() -> Iterator[signals.Line]:
        for pk, line in read:
            if line.is_prompt:
                prompts[line.uuid] = pk
            yield line

    found = signals.outcomes(lines(), first_number=first_number)
    return [row_of(session, outcome, prompts.get(outcome.prompt_uuid)) for outcome in found]


def row_of(session: Session, outcome: signals.TurnOutcome, prompt_pk: int | None) -> TurnOutcome:
    causes = {
        name: uuids
        for name, uuids in (
            (signals.TOOL_ERRORS, outcome.tool_errors),
            (signals.INTERRUPTS, outcome.interrupts),
            (signals.RETRIES, outcome.retries),
            (signals.CHURN, outcome.churn),
            (signals.COMPACTIONS, outcome.compactions),
            (signals.CORRECTION, [outcome.correction_by] if outcome.correction_by else []),
        )
        if uuids
    }
    return TurnOutcome(
        session=session,
        number=outcome.number,
        prompt_entry_id=prompt_pk,
        tool_errors=len(outcome.tool_errors),
        interrupts=len(outcome.interrupts),
        retries=len(outcome.retries),
        churn=len(outcome.churn),
        compactions=len(outcome.compactions),
        correction_cue=outcome.correction_cue or "",
        tokens=outcome.tokens,
        cost_usd=outcome.usage.cost_usd,
        unpriced_messages=outcome.usage.unpriced_messages,
        duration_secs=outcome.duration_secs,
        causes=causes,
    )


def extend(session: Session, trunk: SourceFile | None) -> None:
    """The outcome rows again from the session's last stored turn on (its new lines and new turns),
    as a whole rebuild would write them; inside the extension's transaction."""
    if trunk is None:
        TurnOutcome.objects.filter(session=session).delete()
        return
    last = (
        TurnOutcome.objects.filter(session=session)
        .order_by("-number")
        .values_list("number", "prompt_entry__offset", "prompt_entry__index")
        .first()
    )
    if last is None or last[0] == 0 or last[1] is None:
        TurnOutcome.objects.filter(session=session).delete()
        TurnOutcome.objects.bulk_create(plan(session, trunk))
        return
    number, offset, index = last
    TurnOutcome.objects.filter(session=session, number__gte=number).delete()
    TurnOutcome.objects.bulk_create(
        rows_for(session, lines_of(trunk, after=(offset, index)), first_number=number)
    )
