"""The files of a pass, each read past its checkpoint one chunk at a time into its generation.

A file's generation (a SourceFile row) is what has been read of one inode from offset 0: a file
truncated, replaced or rewritten starts a new one, a file renamed away is drained first
(importer-reliability.md §3, §4). Each chunk is one batch (importer/batch.py), where the rows and
the checkpoint move together.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from django.conf import settings
from django.db import transaction

from introspect.importer import batch, gzip_tail, tailer
from introspect.importer.discovery import Source
from introspect.importer.prefetch import Prefetch
from introspect.models import PhysicalLine, SourceFile
from lib import bulk, safefs
from lib.hashing import sha256

Reader = Callable[..., tailer.Chunk | None]


@dataclass
class FileResult:
    source: Source
    counts: batch.Counts = field(default_factory=batch.Counts)
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
    prefetch: Prefetch | None = None,
) -> FileResult:
    """Import everything complete past the checkpoint of one events-log file.

    `generations` (from `current_generations`) saves the query for the file's newest generation
    while the file is unchanged. `prefetch`: the pass's worker, which may have read and prepared
    the file's chunks ahead (importer/prefetch.py).
    """
    result = FileResult(source)
    seen = None if generations is None else generations.get((str(source.root), source.rel_path))
    try:
        st = source.path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return gone(result, whole_row(source, generations, seen))
    except OSError as exc:
        # Untraversable or unnameable (EACCES, ENAMETOOLONG): not gone, only unreadable now; its
        # rows stay active and the pass goes on with the next file.
        return skipped(result, unreadable(source, exc))
    if (
        not ignore_checkpoint
        and seen is not None
        and seen.status == SourceFile.Status.ACTIVE
        and tailer.unchanged(st, seen)
    ):
        result.status = "unchanged"
        return result
    row = back_again(whole_row(source, generations, seen))
    checkpoint = None if row is None or ignore_checkpoint else checkpoint_of(row)
    if tailer.unchanged(st, checkpoint):
        result.status = "unchanged"
        return result
    with contextlib.ExitStack() as stack:
        read = reader(source, stack, prefetch)
        return read_past(
            source,
            row,
            checkpoint,
            read,
            result,
            replay=ignore_checkpoint,
            max_line=max_line,
            progress=progress,
        )


def gone(result: FileResult, row: SourceFile | None) -> FileResult:
    """The file is no longer there: its active generation says so, its rows stay."""
    if row is not None and row.status == SourceFile.Status.ACTIVE:
        SourceFile.objects.filter(pk=row.pk).update(status=SourceFile.Status.GONE)
        if row.session_key:
            result.sessions.add(row.session_key)  # its session now says "deleted upstream"
    result.status = "gone"
    return result


def back_again(row: SourceFile | None) -> SourceFile | None:
    """A generation marked gone whose file is there again is active again."""
    if row is not None and row.status == SourceFile.Status.GONE:
        row.status = SourceFile.Status.ACTIVE
        SourceFile.objects.filter(pk=row.pk).update(status=row.status)
    return row


def reader(source: Source, stack: contextlib.ExitStack, prefetch: Prefetch | None = None) -> Reader:
    """`read(checkpoint, max_line=…)`: the file's next chunk past `checkpoint`."""
    if source.gzip:
        # One open archive for every batch of this call: the member being read keeps inflating
        # where the last batch stopped instead of being inflated again from its start.
        read = stack.enter_context(gzip_tail.GzipTail(source.path, root=source.read_root)).chunk
    else:
        read = functools.partial(tailer.read_chunk, source.path, root=source.read_root)
    if prefetch is None:
        return read

    def ahead(checkpoint: tailer.Checkpoint | None, *, max_line: int) -> tailer.Chunk | None:
        taken = prefetch.take(source.path, source.read_root, checkpoint)
        return taken if taken is not None else read(checkpoint, max_line=max_line)

    return ahead


def read_past(
    source: Source,
    row: SourceFile | None,
    checkpoint: tailer.Checkpoint | None,
    read: Reader,
    result: FileResult,
    *,
    replay: bool,
    max_line: int,
    progress: Callable[[FileResult, int, int], None] | None,
) -> FileResult:
    """Read the file from `checkpoint` to its end, each chunk one batch of `row`'s generation (a
    new generation opened when there is none yet or the file changed under it)."""
    while True:
        try:
            chunk = read(checkpoint, max_line=max_line)
        except safefs.Refused as refused:
            return skipped(result, refused.problem)
        except OSError as exc:
            # One unreadable file (EACCES, EIO) is reported as that file's problem; the batches
            # it committed stand and every other file is still read.
            return skipped(result, unreadable(source, exc))
        if chunk is None:
            result.status = "gone"
            return result
        if row is None or chunk.new_generation:
            row = next_generation(source, row, checkpoint, result, max_line=max_line)
            checkpoint = None
        start = 0 if checkpoint is None else checkpoint.offset
        land(row, chunk, result, replay=replay)
        result.bytes_read += chunk.next_offset - start
        checkpoint = chunk.checkpoint()
        if progress is not None:
            progress(result, max(chunk.next_offset, chunk.read_to), chunk.size)
        if chunk.at_end:
            return result


def next_generation(
    source: Source,
    row: SourceFile | None,
    checkpoint: tailer.Checkpoint | None,
    result: FileResult,
    *,
    max_line: int,
) -> SourceFile:
    """Truncated, replaced or rewritten: the chunk was read from 0 as a new generation."""
    if row is not None and checkpoint is not None and not source.gzip:
        # The renamed copy unreadable or leaving the root: nothing of it to drain.
        with contextlib.suppress(OSError):
            drain_rotated(source, row, checkpoint, result, max_line=max_line)
    row = open_generation(source, row)
    result.status = "new generation" if row.generation > 1 else "read"
    return row


def land(row: SourceFile, chunk: tailer.Chunk, result: FileResult, *, replay: bool = False) -> None:
    """One chunk as one batch of `row`'s generation, added to the file's result; `row` re-read
    for the position the batch committed."""
    out = batch.load_batch(
        row, chunk, expected_offset=row.offset, expected_member_bytes=row.member_bytes, replay=replay
    )
    result.counts.add(out.counts)
    result.sessions |= out.sessions
    row.refresh_from_db()


def unreadable(source: Source, exc: OSError) -> safefs.Problem:
    return safefs.Problem(str(source.path), safefs.UNREADABLE, exc.strerror or str(exc))


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
        offsets = PhysicalLine.objects.filter(source=row).values_list("offset", "sha256")
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
        land(row, chunk, result)
        checkpoint = chunk.checkpoint()
        if chunk.at_end:
            return
