"""One batch of a file's lines into rows: the rows and the checkpoint move in one transaction.

The checkpoint update is a compare-and-set on the offset the batch started from (inside a gzip
member: the member's start and how far into it), so a crash rolls rows and offset back together
and a second importer can never move an offset backwards (importer-reliability.md §3, §9).
What a line becomes is its kind's store's business (importer/stores.py); here every line gets its
RawLine row with its outcome (but the line whose place a stored event or whole transcript entry
holds: models.PhysicalLine), and what cannot be read its Quarantine row.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import F, Q

from introspect.importer import entry_prep, event_prep, parser, stores, tailer
from introspect.models import PhysicalLine, Quarantine, RawLine, SourceFile
from lib import bulk
from lib.hashing import sha256


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
class BatchResult:
    counts: Counts = field(default_factory=Counts)
    sessions: set[str] = field(default_factory=set)


def committed_lines(row: SourceFile, keys: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """Those of the lines `keys` (offset, index) this generation already holds (a replay).

    The lines of a gzip member share its offset, so they are looked up by index range per member:
    by offset alone one batch would fetch every line of a member a million lines long.
    """
    spans: dict[int, tuple[int, int]] = {}
    for offset, index in keys:
        low, high = spans.get(offset, (index, index))
        spans[offset] = (min(low, index), max(high, index))
    known = PhysicalLine.objects.filter(source=row).values_list("offset", "index")
    single = [o for o, span in spans.items() if span == (0, 0)]
    if row.rel_path.endswith(".gz"):
        seen = set(bulk.chunked_in(known.filter(index=0), "offset", single))
    else:
        # A plain file's line is its offset: rows imported before its index was fixed at 0 hold the
        # line's place in a read buffer instead, and must still be recognised on a replay.
        offsets = PhysicalLine.objects.filter(source=row).values_list("offset", flat=True)
        seen = {(offset, 0) for offset in bulk.chunked_in(offsets, "offset", single)}
    ranged = [Q(offset=o, index__range=span) for o, span in spans.items() if span != (0, 0)]
    for start in range(0, len(ranged), 200):  # three bound parameters each
        seen.update(known.filter(functools.reduce(operator.or_, ranged[start : start + 200])))
    return seen


def may_hold(
    row: SourceFile,
    keys: list[tuple[int, int]],
    expected_offset: int,
    expected_member_bytes: int,
    replay: bool,
) -> bool:
    """Whether this generation may already hold some of the chunk's lines.

    Rows and the checkpoint commit together, so every committed line of a generation lies before
    its committed position: a chunk read from that position on holds none of them (another
    importer that committed meanwhile moved the position, and the compare-and-set refuses this
    batch). Only a replay, or a chunk that starts before the position, needs the lookup.
    """
    if replay or not keys:
        return replay
    offset, index = keys[0]
    if offset > expected_offset:
        return False
    # At the position itself: a plain line, or a member's first line not yet committed.
    past_member = expected_member_bytes == 0 or index >= row.member_lines
    return not (offset == expected_offset and past_member)


RAW_NAMES = ("source_id", "offset", "index", "sha256", "length", "outcome")


@dataclass
class Lines(stores.NewLines):
    """A chunk's lines sorted out: what each became so far, and the records left for the store."""

    counts: Counts = field(default_factory=Counts)
    raw_rows: list[tuple] = field(default_factory=list)  # RAW_NAMES without the source; "" = from `outcomes`
    quarantine: list[Quarantine] = field(default_factory=list)


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
    if expected_member_bytes is None:
        expected_member_bytes = row.member_bytes
    out = BatchResult()
    store = stores.store_for(row.kind)
    if store.prepare is not None and not chunk.prepared:
        # Read in process: sorted here as the worker sorts it (outside the transaction: no database).
        chunk = dataclasses.replace(chunk, lines=[], prepared=store.prepare(chunk.lines, store.parse))
    keys = chunk.prepared.keys if isinstance(chunk.prepared, event_prep.Sorted) else line_keys(chunk)
    with transaction.atomic():
        if may_hold(row, keys, expected_offset, expected_member_bytes, replay):
            seen = committed_lines(row, keys)
        else:
            seen = set()
        if isinstance(chunk.prepared, event_prep.Sorted):
            lines = landed(row, chunk, chunk.prepared, seen)
        else:
            lines = sort_lines(row, chunk, seen, store.parse)
        new_rows = store.build(row, lines, out.sessions)
        # A placed line whose record another importer stored first meanwhile is a copy after all.
        for key in store.write(row, new_rows) or ():
            lines.placed.discard(key)
            lines.outcomes[key] = "duplicate"
        for outcome in lines.outcomes.values():  # one outcome per physical line
            setattr(lines.counts, outcome, getattr(lines.counts, outcome) + 1)
        write_lines(row, lines)
        move_checkpoint(row, chunk, lines.counts, expected_offset, expected_member_bytes, replay)
    out.counts = lines.counts
    return out


def line_keys(chunk: tailer.Chunk) -> list[tuple[int, int]]:
    return [(line.offset, line.index) for line in chunk.lines]


def landed(
    row: SourceFile, chunk: tailer.Chunk, prepared: event_prep.Sorted, seen: set[tuple[int, int]]
) -> Lines:
    """A chunk sorted already (event_prep.Sorted: by the worker, or by its store in process) as
    `sort_lines` leaves it: the lines of a replay counted and dropped, the rest taken as they are."""
    lines = Lines(prepared=prepared.records)
    keys, outcomes, raw, quarantined = prepared.keys, prepared.outcomes, prepared.raw, prepared.quarantined
    if seen:
        kept = [i for i, key in enumerate(keys) if key not in seen]
        keys, outcomes, raw = [keys[i] for i in kept], [outcomes[i] for i in kept], [raw[i] for i in kept]
        lines.prepared = [record for record in prepared.records if record[0] not in seen]
        quarantined = [item for item in quarantined if (item[0].offset, item[0].index) not in seen]
    lines.counts.lines = len(prepared.keys)
    lines.counts.duplicate = len(prepared.keys) - len(keys)  # these very lines were imported before
    lines.outcomes = dict(zip(keys, outcomes, strict=True))
    lines.raw_rows = raw
    lines.quarantine = [
        quarantine_row(row, line, reason, detail, sha=sha) for line, reason, detail, sha in quarantined
    ]
    damaged(row, chunk, lines)
    return lines


def sort_lines(
    row: SourceFile,
    chunk: tailer.Chunk,
    seen: set[tuple[int, int]],
    parse: Callable[[bytes], parser.Parsed] = parser.parse_line,
) -> Lines:
    """Each line of the chunk parsed: a replayed one counted, a too long or unreadable one
    quarantined, the records of the others left for the store (their outcome "duplicate" until
    the store finds one of them new)."""
    lines = Lines()
    counts = lines.counts
    for position, line in enumerate(chunk.lines):
        counts.lines += 1
        key = (line.offset, line.index)
        if key in seen:
            counts.duplicate += 1  # this very line was imported before (a replay)
            continue
        if line.too_long:
            lines.quarantine.append(
                quarantine_row(row, line, "too_long", f"{line.length} bytes", sha=line.too_long_sha256)
            )
            lines.raw_rows.append((line.offset, line.index, line.too_long_sha256, line.length, "quarantined"))
            counts.quarantined += 1
            continue
        if chunk.prepared:
            sha, parsed = chunk.prepared[position]
            shas = [record.sha for record in parsed.records]
        else:
            sha, parsed, shas = entry_prep.read_line(line, parse)
        if parsed.quarantine is not None:
            reason, detail = parsed.quarantine
            lines.quarantine.append(quarantine_row(row, line, reason, detail, sha=sha))
        if parsed.records:
            lines.candidates.extend((line, record) for record in parsed.records)
            lines.shas.extend(shas)
            lines.outcomes[key] = "duplicate"  # until one of its records turns out new
            if len(shas) == 1 and shas[0] == sha and not line.nul_prefix and parsed.quarantine is None:
                lines.whole.add(key)
        else:
            lines.outcomes[key] = "inert" if parsed.inert else "quarantined"
        lines.raw_rows.append((line.offset, line.index, sha, line.length, ""))
    damaged(row, chunk, lines)
    return lines


def damaged(row: SourceFile, chunk: tailer.Chunk, lines: Lines) -> None:
    """The byte ranges of an archive that did not decode, each counted and quarantined as a line."""
    counts = lines.counts
    for damage in chunk.damage:
        counts.lines += 1
        counts.quarantined += 1
        lines.quarantine.append(
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


def write_lines(row: SourceFile, lines: Lines) -> None:
    """Every line's RawLine row, its outcome settled by now, but for the lines a stored row holds the
    place of (with those of places elsewhere such a row left), and the quarantined lines."""
    source_id, outcomes, placed = row.pk, lines.outcomes, lines.placed
    values = [
        (source_id, o, i, h, n, outcome or outcomes[(o, i)])
        for o, i, h, n, outcome in lines.raw_rows
        if (o, i) not in placed
    ]
    bulk.insert_rows(bulk.Rows(RawLine, RAW_NAMES, values + lines.vacated))
    bulk.insert_ignore(lines.quarantine, batch_size=50)


def move_checkpoint(
    row: SourceFile,
    chunk: tailer.Chunk,
    counts: Counts,
    expected_offset: int,
    expected_member_bytes: int,
    replay: bool,
) -> None:
    """Compare-and-set the generation's position to where the chunk ends, and add its counts;
    CheckpointMoved when another importer moved it first (the transaction then rolls back)."""
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
        underived=True,  # with the rows: cleared once their sessions are derived (importer/underived.py)
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
