"""How each kind of line-shaped source becomes rows: a registry of stores, one per source kind.

introspect registers its own (events logs, transcripts) in IntrospectConfig.ready, ledger its
majordomus ledger in LedgerConfig.ready; the batch (importer/batch.py) asks for the row's kind.
A store's `build(row, lines, sessions)` turns the (line, record) pairs of `lines` (NewLines)
not yet stored into rows, marks a line "imported" in its `outcomes` once one of its records is new,
and adds the session ids it touched to `sessions`; its `write(row, rows)` inserts them inside the
batch's transaction. A store whose row holds the place of the line it was read from (an event:
source, order_offset, order_index; a transcript entry read as its line's one record: source,
offset, index) puts the line in `placed`, and the batch writes no RawLine row for it
(models.PhysicalLine reads them together); its `write` then returns the placed lines another
importer's rows took first, which get their RawLine row after all (an entry's place is its unique
key: whoever stored it stands for the line, so the transcripts store returns none). A store whose
insert itself tells which rows are new (the events store: ON CONFLICT, event_rows.store_events)
inserts them in `build`, and hands `write` only what follows from them (their secret findings). A
store may bring its own `parse` (bytes of a line → parser.Parsed) where its format is not read as
the generic parser reads JSON (the decision log: serde's rules, rules/decision_records.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from introspect.importer import parser, secret_rows, tailer
from introspect.models import Session, SourceFile
from lib import bulk


def write_rows(row: SourceFile, rows: Any) -> set[tuple[int, int]]:
    """Insert what a store built: typed row tuples (with the secrets found in them), or model instances
    (their conflicts ignored). Places none of its lines (NewLines.placed): nothing lost to return."""
    if isinstance(rows, bulk.Rows):
        bulk.insert_rows(rows)
        if isinstance(rows, secret_rows.ScannedRows) and rows.findings:
            bulk.insert_rows(rows.findings)
    else:
        bulk.insert_ignore(rows, batch_size=200)
    return set()


def json_line(data: bytes) -> parser.Parsed:
    """The generic parser, looked up when a line is read rather than bound at registration, so that
    whoever replaces `parser.parse_line` (the resilience tests' failing parser) replaces it here too."""
    return parser.parse_line(data)


@dataclass
class NewLines:
    """What a batch hands its store: the records not stored yet with the line each came from, each
    record's sha256 (hashed once, for the raw-line rows too), and every line's outcome so far."""

    candidates: list[tuple[tailer.Line, parser.Record]] = field(default_factory=list)
    shas: list[str] = field(default_factory=list)
    outcomes: dict[tuple[int, int], str] = field(default_factory=dict)  # (offset, index) → outcome
    # Lines read as one record of the whole line (its sha256 the line's, no NUL prefix): a row of
    # that record may stand for the line (`placed`).
    whole: set[tuple[int, int]] = field(default_factory=set)
    # Lines whose place the store's new rows hold: no RawLine row of their own.
    placed: set[tuple[int, int]] = field(default_factory=set)
    # RawLine rows (RAW_NAMES, with their source) of places elsewhere a store's row no longer holds.
    vacated: list[tuple] = field(default_factory=list)
    # The records of a chunk its store sorted itself (Store.prepare: event_prep.Sorted.records), in
    # place of `candidates` and `shas`.
    prepared: list[tuple] = field(default_factory=list)


@dataclass(frozen=True)
class Store:
    build: Callable[..., Any]
    write: Callable[[SourceFile, Any], set[tuple[int, int]]] = write_rows
    parse: Callable[[bytes], parser.Parsed] = json_line
    # A chunk's lines → the store's own sorting of them (event_prep.Sorted), as its worker sorts them.
    prepare: Callable[[list[tailer.Line], Callable[[bytes], parser.Parsed]], Any] | None = None


STORES: dict[str, Store] = {}


def register_store(
    kind: str,
    build: Callable[..., Any],
    *,
    write: Callable[[SourceFile, Any], set[tuple[int, int]]] = write_rows,
    parse: Callable[[bytes], parser.Parsed] = json_line,
    prepare: Callable[[list[tailer.Line], Callable[[bytes], parser.Parsed]], Any] | None = None,
) -> None:
    """Let the batch turn the lines of `kind`'s files into rows with `build`, written by `write`,
    each line read by `parse` (or the chunk's lines sorted by `prepare`, in process, as its worker
    does: importer/event_prep.py)."""
    STORES[kind] = Store(build, write, parse, prepare)


def store_for(kind: str) -> Store:
    return STORES[kind]


def ensure_sessions(keys: set[str]) -> dict[str, int]:
    """Session rows for these ids (created bare, filled in by the rebuild); returns id → pk."""
    keys = {key for key in keys if key}
    if not keys:
        return {}
    # Looked up first, created only when missing: nearly every batch after the first few names
    # sessions that exist. Plain rows, not bulk_create: its compilation of each instance cost more
    # than a cold load's event rows themselves (issue 29). Another importer may create one between
    # the look-up and the insert: the unique sid decides, and the second look-up reads its row.
    names = ("sid", Session._meta.pk.attname)
    ids = dict(bulk.select_in(Session, names, "sid", keys))
    if missing := keys - ids.keys():
        bulk.insert_ignore([Session(sid=key) for key in missing])
        ids.update(bulk.select_in(Session, names, "sid", missing))
    return ids
