"""How each kind of line-shaped source becomes rows: a registry of stores, one per source kind.

introspect registers its own (events logs, transcripts) in IntrospectConfig.ready, ledger its
majordomus ledger in LedgerConfig.ready; the batch (importer/batch.py) asks for the row's kind.
A store's `build(row, candidates, outcomes, sessions, shas=…)` turns the (line, record) pairs
not yet stored into rows, marks a line "imported" in `outcomes` once one of its records is new,
and adds the session ids it touched to `sessions`; its `write(row, rows)` inserts them inside the
batch's transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from introspect.models import Session, SourceFile
from lib import bulk


def write_rows(row: SourceFile, rows: Any) -> None:
    """Insert what a store built: typed row tuples, or model instances (their conflicts ignored)."""
    if isinstance(rows, bulk.Rows):
        bulk.insert_rows(rows)
    else:
        bulk.insert_ignore(rows, batch_size=200)


@dataclass(frozen=True)
class Store:
    build: Callable[..., Any]
    write: Callable[[SourceFile, Any], None] = write_rows


STORES: dict[str, Store] = {}


def register_store(
    kind: str, build: Callable[..., Any], *, write: Callable[[SourceFile, Any], None] = write_rows
) -> None:
    """Let the batch turn the lines of `kind`'s files into rows with `build`, written by `write`."""
    STORES[kind] = Store(build, write)


def store_for(kind: str) -> Store:
    return STORES[kind]


def ensure_sessions(keys: set[str]) -> dict[str, int]:
    """Session rows for these ids (created bare, filled in by the rebuild); returns id → pk."""
    keys = {key for key in keys if key}
    if not keys:
        return {}
    Session.objects.bulk_create([Session(sid=key) for key in keys], ignore_conflicts=True)
    return dict(bulk.chunked_in(Session.objects.values_list("sid", "pk"), "sid", keys))
