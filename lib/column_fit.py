"""Values longer than their typed column: the column is left empty and the row flagged.

PostgreSQL refuses a value longer than its `varchar(n)` and fails the whole batch with it, so
one 65-character `scope` would stop every later pass; SQLite would store it. Both backends must
keep the same rows, and no input may stop the importer: the value stays in the row's raw line
(events, transcript entries, majordomus lines) or file content (documents), the typed column is
emptied (NULL where the column allows it) and the row carries `overlong:<field>`.
"""

from __future__ import annotations

import operator
from collections.abc import MutableMapping
from functools import cache
from typing import NamedTuple

from django.db import models


@cache
def limits(model: type[models.Model]) -> dict[str, tuple[int, bool]]:
    """attname → (max_length, null) for every bounded character column of `model`."""
    return {
        field.attname: (field.max_length, field.null)
        for field in model._meta.concrete_fields
        if isinstance(field, models.CharField) and field.max_length
    }


class Bounds(NamedTuple):
    """A model's bounded character columns as plain values: what `fit_to` needs, picklable, so that a
    process without Django's app registry (importer/prefetch.py) fits values as the model would."""

    names: tuple[str, ...]
    lengths: tuple[int, ...]
    nullable: tuple[bool, ...]


@cache
def bounded(model: type[models.Model]) -> Bounds:
    """The bounded character columns of `model`, their lengths and whether each may be NULL."""
    bounds = limits(model)
    return Bounds(
        tuple(bounds),
        tuple(length for length, _ in bounds.values()),
        tuple(null for _, null in bounds.values()),
    )


def fit(model: type[models.Model], values: MutableMapping[str, object]) -> list[str]:
    """Empty the values of `values` (attname → value) too long for `model`'s columns, in place;
    returns their flags (`overlong:<field>`)."""
    return fit_to(bounded(model), values)


def fit_to(bounds: Bounds, values: MutableMapping[str, object]) -> list[str]:
    """`fit` against a model's `bounded` columns."""
    names, lengths, nullable = bounds
    # The importer calls this for every line, and nearly every line fits: one pass over the bounded
    # columns' values in C-level loops says so, and only a line that does not fit is looked at again.
    sizes = [len(value) if isinstance(value, str) else 0 for value in map(values.get, names)]
    if not any(map(operator.gt, sizes, lengths)):
        return []
    flags = []
    for name, size, length, null in zip(names, sizes, lengths, nullable, strict=True):
        if size > length:
            values[name] = None if null else ""
            flags.append(f"overlong:{name}")
    return flags


def fit_instance(obj: models.Model) -> list[str]:
    """`fit` on a model instance's own attributes."""
    bounds = limits(type(obj))
    flags = []
    for name, (length, null) in bounds.items():
        value = getattr(obj, name, None)
        if isinstance(value, str) and len(value) > length:
            setattr(obj, name, None if null else "")
            flags.append(f"overlong:{name}")
    return flags


def cut(value: str, model: type[models.Model], name: str) -> str:
    """A display-only column (a title, a name): keep what fits instead of nothing."""
    length = limits(model)[name][0]
    return value if len(value) <= length else value[: length - 1] + "…"
