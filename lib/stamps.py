"""A DateTimeField read by the hundred thousand: SQLite's stored text parsed here, not by Django.

Django converts each SQLite datetime it reads through parse_datetime and make_aware, a dozen Python
calls a value (measured: 35 of the 61 CPU s a cold import's derive spent reading a million events'
rows; issue 29). The text SQLite holds is the naive UTC form Django wrote
(`adapt_datetimefield_value`), which `datetime.fromisoformat` reads in C; the column is read as
that text and parsed by `reader()`. PostgreSQL hands back aware datetimes already: there the column
is read as it is and `reader()` is None.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from django.db import connection
from django.db.models import F, TextField
from django.db.models.functions import Cast


def column(name: str) -> F | Cast:
    """The DateTimeField `name` for `values_list`: its stored text on SQLite, else the column."""
    return Cast(name, TextField()) if connection.vendor == "sqlite" else F(name)


def parse(text: str | None) -> datetime | None:
    """A stored SQLite datetime as Django's converter gives it: aware, in UTC when stored naive."""
    if text is None:
        return None
    value = datetime.fromisoformat(text)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


# A naive stored text read as UTC by `fromisoformat` alone, in C: the offset written after it.
AS_UTC = "{}+00:00".format


def parse_all(texts: Sequence[str | None]) -> list[datetime | None]:
    """`parse` of every text, each distinct text parsed once (a log's events share half their
    stamps), without a Python call a text: `fromisoformat` over each text with a UTC offset written
    after it, which is `parse`'s naive text made aware in UTC. A text holding an offset of its own
    (Django writes none) is not read so: then every text is read by `parse`."""
    distinct = list(set(texts) - {None})
    try:
        parsed = dict(zip(distinct, map(datetime.fromisoformat, map(AS_UTC, distinct)), strict=True))
    except ValueError:
        parsed = {text: parse(text) for text in distinct}
    parsed[None] = None
    return list(map(parsed.__getitem__, texts))


def reader() -> Callable[[str | None], datetime | None] | None:
    """What turns a value read through `column` into the datetime (None: it is one already)."""
    return parse if connection.vendor == "sqlite" else None
