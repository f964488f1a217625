"""Chunks of lines into rows: one transaction per batch writes the rows and moves the checkpoint.

The checkpoint update is a compare-and-set on the offset the batch started from (inside a gzip
member: the member's start and how far into it), so a crash rolls rows and offset back together
and a second importer can never move an offset backwards (importer-reliability.md §3, §9).
Events are de-duplicated by the sha256 of their line.
"""

from __future__ import annotations

import contextlib
import functools
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import batched
from typing import NamedTuple

from django.conf import settings
from django.db import connections, router, transaction
from django.db.models import F, Q

from introspect.importer import gzip_tail, parser, schema, spills, tailer, transcripts
from introspect.importer.sources import Source
from introspect.models import Quarantine, RawLine, Session, SourceFile, TranscriptEntry, WaysEvent
from introspect.rules import timestamps
from lib import bulk, fit, linepack, safefs
from lib.hashing import sha256

# Other apps register how their line-shaped sources become rows (ledger: majordomus ledger.jsonl).
STORES: dict[str, Callable] = {}


def register_store(kind: str, store: Callable) -> None:
    STORES[kind] = store


class CheckpointMoved(Exception):
    """Another importer committed past the offset this batch started from."""


@dataclass
class Counts:
    lines: int = 0
    imported: int = 0
    quarantined: int = 0
    inert: int = 0
    duplicate: int = 0

    def add(self, other: Counts) -> None:
        for name in ("lines", "imported", "quarantined", "inert", "duplicate"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class FileResult:
    source: Source
    counts: Counts = field(default_factory=Counts)
    sessions: set[str] = field(default_factory=set)
    status: str = "read"  # read, unchanged, gone, new generation, skipped (see `problem`)
    bytes_read: int = 0
    problem: safefs.Problem | None = None


def checkpoint_of(row: SourceFile) -> tailer.Checkpoint:
    return tailer.Checkpoint(
        dev=row.dev,
        inode=row.inode,
        offset=row.offset,
        anchor=row.anchor,
        head_fp=row.head_fp,
        size=row.size_seen,
        mtime_ns=row.mtime_ns,
        ctime_ns=row.ctime_ns,
        member_lines=row.member_lines,
        member_bytes=row.member_bytes,
    )


def current_generation(source: Source) -> SourceFile | None:
    return (
        SourceFile.objects.filter(host=settings.WAYSWEB_HOST, root=str(source.root), rel_path=source.rel_path)
        .order_by("-generation")
        .first()
    )


class Generation(NamedTuple):
    """What an idle poll reads of a file's newest generation: enough to see it unchanged (its
    fields named as tailer.Checkpoint's, so that tailer.unchanged reads either)."""

    pk: int
    status: str
    offset: int
    dev: int
    inode: int
    size: int  # SourceFile.size_seen
    mtime_ns: int
    ctime_ns: int


GENERATION_COLUMNS = ("pk", "status", "offset", "dev", "inode", "size_seen", "mtime_ns", "ctime_ns")


def current_generations(
    kinds: tuple[str, ...], *, among: list[Source] | None = None
) -> dict[tuple[str, str], Generation]:
    """The newest generation of every file of these kinds, by (root, rel_path), in one query of
    value tuples: an idle pass over thousands of files then costs a stat per file, not a query (or
    a model instance) per file (fault case 28); a file that changed reads its whole row. With
    `among`, only those files' (and any other root's files of the same names: unused, harmless)."""
    newest: dict[tuple[str, str], Generation] = {}
    rows = SourceFile.objects.filter(host=settings.WAYSWEB_HOST, kind__in=kinds).order_by("generation")
    if among is not None:
        rows = rows.filter(rel_path__in={source.rel_path for source in among})
    for root, rel_path, *fields in rows.values_list("root", "rel_path", *GENERATION_COLUMNS):
        newest[(root, rel_path)] = Generation(*fields)
    return newest


def generation_of(row: SourceFile | None) -> Generation | None:
    """A row read whole, as `current_generations` holds it."""
    return None if row is None else Generation(*(getattr(row, name) for name in GENERATION_COLUMNS))


def whole_row(source: Source, generations: dict | None, seen: Generation | None) -> SourceFile | None:
    """The file's newest generation as a model row: queried, or read by the id the poll saw."""
    if generations is None:
        return current_generation(source)
    return None if seen is None else SourceFile.objects.filter(pk=seen.pk).first()


def open_generation(source: Source, previous: SourceFile | None) -> SourceFile:
    """Start reading a file from 0 as a new generation; the old generation's rows stay."""
    with transaction.atomic():
        if previous is not None:
            SourceFile.objects.filter(pk=previous.pk).update(status=SourceFile.Status.SUPERSEDED)
        return SourceFile.objects.create(
            kind=source.kind,
            host=settings.WAYSWEB_HOST,
            root=str(source.root),
            rel_path=source.rel_path,
            rank=source.rank,
            session_key=source.session_key,
            agent_key=source.agent_key,
            generation=(previous.generation + 1) if previous else 1,
        )


def import_file(
    source: Source,
    *,
    ignore_checkpoint: bool = False,
    max_line: int = 64 << 20,
    progress: Callable[[FileResult, int, int], None] | None = None,
    generations: dict[tuple[str, str], Generation | None] | None = None,
) -> FileResult:
    """Import everything complete past the checkpoint of one events-log file.

    `generations` (from `current_generations`) saves the query for the file's newest generation
    while the file is unchanged.
    """
    result = FileResult(source)
    seen = None if generations is None else generations.get((str(source.root), source.rel_path))
    try:
        st = source.path.stat()
    except (FileNotFoundError, NotADirectoryError):
        row = whole_row(source, generations, seen)
        if row is not None and row.status == SourceFile.Status.ACTIVE:
            SourceFile.objects.filter(pk=row.pk).update(status=SourceFile.Status.GONE)
            if row.session_key:
                result.sessions.add(row.session_key)  # its session now says "deleted upstream"
        result.status = "gone"
        return result
    except OSError as exc:
        # Untraversable or unnameable (EACCES, ENAMETOOLONG): not gone, only unreadable now; its
        # rows stay active and the pass goes on with the next file.
        return skipped(result, safefs.Problem(str(source.path), safefs.UNREADABLE, exc.strerror or str(exc)))
    if (
        not ignore_checkpoint
        and seen is not None
        and seen.status == SourceFile.Status.ACTIVE
        and tailer.unchanged(st, seen)
    ):
        result.status = "unchanged"
        return result
    row = whole_row(source, generations, seen)
    if row is not None and row.status == SourceFile.Status.GONE:
        row.status = SourceFile.Status.ACTIVE
        SourceFile.objects.filter(pk=row.pk).update(status=row.status)
    checkpoint = None if row is None or ignore_checkpoint else checkpoint_of(row)
    if tailer.unchanged(st, checkpoint):
        result.status = "unchanged"
        return result
    with contextlib.ExitStack() as stack:
        if source.gzip:
            # One open archive for every batch of this call: the member being read keeps inflating
            # where the last batch stopped instead of being inflated again from its start.
            read = stack.enter_context(gzip_tail.GzipTail(source.path, root=source.read_root)).chunk
        else:
            read = functools.partial(tailer.read_chunk, source.path, root=source.read_root)
        while True:
            try:
                chunk = read(checkpoint, max_line=max_line)
            except safefs.Refused as refused:
                return skipped(result, refused.problem)
            except OSError as exc:
                # One unreadable file (EACCES, EIO) is reported as that file's problem; the batches
                # it committed stand and every other file is still read.
                return skipped(
                    result, safefs.Problem(str(source.path), safefs.UNREADABLE, exc.strerror or str(exc))
                )
            if chunk is None:
                result.status = "gone"
                break
            if row is None or chunk.new_generation:
                # Truncated, replaced or rewritten: the chunk was read from 0 as a new generation.
                if row is not None and checkpoint is not None and not source.gzip:
                    # The renamed copy unreadable or leaving the root: nothing of it to drain.
                    with contextlib.suppress(OSError):
                        drain_rotated(source, row, checkpoint, result, max_line=max_line)
                row = open_generation(source, row)
                result.status = "new generation" if row.generation > 1 else "read"
                checkpoint = None
            start = 0 if checkpoint is None else checkpoint.offset
            batch = load_batch(
                row,
                chunk,
                expected_offset=row.offset,
                expected_member_bytes=row.member_bytes,
                replay=ignore_checkpoint,
            )
            result.counts.add(batch.counts)
            result.sessions |= batch.sessions
            result.bytes_read += chunk.next_offset - start
            row.refresh_from_db()
            checkpoint = chunk.checkpoint()
            if progress is not None:
                progress(result, max(chunk.next_offset, chunk.read_to), chunk.size)
            if chunk.at_end:
                break
    return result


def skipped(result: FileResult, problem: safefs.Problem) -> FileResult:
    result.status, result.problem = "skipped", problem
    return result


def verify_file(source: Source, *, max_line: int = 64 << 20) -> bool:
    """`--verify`: hash every committed line of a plain file again and compare it with its raw row.

    A rewrite that kept the size, the anchor window and the first line (and had its mtime put
    back) is invisible to `stat` (importer-reliability.md §4, fault case 8). When a line differs,
    the generation is closed and a new one opened, so the import that follows reads the file from
    0; returns False then. Memory stays one chunk.
    """
    row = current_generation(source)
    if row is None or source.gzip or row.status != SourceFile.Status.ACTIVE or not row.offset:
        return True
    checkpoint = None
    while True:
        try:
            chunk = tailer.read_chunk(source.path, checkpoint, max_line=max_line, root=source.read_root)
        except OSError:
            return True  # unreadable now: the import that follows reports it
        if chunk is None or chunk.new_generation:
            return True  # gone, or changed in a way the next import notices anyway
        lines = [line for line in chunk.lines if line.offset < row.offset]
        offsets = RawLine.objects.filter(source=row).values_list("offset", "sha256")
        stored = dict(bulk.chunked_in(offsets, "offset", [line.offset for line in lines]))
        if any(stored.get(line.offset) != (line.too_long_sha256 or sha256(line.data)) for line in lines):
            open_generation(source, row)
            return False
        if chunk.at_end or chunk.next_offset >= row.offset:
            return True
        checkpoint = chunk.checkpoint()


def drain_rotated(
    source: Source, row: SourceFile, checkpoint: tailer.Checkpoint, result: FileResult, *, max_line: int
) -> None:
    """importer-reliability.md §3 step 2: the file was renamed away (rename rotation) and its writer
    may still have appended to it; read the old inode under its new name to its end, into its own
    generation, before the file now at the path is read from 0."""
    rotated = tailer.find_rotated(source.path, checkpoint)
    while rotated is not None:
        chunk = tailer.read_chunk(rotated, checkpoint, max_line=max_line, root=source.read_root)
        if chunk is None or chunk.new_generation:
            return  # gone meanwhile, or no longer the bytes we read: nothing of ours to drain
        batch = load_batch(row, chunk, expected_offset=row.offset)
        result.counts.add(batch.counts)
        result.sessions |= batch.sessions
        row.refresh_from_db()
        checkpoint = chunk.checkpoint()
        if chunk.at_end:
            return


@dataclass
class BatchResult:
    counts: Counts = field(default_factory=Counts)
    sessions: set[str] = field(default_factory=set)


def source_position(event: WaysEvent) -> tuple[int, int, int, int]:
    """Where the event sits in its best source: rank, generation, offset, index (its place in event order)."""
    return (event.order_rank, event.order_generation, event.order_offset, event.order_index)


def committed_lines(row: SourceFile, lines: list[tailer.Line]) -> set[tuple[int, int]]:
    """(offset, index) of those of `lines` this generation already holds (a replay).

    The lines of a gzip member share its offset, so they are looked up by index range per member:
    by offset alone one batch would fetch every line of a member a million lines long.
    """
    spans: dict[int, tuple[int, int]] = {}
    for line in lines:
        low, high = spans.get(line.offset, (line.index, line.index))
        spans[line.offset] = (min(low, line.index), max(high, line.index))
    known = RawLine.objects.filter(source=row).values_list("offset", "index")
    single = [o for o, span in spans.items() if span == (0, 0)]
    if row.rel_path.endswith(".gz"):
        seen = set(bulk.chunked_in(known.filter(index=0), "offset", single))
    else:
        # A plain file's line is its offset: rows imported before its index was fixed at 0 hold the
        # line's place in a read buffer instead, and must still be recognised on a replay.
        offsets = RawLine.objects.filter(source=row).values_list("offset", flat=True)
        seen = {(offset, 0) for offset in bulk.chunked_in(offsets, "offset", single)}
    ranged = [Q(offset=o, index__range=span) for o, span in spans.items() if span != (0, 0)]
    for start in range(0, len(ranged), 200):  # three bound parameters each
        seen.update(known.filter(functools.reduce(operator.or_, ranged[start : start + 200])))
    return seen


def may_hold(
    row: SourceFile, chunk: tailer.Chunk, expected_offset: int, expected_member_bytes: int, replay: bool
) -> bool:
    """Whether this generation may already hold some of the chunk's lines.

    Rows and the checkpoint commit together, so every committed line of a generation lies before
    its committed position: a chunk read from that position on holds none of them (another
    importer that committed meanwhile moved the position, and the compare-and-set refuses this
    batch). Only a replay, or a chunk that starts before the position, needs the lookup.
    """
    if replay or not chunk.lines:
        return replay
    first = chunk.lines[0]
    if first.offset > expected_offset:
        return False
    # At the position itself: a plain line, or a member's first line not yet committed.
    past_member = expected_member_bytes == 0 or first.index >= row.member_lines
    return not (first.offset == expected_offset and past_member)


RAW_NAMES = ("source_id", "offset", "index", "sha256", "length", "outcome")


def load_batch(
    row: SourceFile,
    chunk: tailer.Chunk,
    *,
    expected_offset: int,
    expected_member_bytes: int | None = None,
    replay: bool = False,
) -> BatchResult:
    """Write one chunk's rows and advance the checkpoint, all in one transaction.

    The checkpoint is compare-and-set on (`expected_offset`, `expected_member_bytes`, default the
    row's): inside a gzip member the offset stays at the member's start while the member position
    moves. With `replay` (re-reading from 0 with --ignore-checkpoints) the position only ever
    moves forward. Rows are plain tuples, one `executemany` per table (lib/bulk.py).
    """
    out = BatchResult()
    counts = out.counts
    if expected_member_bytes is None:
        expected_member_bytes = row.member_bytes
    with transaction.atomic():
        if may_hold(row, chunk, expected_offset, expected_member_bytes, replay):
            seen = committed_lines(row, chunk.lines)
        else:
            seen = set()
        raw_rows: list[tuple] = []  # RAW_NAMES without the source; the outcome filled in below
        quarantine: list[Quarantine] = []
        candidates: list[tuple[tailer.Line, parser.Record]] = []
        shas: list[str] = []
        outcomes: dict[tuple[int, int], str] = {}
        for line in chunk.lines:
            counts.lines += 1
            key = (line.offset, line.index)
            if key in seen:
                counts.duplicate += 1  # this very line was imported before (a replay)
                continue
            if line.too_long:
                quarantine.append(
                    quarantine_row(row, line, "too_long", f"{line.length} bytes", sha=line.too_long_sha256)
                )
                raw_rows.append((line.offset, line.index, line.too_long_sha256, line.length, "quarantined"))
                counts.quarantined += 1
                continue
            sha = sha256(line.data)  # the line's identity, hashed once: a record of the whole line shares it
            parsed = parser.parse_line(line.data)
            if parsed.quarantine is not None:
                reason, detail = parsed.quarantine
                quarantine.append(quarantine_row(row, line, reason, detail, sha=sha))
            if parsed.records:
                for record in parsed.records:
                    candidates.append((line, record))
                    shas.append(sha if record.data is line.data else sha256(record.data))
                outcomes[key] = "duplicate"  # until one of its records turns out new
            else:
                outcomes[key] = "inert" if parsed.inert else "quarantined"
            raw_rows.append((line.offset, line.index, sha, line.length, ""))
        for damage in chunk.damage:
            counts.lines += 1
            counts.quarantined += 1
            quarantine.append(
                Quarantine(
                    source=row,
                    offset=damage.offset,
                    index=-1,
                    length=damage.length,
                    sha256=sha256(damage.tail),
                    raw=damage.tail[: tailer.HEAD_KEEP] if len(damage.tail) > (1 << 20) else damage.tail,
                    reason="gzip_corrupt",
                    detail=damage.detail,
                    parser_version=parser.PARSER_VERSION,
                )
            )
        store = STORES.get(row.kind)
        if store is not None:
            new_rows = store(row, candidates, outcomes, out.sessions)
        elif row.kind in SourceFile.TRANSCRIPT_KINDS:
            new_rows = store_entries(row, candidates, outcomes, out.sessions, shas=shas)
        else:
            new_rows = store_events(row, candidates, outcomes, out.sessions, shas=shas)
        for outcome in outcomes.values():  # one outcome per physical line
            setattr(counts, outcome, getattr(counts, outcome) + 1)
        source_id = row.pk
        bulk.insert_rows(
            bulk.Rows(
                RawLine,
                RAW_NAMES,
                [(source_id, o, i, h, n, outcome or outcomes[(o, i)]) for o, i, h, n, outcome in raw_rows],
            )
        )
        bulk.insert_ignore(quarantine, batch_size=50)
        if isinstance(new_rows, bulk.Rows) and new_rows.model is TranscriptEntry:
            insert_entries(new_rows)
            spills.place(row, new_rows)  # with their lines, or a kill in between loses them for good
        elif isinstance(new_rows, bulk.Rows):
            bulk.insert_rows(new_rows)
        else:
            bulk.insert_ignore(new_rows, batch_size=200)
        reached = (chunk.next_offset, chunk.member_bytes, chunk.member_lines)
        expected = (expected_offset, expected_member_bytes, row.member_lines)
        new_offset, member_bytes, member_lines = max(reached, expected) if replay else reached
        updated = SourceFile.objects.filter(
            pk=row.pk, offset=expected_offset, member_bytes=expected_member_bytes
        ).update(
            offset=new_offset,
            member_bytes=member_bytes,
            member_lines=member_lines,
            anchor=chunk.anchor if new_offset == chunk.next_offset else row.anchor,
            head_fp=chunk.head_fp or row.head_fp,
            dev=chunk.dev,
            inode=chunk.inode,
            size_seen=chunk.size,
            mtime_ns=chunk.mtime_ns,
            ctime_ns=chunk.ctime_ns,
            lines_seen=F("lines_seen") + counts.lines,
            imported=F("imported") + counts.imported,
            quarantined=F("quarantined") + counts.quarantined,
            inert=F("inert") + counts.inert,
            duplicate=F("duplicate") + counts.duplicate,
        )
        if updated != 1:
            raise CheckpointMoved(
                f"{row.path}: another importer moved the checkpoint from {expected_offset}"
                + (f" (+{expected_member_bytes} bytes into the member)" if expected_member_bytes else "")
            )
    return out


ENTRY_TABLE = TranscriptEntry._meta.db_table
FTS_TABLE = f"{ENTRY_TABLE}_fts"  # SQLite's FTS5 index of entry text (migrations 0005, 0017)
# Inert rows (progress chatter, snapshots) are never indexed, as the update trigger also keeps them out.
FTS_FILL = (
    f"INSERT INTO {FTS_TABLE}(rowid, text, tool_name, type) "
    f"SELECT id, text, tool_name, type FROM {ENTRY_TABLE} WHERE id > %s AND inert = 0"
)


def insert_entries(rows: bulk.Rows) -> None:
    """Write transcript entries and, on SQLite, index their text with one statement per batch.

    The caller's transaction holds SQLite's write lock (IMMEDIATE), so the rows above the largest
    id read here are exactly this batch's new rows (a line already stored is skipped by its
    unique key and never reaches the index twice); rows and index commit or roll back together.
    """
    connection = connections[router.db_for_write(TranscriptEntry)]
    if connection.vendor != "sqlite":
        bulk.insert_rows(rows)  # PostgreSQL: a GIN expression index, kept by the database itself
        return
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT coalesce(max(id), 0) FROM {ENTRY_TABLE}")
        (top,) = cursor.fetchone()
        bulk.insert_rows(rows)
        cursor.execute(FTS_FILL, [top])


def quarantine_row(
    row: SourceFile, line: tailer.Line, reason: str, detail: str, *, sha: str = ""
) -> Quarantine:
    return Quarantine(
        source=row,
        offset=line.offset,
        index=line.index,
        length=line.length,
        sha256=sha or sha256(line.data),
        raw=line.data,
        reason=reason,
        detail=detail[:2000],
        parser_version=parser.PARSER_VERSION,
    )


def ensure_sessions(keys: set[str]) -> dict[str, int]:
    """Session rows for these ids (created bare, filled in by the rebuild); returns id → pk."""
    keys = {key for key in keys if key}
    if not keys:
        return {}
    Session.objects.bulk_create([Session(sid=key) for key in keys], ignore_conflicts=True)
    return dict(bulk.chunked_in(Session.objects.values_list("sid", "pk"), "sid", keys))


EVENT_NAMES = tuple(f.attname for f in WaysEvent._meta.concrete_fields if not f.primary_key)
event_row = operator.itemgetter(*EVENT_NAMES)  # values dict → the row tuple, in EVENT_NAMES order
# What store_events needs of an event already stored (never its raw line).
EVENT_KNOWN = (
    "pk",
    "sha256",
    "source_id",
    "occurrences",
    "order_rank",
    "order_generation",
    "order_offset",
    "order_index",
    "session_key",
)


def store_events(
    row: SourceFile,
    candidates: list[tuple[tailer.Line, parser.Record]],
    outcomes: dict[tuple[int, int], str],
    sessions: set[str],
    *,
    shas: list[str] | None = None,
) -> bulk.Rows:
    """Build new events; for lines already known, count a genuine repeat or keep the lowest order.

    `shas` are the records' sha256 when the caller hashed them already.
    """
    if shas is None:
        shas = [sha256(record.data) for _, record in candidates]
    existing = {
        event.sha256: event
        for event in bulk.chunked_in(WaysEvent.objects.only(*EVENT_KNOWN), "sha256", set(shas))
    }
    fresh: dict[str, dict] = {}  # sha256 → the new event's values, by EVENT_NAMES
    moved: list[WaysEvent] = []
    repeated: list[WaysEvent] = []
    keys: set[str] = set()
    for (line, record), sha in zip(candidates, shas, strict=True):
        new = fresh.get(sha)
        if new is not None:
            # The same bytes twice in this batch of one source: a genuinely repeated line (×N).
            new["occurrences"] += 1
            if new["session_key"]:
                sessions.add(new["session_key"])
            continue
        known = existing.get(sha)
        if known is None:
            values = event_values(row, line, record, sha)
            fresh[sha] = values
            outcomes[(line.offset, line.index)] = "imported"
            if values["session_key"]:
                keys.add(values["session_key"])
            continue
        # The same bytes again: a copy from another source (archive, legacy, rewritten live file)
        # or, inside one source generation, a genuinely repeated line (shown as ×N, never guessed).
        # An event from this very generation was read from it before at another place (a replay of the
        # same place never gets here: committed_lines drops it), so these bytes are in it twice.
        position = (row.rank, row.generation, line.offset, line.index)
        if known.source_id == row.pk:
            known.occurrences += 1
            repeated.append(known)
        elif position < source_position(known):
            known.order_rank, known.order_generation, known.order_offset, known.order_index = position
            moved.append(known)
        if known.session_key:
            sessions.add(known.session_key)
    ids = ensure_sessions(keys)
    sessions |= keys
    changed = list({id(e): e for e in moved + repeated}.values())
    for event in changed:
        WaysEvent.objects.filter(pk=event.pk).update(
            occurrences=event.occurrences,
            order_rank=event.order_rank,
            order_generation=event.order_generation,
            order_offset=event.order_offset,
            order_index=event.order_index,
        )
    # An older event counted again or moved in event order: its session cannot just be extended.
    for keys in batched(sorted({event.session_key for event in changed if event.session_key}), 500):
        Session.objects.filter(sid__in=keys).update(derived_version=0)
    for values in fresh.values():
        values["session_id"] = ids.get(values["session_key"])
    return bulk.Rows(WaysEvent, EVENT_NAMES, [event_row(values) for values in fresh.values()])


def event_values(row: SourceFile, line: tailer.Line, record: parser.Record, sha: str) -> dict:
    """The new event's column values (attname → value) for one events-log record."""
    line_model, flags = schema.validate_event(record.obj)
    all_flags = [*record.flags, *flags]
    if line.nul_prefix:
        all_flags.append(f"nul_prefix={line.nul_prefix}")
    ts = timestamps.utc_second(line_model.ts)
    if line_model.ts is not None and ts is None:
        all_flags.append("ts_invalid")
    elif ts is not None and not timestamps.in_range(ts):
        all_flags.append(timestamps.OUT_OF_RANGE)  # kept and placed by it; never joined by time
    fields = line_model.model_dump(exclude={"ts", "session", "check"})
    fields.update(
        ts_raw=line_model.ts,
        session_key=line_model.session,
        schema_gen=line_model.schema_gen,
        check_id=line_model.check,
    )
    overlong = fit.fit(WaysEvent, fields)
    if "overlong:ts_raw" in overlong:
        ts = None  # the raw line keeps the stamp; the row is placed as a line without one
    fields.update(
        sha256=sha,
        source_id=row.pk,
        occurrences=1,
        order_rank=row.rank,
        order_generation=row.generation,
        order_offset=line.offset,
        order_index=line.index,
        raw=record.data.decode("utf-8", "replace"),
        flags=[*all_flags, *overlong],
        empty_fields=schema.empty_fields(record.obj),
        ts=ts,
        session_id=None,
    )
    return fields


ENTRY_NAMES = tuple(f.attname for f in TranscriptEntry._meta.concrete_fields if not f.primary_key)
entry_row = operator.itemgetter(*ENTRY_NAMES)


def store_entries(
    row: SourceFile,
    candidates: list[tuple[tailer.Line, parser.Record]],
    outcomes: dict[tuple[int, int], str],
    sessions: set[str],
    *,
    shas: list[str] | None = None,
) -> bulk.Rows:
    """Transcript lines as entries: every physical line kept, uuid repeats across files marked."""
    if shas is None:
        shas = [sha256(record.data) for _, record in candidates]
    built: list[tuple[tailer.Line, parser.Record, dict, str, str]] = []
    for (line, record), sha in zip(candidates, shas, strict=True):
        parsed = transcripts.fields_of(record.obj)
        fields = {name: getattr(parsed, name) for name in ENTRY_COLUMNS}
        overlong = fit.fit(TranscriptEntry, fields)
        fields["flags"] = [*record.flags, *parsed.flags, *overlong]
        key = row.session_key or fields["line_session_id"] or ""
        built.append((line, record, fields, key, sha))
    by_key: dict[str, set[str]] = {}
    for _, _, fields, key, _ in built:
        if fields["uuid"]:
            by_key.setdefault(key, set()).add(fields["uuid"])
    known: set[tuple[str, str]] = set()
    for key, uuids in by_key.items():
        # By (session_key, uuid), the index entry_session_uuid: by uuid alone every batch would
        # scan the whole table, a cold import growing with the square of its size.
        others = TranscriptEntry.objects.filter(session_key=key).exclude(source=row)
        known.update(bulk.chunked_in(others.values_list("session_key", "uuid"), "uuid", uuids))
    ids = ensure_sessions({key for *_, key, _ in built})
    sessions |= set(ids)
    keep_inert = settings.WAYSWEB_KEEP_INERT_RAW
    entries: list[tuple] = []
    parts: dict[tuple[int, int], int] = {}
    for line, record, fields, key, sha in built:
        position = (line.offset, line.index)
        part = parts[position] = parts.get(position, -1) + 1  # records recovered from one spliced line
        copy = bool(fields["uuid"]) and (key, fields["uuid"]) in known
        if fields["inert"]:
            outcomes[position] = "inert"
            if not fields["uuid"]:
                continue  # no DAG node to keep: counted only
        elif outcomes.get(position) != "imported":
            outcomes[position] = "duplicate" if copy else "imported"
        data = record.data if (not fields["inert"] or keep_inert) else b""
        if line.nul_prefix:
            fields["flags"].append(f"nul_prefix={line.nul_prefix}")
        packed, compressed = linepack.pack(data)
        fields.update(
            source_id=row.pk,
            offset=line.offset,
            index=line.index + part,
            session_id=ids.get(key),
            session_key=key,
            sha256=sha,
            raw=packed,
            raw_compressed=compressed,
            is_copy=copy,
        )
        entries.append(entry_row(fields))
    return bulk.Rows(TranscriptEntry, ENTRY_NAMES, entries)


ENTRY_COLUMNS = (
    "type",
    "subtype",
    "uuid",
    "parent_uuid",
    "logical_parent_uuid",
    "line_session_id",
    "timestamp_raw",
    "ts",
    "is_sidechain",
    "agent_id",
    "version",
    "cwd",
    "is_meta",
    "is_compact_summary",
    "is_prompt",
    "prompt_id",
    "request_id",
    "message_id",
    "model",
    "hook_event",
    "tool_use_id",
    "tool_name",
    "tool_result_id",
    "is_error",
    "spawned_agent_id",
    "text",
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "ephemeral_5m_input_tokens",
    "ephemeral_1h_input_tokens",
    "speed",
    "has_usage",
    "inert",
)
