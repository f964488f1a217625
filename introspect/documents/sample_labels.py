"""The bundled sample's relevance labels (sample/labels.py writes them with `labels.label_line`), read
as rows without the checks a person's file goes through (documents/labels.py): every pass of the demo
reads them, and importing pydantic for those checks cost 0.18-0.22 CPU s of every `manage.py ingest`,
a no-op's too. The same rows either way (tests/introspect/documents/test_sample_labels.py)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

import orjson

from introspect.services import LabelRow


def sample_rows(lines: Iterable[bytes]) -> list[LabelRow]:
    """Each label line as its row (blank lines skipped)."""
    rows = []
    for line in lines:
        if not line.strip():
            continue
        fields = orjson.loads(line)
        rows.append(
            LabelRow(
                fire=fields["fire"],
                session=fields["session"],
                turn=fields.get("turn"),
                way=fields["way"],
                project=fields.get("project", ""),
                channel=fields.get("channel", ""),
                ts=stamp(fields.get("ts")),
                fire_score=number(fields.get("fire_score")),
                p_yes=number(fields.get("p_yes")),
                verdict=fields["label"],
                note=fields.get("note", ""),
                labeller=fields["labeller"],
                labelled_at=stamp(fields["labelled_at"]),
                frame=fields.get("frame", ""),
            )
        )
    return rows


def stamp(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def number(value: float | None) -> float | None:
    """A score as the checked reading gives it: a float, also when the line wrote a whole number."""
    return None if value is None else float(value)
