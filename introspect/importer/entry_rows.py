"""Claude Code transcript lines as TranscriptEntry rows: the transcripts store (importer/stores.py).

Every physical line is kept (a uuid repeated in another file is marked a copy); on SQLite the
entries' text goes into the full-text index in the same transaction, and the spills a line names
get their placeholders with it.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connections, router

from introspect.importer import entry_prep, line_dictionary, secret_rows, spills, stores, tailer
from introspect.models import SourceFile, TranscriptEntry
from lib import bulk, column_fit, linepack

ENTRY_NAMES = tuple(f.attname for f in TranscriptEntry._meta.concrete_fields if not f.primary_key)
entry_row = operator.itemgetter(*ENTRY_NAMES)


def store_entries(row: SourceFile, lines: stores.NewLines, sessions: set[str]) -> EntryRows:
    """Transcript lines as entries: every physical line kept, uuid repeats across files marked; a line
    read as one whole record is placed (its entry stands for it: models.PhysicalLine).

    Each record is prepared (entry_prep: columns, secrets) unless the worker that read it did so
    already (importer/prefetch.py, which packs it too); what needs the database is done here. A record
    prepared here is packed once the batch is scanned: the dictionary learns from lines as stored."""
    config = prep_config(pack=False)
    built: list[tuple[tailer.Line, entry_prep.Prepared, str]] = []
    for (line, record), sha in zip(lines.candidates, lines.shas, strict=True):
        if not isinstance(record, entry_prep.Prepared):
            record = entry_prep.prepare(line, record, sha, config)
        fields = record.fields
        built.append((line, record, row.session_key or fields["line_session_id"] or ""))
    by_key: dict[str, set[str]] = {}
    for _, record, key in built:
        if record.fields["uuid"]:
            by_key.setdefault(key, set()).add(record.fields["uuid"])
    known: set[tuple[str, str]] = set()
    for key, uuids in by_key.items():
        # By (session_key, uuid), the index entry_session_uuid: by uuid alone every batch would
        # scan the whole table, a cold import growing with the square of its size.
        others = TranscriptEntry.objects.filter(session_key=key).exclude(source=row)
        known.update(bulk.chunked_in(others.values_list("session_key", "uuid"), "uuid", uuids))
    ids = stores.ensure_sessions({key for *_, key in built})
    sessions |= set(ids)
    outcomes, whole, placed = lines.outcomes, lines.whole, lines.placed
    kept: list[tuple[dict, entry_prep.Prepared, bytes, str | bytes | None]] = []
    scan = secret_rows.LineScan()
    parts: dict[tuple[int, int], int] = {}
    for line, record, key in built:
        fields = record.fields
        position = (line.offset, line.index)
        part = parts[position] = parts.get(position, -1) + 1  # records recovered from one spliced line
        copy = bool(fields["uuid"]) and (key, fields["uuid"]) in known
        if fields["inert"]:
            outcomes[position] = "inert"
            if not fields["uuid"]:
                continue  # no DAG node to keep: counted only
        elif outcomes.get(position) != "imported":
            outcomes[position] = "duplicate" if copy else "imported"
        if position in whole:
            # Its one record's row stands for the line (models.PhysicalLine, which reads the outcome
            # given here from the row): no RawLine row beside it.
            placed.add(position)
        data, text = record.data, fields["text"]
        if record.found:
            place = (row.pk, line.offset, line.index + part, ids.get(key))
            data = scan.found(record.data, record.found, fields, place)
        # The text as the worker packed it, unless masked since.
        packed_text = record.text if fields["text"] is text else None
        fields.update(
            source_id=row.pk,
            offset=line.offset,
            index=line.index + part,
            session_id=ids.get(key),
            session_key=key,
            sha256=record.sha,
            is_copy=copy,
        )
        kept.append((fields, record, data, packed_text))
    # The worker packed with the dictionary it was given, which is this one (run.prefetch_for).
    learn = [(data, fields["has_secret"]) for fields, record, data, _ in kept if record.packed is None]
    dictionary = line_dictionary.TRAINER.for_batch(learn)
    pack_text = linepack.pack_text if packs_text() else str
    entries: list[tuple] = []
    texts: list[str] = []
    for fields, record, data, packed_text in kept:
        if record.packed is None or data is not record.data:  # prepared here, or masked (team mode)
            fields["raw"], fields["raw_compressed"] = linepack.pack(data, dictionary)
        else:
            fields["raw"], fields["raw_compressed"] = record.packed, record.compressed
        text = fields["text"]
        texts.append(text)
        fields["text"] = pack_text(text) if packed_text is None else packed_text
        entries.append(entry_row(fields))
    return EntryRows(TranscriptEntry, ENTRY_NAMES, entries, READY, findings=scan.rows(), texts=texts)


@dataclass
class EntryRows(secret_rows.ScannedRows):
    """A batch's entries, their text column as stored (packed on SQLite: READY), and each one's text
    as read (`texts`, in the order of `values`): what the full-text index and the spills are given."""

    texts: list[str] = field(default_factory=list)


READY = frozenset({"text"})


def packs_text() -> bool:
    """Whether the database stores a long text packed (lib/packed_text.py: SQLite)."""
    return connections[router.db_for_write(TranscriptEntry)].vendor == "sqlite"


def prep_config(*, pack: bool = True, dictionary: linepack.Dictionary | None = None) -> entry_prep.Config:
    """What preparing an entry reads of the settings and the model, as values a worker can be given."""
    return entry_prep.Config(
        bounds=column_fit.bounded(TranscriptEntry),
        keep_inert=settings.WAYSWEB_KEEP_INERT_RAW,
        scan=settings.WAYSWEB_SECRET_SCAN,
        pack=pack,
        dictionary=dictionary,
        pack_text=pack and packs_text(),
    )


ENTRY_TABLE = TranscriptEntry._meta.db_table
FTS_TABLE = f"{ENTRY_TABLE}_fts"  # SQLite's FTS5 index of entry text (migrations 0005, 0017, 0034)
# The rows this batch added (ids above the largest before it) that the index holds: inert rows
# (progress chatter, snapshots) never are, as the update trigger also keeps them out.
NEW_INDEXED = f'SELECT id, "offset", "index" FROM {ENTRY_TABLE} WHERE id > %s AND inert = 0 ORDER BY id'
FTS_ROW = f"INSERT INTO {FTS_TABLE}(rowid, text, tool_name, type) VALUES (%s, %s, %s, %s)"
INDEXED = operator.itemgetter(*(ENTRY_NAMES.index(name) for name in ("tool_name", "type")))
POSITION = operator.itemgetter(*(ENTRY_NAMES.index(name) for name in ("offset", "index")))


def insert_entries(rows: EntryRows) -> None:
    """Write transcript entries and, on SQLite, index their text with one statement per batch.

    The caller's transaction holds SQLite's write lock (IMMEDIATE), so the rows above the largest
    id read here are exactly this batch's new rows (a line already stored is skipped by its
    unique key and never reaches the index twice); rows and index commit or roll back together.
    The index is given the batch's own texts, the very ones its rows store: reading them back
    through the content view would unpack each text again (entry_text()), for nothing.
    """
    connection = connections[router.db_for_write(TranscriptEntry)]
    if connection.vendor != "sqlite":
        bulk.insert_rows(rows)  # PostgreSQL: a GIN expression index, kept by the database itself
        return
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT coalesce(max(id), 0) FROM {ENTRY_TABLE}")
        (top,) = cursor.fetchone()
        bulk.insert_rows(rows)
        cursor.execute(NEW_INDEXED, [top])
        added = cursor.fetchall()
        if not added:
            return
        # Within a batch a position is one row's: the first, as ON CONFLICT DO NOTHING keeps it.
        indexed: dict[tuple[int, int], tuple] = {}
        for values, text in zip(rows.values, rows.texts, strict=True):
            indexed.setdefault(POSITION(values), (text, *INDEXED(values)))
        cursor.executemany(FTS_ROW, [(pk, *indexed[(offset, index)]) for pk, offset, index in added])


def write_entries(row: SourceFile, rows: EntryRows) -> None:
    """The entries and their index, and the placeholders of the spills they name: with their lines,
    or a kill in between loses them for good."""
    insert_entries(rows)
    if isinstance(rows, secret_rows.ScannedRows) and rows.findings:
        bulk.insert_rows(rows.findings)
    spills.place(row, rows)
