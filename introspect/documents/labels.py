"""Relevance labels as JSONL (decisions-and-effectiveness.md §8.6): one label per line, in the shape
`{session, turn, way, ts, label, labeller, channel, fire_score, p_yes}` plus what makes the line
whole on its own: `fire` (the way_fired event's sha256, the key), `project`, `note`, `labelled_at`
and `frame` (the sample it was labelled from).

Reading checks every line before anything is written: a file with one bad line is refused whole,
each bad line named by its number and reason, so an import never leaves half a file behind.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from typing import Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from introspect.services import LabelRow

SHA256 = re.compile(r"[0-9a-f]{64}")


class LabelLine(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    fire: str
    session: str
    turn: int | None = Field(default=None, ge=0)
    way: str = Field(min_length=1, max_length=512)
    project: str = ""
    channel: str = Field(default="", max_length=255)
    ts: datetime | None = None
    fire_score: float | None = None
    p_yes: float | None = None
    label: Literal["relevant", "irrelevant", "unsure"]
    note: str = ""
    labeller: str = Field(min_length=1, max_length=150)
    labelled_at: datetime
    frame: str = Field(default="", max_length=1000)

    @field_validator("fire")
    @classmethod
    def fire_is_a_sha256(cls, value: str) -> str:
        if not SHA256.fullmatch(value):
            raise ValueError("fire must be the way_fired event's sha256 (64 lowercase hex digits)")
        return value

    @field_validator("ts", "labelled_at")
    @classmethod
    def aware(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("a time needs its zone (e.g. 2026-11-08T14:07:00Z)")
        return value


def label_line(row: LabelRow) -> bytes:
    """One label as its JSONL line (with the newline)."""
    document = {
        "fire": row.fire,
        "session": row.session,
        "turn": row.turn,
        "way": row.way,
        "project": row.project,
        "channel": row.channel,
        "ts": iso(row.ts),
        "fire_score": row.fire_score,
        "p_yes": row.p_yes,
        "label": row.verdict,
        "note": row.note,
        "labeller": row.labeller,
        "labelled_at": iso(row.labelled_at),
        "frame": row.frame,
    }
    return orjson.dumps(document) + b"\n"


def iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


class BadLines(ValueError):
    """Lines that are not labels; nothing was imported."""

    def __init__(self, problems: list[tuple[int, str]]):
        self.problems = problems
        shown = "; ".join(f"line {number}: {reason}" for number, reason in problems[:10])
        more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
        plural = "s" if len(problems) != 1 else ""
        super().__init__(f"{len(problems)} bad line{plural}, nothing imported: {shown}{more}")


def reason_of(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "line"
    return f"{where}: {first['msg']}"


def read_lines(lines: Iterable[bytes]) -> list[LabelRow]:
    """Every label of a JSONL file, or BadLines naming each line that is not one (blank lines skipped)."""
    rows: list[LabelRow] = []
    problems: list[tuple[int, str]] = []
    seen: dict[tuple[str, str], int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            found = LabelLine.model_validate(orjson.loads(line))
        except orjson.JSONDecodeError as exc:
            problems.append((number, f"not JSON ({exc.msg})"))
            continue
        except ValidationError as exc:
            problems.append((number, reason_of(exc)))
            continue
        key = (found.fire, found.labeller)
        if key in seen:
            problems.append((number, f"the same fire labelled by {found.labeller} again (line {seen[key]})"))
            continue
        seen[key] = number
        fields = found.model_dump()
        fields["verdict"] = fields.pop("label")
        rows.append(LabelRow(**fields))
    if problems:
        raise BadLines(problems)
    return rows
