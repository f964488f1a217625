"""One read of a session's trunk for a whole rebuild: its facts (trunk_facts) and its conversation
turns' outcome signals (turn_outcomes) folded over the same rows, a chunk at a time.

Each row carries what both read: the TrunkLine columns, then what a signal reads besides them.
Read apart, the two took the large tier's 361 trunks 7.0 CPU s (facts 2.1 s, outcomes 4.9 s); read
together, 5.5 s (bench/results/2026-12-05-stop52.txt, issue 29). A line is cut to what each
reader holds of it: the facts keep a prompt's whole text and a compaction's raw line, the signals a
prompt's first PROMPT_CHARS, a user line's HEAD and a tool call's raw line. Every line is read for
the facts; the copies of another file's lines and the inert ones are left out of the signals, as
the page numbers its turns.
"""

from __future__ import annotations

from collections.abc import Iterator
from operator import itemgetter

from django.db.models import BinaryField, Case, F, Q, TextField, Value, When
from django.db.models.functions import Substr

from introspect.derive import fields, session_inputs, trunk_facts, turn_outcomes
from introspect.derive.session_inputs import TrunkLine
from introspect.models import Session, SourceFile, TranscriptEntry, TurnOutcome
from introspect.rules import outcome_signals as signals
from lib import stamps
from lib.packed_text import Unpacked

# What a signal reads beyond the TrunkLine columns, after them in a row.
SIGNAL_NAMES = (
    "tool_name",
    "tool_use_id",
    "tool_result_id",
    "is_error",
    "message_id",
    "request_id",
    *fields.USAGE_COLUMNS,
)
AT = {name: at for at, name in enumerate((*TrunkLine._fields, *SIGNAL_NAMES, "inert", "is_copy"))}
# A row's values in the order turn_outcomes.line_of reads them (its `columns()`), but for the text
# and the stamp, which `signal_line` puts in.
BEFORE_TEXT = itemgetter(*(AT[name] for name in ("pk", "uuid", "type", "subtype", "is_prompt")))
TOOLS = itemgetter(*(AT[name] for name in ("tool_name", "tool_use_id", "tool_result_id", "is_error")))
USAGE = itemgetter(*(AT[name] for name in ("message_id", "request_id", "model", *fields.USAGE_COLUMNS)))
PLACE = slice(-2, None)  # offset, index


def columns() -> tuple:
    """A row's columns: TrunkLine's, then SIGNAL_NAMES, whether the line is inert, whether a copy,
    its place (the next chunk starts after it). Its stamp as the database reads it fastest."""
    text = Case(
        # A prompt's whole text (fields.first_prompt); a user line's head; a tool result's can be
        # megabytes, and no reader wants it.
        When(is_prompt=True, then=Unpacked("text")),
        When(type="user", then=Substr(Unpacked("text"), 1, turn_outcomes.HEAD)),
        default=Value(""),
        output_field=TextField(),
    )
    raw = Case(
        When(Q(type="system", subtype="compact_boundary"), then=F("raw")),  # compaction_marks
        When(Q(type="assistant", tool_use_id__isnull=False), then=F("raw")),  # a retry's, an edit's input
        default=Value(b""),
        output_field=BinaryField(),
    )
    named = {"text": text, "ts": stamps.column("ts"), "raw": raw}
    return (
        "id",
        *(named.get(name, name) for name in TrunkLine._fields[1:]),
        *(turn_outcomes.flag(name) if name == "is_error" else name for name in SIGNAL_NAMES),
        turn_outcomes.flag("inert"),
        turn_outcomes.flag("is_copy"),
        "offset",
        "index",
    )


def chunks(trunk: SourceFile, size: int) -> Iterator[list[tuple]]:
    """Every one of the trunk's rows (`columns`) in file order, `size` at a time."""
    return session_inputs.in_file_order(TranscriptEntry.objects.filter(source=trunk), columns(), size)


def trunk_line(row: tuple, parse) -> TrunkLine:
    """The facts' line: a prompt's text only, a compaction's raw line only."""
    values = list(row[: len(TrunkLine._fields)])
    if parse is not None:
        values[AT["ts"]] = parse(values[AT["ts"]])
    if not values[AT["is_prompt"]]:
        values[AT["text"]] = ""  # a user line's head: the signals'
    if values[AT["type"]] != "system":
        values[AT["raw"]] = b""  # a tool call's: the signals'
    return TrunkLine._make(values)


def signal_line(row: tuple, line: TrunkLine) -> signals.Line:
    """The signals' line (turn_outcomes.line_of), its stamp the one `line` parsed already."""
    text = row[AT["text"]]
    if line.is_prompt:
        text = text[: turn_outcomes.PROMPT_CHARS]
    raw = row[AT["raw"]] if line.type == "assistant" else b""  # not a compaction's
    values = (
        *BEFORE_TEXT(row),
        text,
        *TOOLS(row),
        line.ts,
        *USAGE(row),
        raw,
        row[AT["raw_compressed"]],
        *row[PLACE],
    )
    return turn_outcomes.line_of(values)


def read(
    session: Session, trunk: SourceFile | None, *, built: int | None = None
) -> tuple[trunk_facts.TrunkFacts, list[TurnOutcome]]:
    """The trunk's facts, with the parents waiting among its lines up to id `built` (all without
    it), and every conversation turn's outcome row of the session (none without a trunk)."""
    facts = trunk_facts.TrunkFacts()
    waiting = trunk_facts.Waiting(trunk, built)
    outcomes: list[TurnOutcome] = []
    if trunk is not None:
        parse = stamps.reader()

        def conversation() -> Iterator[tuple[int, signals.Line]]:
            for chunk in chunks(trunk, trunk_facts.CHUNK):
                lines = [trunk_line(row, parse) for row in chunk]
                facts.add(lines)
                waiting.add(lines)
                for row, line in zip(chunk, lines, strict=True):
                    if not (row[AT["inert"]] or row[AT["is_copy"]]):
                        yield line.pk, signal_line(row, line)

        lines = conversation()
        outcomes = turn_outcomes.rows_for(session, lines, first_number=0)
        for _ in lines:  # the signals may stop before the last line: the facts read every one
            pass
    facts.waiting_parents = waiting.found()
    return facts, outcomes
