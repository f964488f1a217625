"""A gzip archive of members read batch after batch, in bounded memory (importer-reliability.md §6).

No Django here. agent-ways appends gzip members to `events-<date>.jsonl.gz`; an archive is inflated
from the file in bounded pieces, never read or inflated whole: memory stays one batch plus the
longest accepted line whatever the member's size, and no member inflates past `BOMB_RATIO` times
the bytes it took (a decompression bomb stops there). A damaged member keeps every line decoded
before the damage. Batches are the tailer's `Chunk`s, so the loader reads both kinds alike.

Why it is long: one job, reading an archive in bounded memory. The member probe, the inflation with
its salvage of a damaged piece and the bomb cap, and the tail that resumes a member between batches
share one invariant (no line lost before the damage, none read twice after a restart) and are
tested as one (tests/introspect/importer/test_gzip_tail.py).
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

from introspect.importer import tailer
from introspect.importer.tailer import (
    Checkpoint,
    Chunk,
    Damage,
    Hashed,
    Line,
    anchor_of,
    clean,
    open_at,
)

GZIP_MAGIC = b"\x1f\x8b\x08"
READ_BLOCK = 1 << 20  # compressed bytes read from an archive at a time
INFLATE_STEP = 1 << 20  # most inflated bytes one zlib call returns, however well the input compressed
# Replaying a failed zlib call: its input is fed again this many bytes at a time, and the piece that
# fails once more one output byte at a time (see `Inflation.salvage`).
SALVAGE_PIECE = 256
# The decompression-bomb cap. Events archives inflate 5-20x (agent-ways writes them at flate2's
# default level, 6) and deflate cannot exceed ~1032x, so a member that has inflated 200x the compressed bytes it
# consumed is not a log. Under the floor a member is never cut: it is what any member may yield
# whatever its ratio, kept small because the cost of a line is paid per line, and 64 KiB of blank
# lines is already 65,536 of them.
BOMB_RATIO = 200
BOMB_FLOOR = 64 << 10
BOMB_DETAIL = (
    f"inflates more than {BOMB_RATIO}× its size: a decompression bomb? the rest of this member was not read"
)


def find_magic(fh, start: int, size: int, *, block: int = READ_BLOCK) -> int:
    """File offset of the first gzip header (`1f 8b 08`) at or after `start`, or -1."""
    pos = start
    while pos < size:
        fh.seek(pos)
        piece = fh.read(min(block, size - pos))
        found = piece.find(GZIP_MAGIC)
        if found >= 0:
            return pos + found
        if pos + len(piece) >= size or len(piece) < len(GZIP_MAGIC):
            return -1
        pos += len(piece) - (len(GZIP_MAGIC) - 1)  # a header may straddle two pieces
    return -1


@dataclass
class Pool:
    """The floor of the bomb cap, shared by the members of one archive as it is read: a member may
    inflate `BOMB_RATIO` times what it consumed, and what it inflates beyond that comes out of the
    pool. Real members stay under the ratio and never draw on it; an archive of a thousand tiny
    bomb members gets the floor once, not once per member."""

    left: int = field(default_factory=lambda: BOMB_FLOOR)  # read when an archive is opened

    def spend(self, inflation: Inflation) -> None:
        beyond = inflation.produced - BOMB_RATIO * inflation.consumed
        self.left = max(0, self.left - max(0, beyond))


class Inflation:
    """One gzip member inflated from the file piece by piece, from `start` up to at most `stop`.

    Every piece of output is at most `step` bytes, whatever the compression ratio. A damaged member
    raises `zlib.error` from `pieces()`, but only after the output decoded before the damage came
    out (with `salvage`). A member inflating more than `BOMB_RATIO` times the compressed bytes it
    consumed (past `BOMB_FLOOR`) stops there, `capped`: the rest of it is never inflated.
    """

    def __init__(
        self,
        fh,
        start: int,
        stop: int,
        *,
        block: int = READ_BLOCK,
        step: int = INFLATE_STEP,
        salvage: bool = True,
        floor: int | None = None,
    ):
        self.fh, self.pos, self.stop, self.block, self.step = fh, start, stop, block, step
        self.inflater = zlib.decompressobj(wbits=31)
        self.salvaging = salvage
        self.floor = BOMB_FLOOR if floor is None else floor  # what the archive's pool has left at this member
        self.consumed = 0  # compressed bytes zlib took, the gzip header included
        self.produced = 0
        self.capped = False

    @property
    def ended(self) -> bool:
        return self.inflater.eof

    @property
    def end(self) -> int:
        """The offset after the member's trailer (once `ended`)."""
        return self.pos - len(self.inflater.unused_data)

    def pieces(self) -> Iterator[bytes]:
        while self.pos < self.stop and not (self.inflater.eof or self.capped):
            self.fh.seek(self.pos)  # the file is shared: anchors and probes seek it too
            data = self.fh.read(min(self.block, self.stop - self.pos))
            if not data:
                return
            self.pos += len(data)
            yield from self.feed(data, finer=self.salvage if self.salvaging else None)

    def room(self) -> int:
        """How many more bytes the bomb cap lets this member inflate (0: it is capped)."""
        return min(self.step, max(self.floor, BOMB_RATIO * self.consumed) - self.produced)

    def inflate(self, data, limit: int) -> bytes:
        """One zlib call; a call that raises leaves the counts as they were."""
        out = self.inflater.decompress(data, limit)
        self.consumed += len(data) - len(self.inflater.unconsumed_tail) - len(self.inflater.unused_data)
        self.produced += len(out)
        return out

    def feed(self, data, *, finer) -> Iterator[bytes]:
        """All the output of `data`, a piece per zlib call, within the bomb cap.

        zlib discards the whole output of a call that fails. So each call starts from a copy of the
        inflater, and when it fails, `finer` replays its input from that copy in smaller calls.
        """
        while not self.inflater.eof:
            limit = self.room()
            if limit <= 0:
                self.capped = True
                return
            before = self.inflater.copy() if finer is not None else None
            try:
                out = self.inflate(data, limit)
            except zlib.error:
                if before is None:
                    raise
                self.inflater = before
                yield from finer(data)
                raise  # the replay fails at the same byte; should it not, the member is still damaged
            data = self.inflater.unconsumed_tail
            if out:
                yield out
            if not (out or data):
                return

    def salvage(self, data) -> Iterator[bytes]:
        """Replay a failed call's input `SALVAGE_PIECE` bytes at a time; the piece failing again, bytewise."""
        with memoryview(data) as view:
            for start in range(0, len(view), SALVAGE_PIECE):
                yield from self.feed(view[start : start + SALVAGE_PIECE], finer=self.trickle)
                if self.inflater.eof or self.capped:
                    return

    def trickle(self, data) -> Iterator[bytes]:
        """Replay one small failed call a byte of input and a byte of output per zlib call.

        zlib then decodes only as far as the bits it was given and stops at each byte it writes, so
        the call that fails writes nothing, or (when one input byte ends a symbol and holds the bad
        bits after it) one byte. Fed whole, the call that writes a member's last b"\n" would go on
        to its trailer and lose that b"\n" to a failed checksum. The output is handed out in pieces
        of up to `step`, not byte by byte.
        """
        out = bytearray()
        try:
            with memoryview(data) as view:
                for at in range(len(view)):
                    rest = view[at : at + 1]
                    while not self.inflater.eof and self.room() > 0:
                        byte = self.inflate(rest, 1)
                        rest = self.inflater.unconsumed_tail
                        out += byte
                        if len(out) >= self.step:
                            yield bytes(out)
                            out.clear()
                        if not (byte or rest):
                            break
        except zlib.error:
            if out:
                yield bytes(out)
            raise
        if out:
            yield bytes(out)


@dataclass(frozen=True)
class Member:
    """A gzip member, and how far to feed it: to its end, or only up to where it is damaged."""

    start: int
    end: int | None  # the offset after its trailer; None when it does not end cleanly
    stop: int  # feed bytes up to here: `end`, else the next gzip header or the end of the file
    error: str = ""


def probe_member(fh, start: int, size: int, floor: int | None = None) -> Member | None:
    """Inflate the member at `start` once, keeping no output, to learn whether and where it ends.

    None: it reaches the end of the file without an error and no gzip header follows, a member
    still being appended (left for the next poll). A member cut off mid-stream runs on into the
    next member's bytes and inflates garbage from them, or fails there; so a damaged member is
    fed only up to the first gzip header after its first byte, and reading resumes there
    (importer-reliability.md §6). Knowing this before emitting a line keeps the member's text
    streamable: no line past that header is ever handed out for a member that turns out damaged.
    A member the bomb cap stops is damaged the same way, without inflating the rest of it.
    """
    probe = Inflation(fh, start, size, salvage=False, floor=floor)
    error = ""
    try:
        for _ in probe.pieces():
            pass
    except zlib.error as exc:
        error = str(exc)
    if probe.capped:
        error = BOMB_DETAIL
    if probe.ended:
        return Member(start, probe.end, probe.end)
    later = find_magic(fh, start + 1, size)
    if not error and later < 0:
        return None
    return Member(start, None, size if later < 0 else later, error or "member cut off before its end")


class GzipTail:
    """A gzip archive of members (agent-ways appends them) read batch after batch, in bounded memory.

    Between `chunk` calls the member being read stays open and inflating, so a batch that stops
    after 1000 lines inside a member hundreds of MB long resumes where it stopped. The checkpoint
    of such a batch is the member's start plus the lines (and uncompressed bytes) of it already
    committed; a new process (after a crash or a restart) inflates the member again from its
    start and skips those. Memory: one batch of lines, one read block, one inflate step and the
    line being assembled; a line longer than `max_line` is hashed, not kept.

    A damaged member (importer-reliability.md §6): its complete lines are imported, the rest is
    reported as `Damage`, and reading resumes at the next gzip header after the member's first
    byte. A decompression bomb is damage too: the lines it gave before the cap are imported, the
    rest of it is never inflated. A member still being written is left for the next poll. Lines keep the identity the
    loader de-duplicates by: `offset` is their member's start and `index` their line number in it.
    """

    def __init__(self, path: Path, *, root: Path | None = None):
        self.path = path
        self.root = root
        self.fh = None
        self.dev = self.inode = 0
        self.offset = 0  # start of the member being read, or of the next one
        self.member: Member | None = None
        self.inflation: Inflation | None = None
        self.pieces: Iterator[bytes] = iter(())
        self.error = ""
        self.lines_done = 0  # lines of the member handed out: the next line's index
        self.bytes_done = 0  # their uncompressed bytes, each b"\n" included
        self.pending = bytearray()  # inflated bytes after the last complete line
        self.hashed: Hashed | None = None  # the line being assembled, once it passed `max_line`
        self.max_line = 64 << 20
        self.pool = Pool()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()
            self.fh = None

    def position(self) -> tuple[int, int, int]:
        if self.member is None:
            return self.offset, 0, 0
        return self.member.start, self.bytes_done, self.lines_done

    def chunk(
        self,
        checkpoint: Checkpoint | None,
        *,
        limit: int = 8 << 20,
        max_lines: int | None = None,
        max_line: int = 64 << 20,
    ) -> Chunk | None:
        """Lines after the checkpoint, up to about `limit` bytes or `max_lines` (default
        tailer.BATCH_LINES); None when the file is gone."""
        max_lines = tailer.BATCH_LINES if max_lines is None else max_lines
        self.max_line = max_line
        new_generation = False
        continues = (
            self.fh is not None
            and checkpoint is not None
            and (checkpoint.dev, checkpoint.inode) == (self.dev, self.inode)
            and checkpoint.position == self.position()
        )
        if not continues:
            new_generation = self.open(checkpoint)
            if self.fh is None:
                return None
        st = os.fstat(self.fh.fileno())
        lines: list[Line] = []
        damage: list[Damage] = []
        produced = 0
        at_end = True
        while not (self.member is None and self.offset >= st.st_size):
            if produced >= limit or len(lines) >= max_lines:
                at_end = False
                break
            if self.member is None:
                if not self.start_member(st.st_size, damage):
                    break  # a trailing member still being appended
                continue
            line = self.next_line()
            if line is None:
                self.finish_member(lines, damage)
                continue
            lines.append(line)
            produced += line.length + 1
        offset, member_bytes, member_lines = self.position()
        return Chunk(
            lines=lines,
            next_offset=offset,
            new_generation=new_generation,
            dev=st.st_dev,
            inode=st.st_ino,
            size=st.st_size,
            mtime_ns=st.st_mtime_ns,
            ctime_ns=st.st_ctime_ns,
            anchor=anchor_of(self.fh, offset) if offset else "",
            head_fp="",
            at_end=at_end,
            damage=damage,
            member_lines=member_lines,
            member_bytes=member_bytes,
            read_to=self.inflation.pos if self.member is not None else offset,
        )

    def open(self, checkpoint: Checkpoint | None) -> bool:
        """Open the file at the checkpoint (`fh` stays None when it is gone); True for a new generation."""
        self.close()
        self.member = None
        self.pool = Pool()  # per open: a pass reading appended members gets the floor again
        opened = open_at(self.path, checkpoint, root=self.root)
        if opened is None:
            return False
        self.fh, st, new_generation, self.offset = opened
        self.dev, self.inode = st.st_dev, st.st_ino
        resumed = (
            checkpoint is None
            or new_generation
            or not checkpoint.member_bytes
            or self.resume(st.st_size, checkpoint)
        )
        if not resumed:
            # The member no longer holds the lines the checkpoint says were committed from it:
            # this is another file under the same inode, read as a new generation.
            self.member, self.offset = None, 0
            new_generation = True
        return new_generation

    def resume(self, size: int, checkpoint: Checkpoint) -> bool:
        """Inflate the checkpoint's member again and skip what was committed; False if it does not fit."""
        member = probe_member(self.fh, checkpoint.offset, size, self.pool.left)
        if member is None:
            return False
        self.begin(member)
        left = checkpoint.member_bytes
        newlines = 0
        last = b""
        while left:
            piece = self.more()
            if not piece:
                return False
            part = piece[:left]
            newlines += part.count(b"\n")
            last = part[-1:]
            left -= len(part)
            self.pending += piece[len(part) :]
        if newlines != checkpoint.member_lines or last != b"\n":
            return False
        self.lines_done, self.bytes_done = checkpoint.member_lines, checkpoint.member_bytes
        return True

    def start_member(self, size: int, damage: list[Damage]) -> bool:
        """Start reading the member at `offset`; False when it is still being appended."""
        self.fh.seek(self.offset)
        magic = self.fh.read(len(GZIP_MAGIC))
        if magic != GZIP_MAGIC:
            if GZIP_MAGIC.startswith(magic):
                return False  # the first bytes of a header: a member being appended
            later = find_magic(self.fh, self.offset + 1, size)
            end = size if later < 0 else later
            damage.append(
                Damage(
                    offset=self.offset, length=end - self.offset, detail="bytes between members are not gzip"
                )
            )
            self.offset = end
            return True
        member = probe_member(self.fh, self.offset, size, self.pool.left)
        if member is None:
            return False
        self.begin(member)
        return True

    def begin(self, member: Member) -> None:
        self.member = member
        self.inflation = Inflation(self.fh, member.start, member.stop, floor=self.pool.left)
        self.pieces = self.inflation.pieces()
        self.error = ""
        self.lines_done = self.bytes_done = 0
        self.pending = bytearray()
        self.hashed = None

    def more(self) -> bytes:
        """The member's next inflated piece; b"" once its output is exhausted (ended or damaged)."""
        try:
            return next(self.pieces, b"")
        except zlib.error as exc:
            self.error = str(exc)
            return b""

    def next_line(self) -> Line | None:
        """The member's next complete line; None when it has no more (its end, or its damage)."""
        pending = self.pending
        end = pending.find(b"\n")
        if end >= 0 and self.hashed is None and end <= self.max_line:
            # Nearly every line: complete in what is inflated, not too long. `emit` and `clean`
            # inlined (this runs once a line of every archive read), the same Line.
            raw = bytes(pending[:end])
            del pending[: end + 1]  # cheap: a bytearray drops its head without moving the rest
            index = self.lines_done
            self.lines_done = index + 1
            self.bytes_done += end + 1
            if raw[-1:] == b"\r" or raw[:1] == b"\x00":
                data, nuls = clean(raw)
                return Line(self.member.start, data, end, index, nuls)
            return Line(self.member.start, raw, end, index)
        scan = 0
        while (end := self.pending.find(b"\n", scan)) < 0:
            if self.hashed is not None:
                self.hashed.update(self.pending)
                self.pending.clear()
            elif len(self.pending) > self.max_line:
                self.hashed = Hashed()  # too long to keep: hash it from here on
                self.hashed.update(self.pending)
                self.pending.clear()
            scan = len(self.pending)
            piece = self.more()
            if not piece:
                return None
            self.pending += piece
        with memoryview(self.pending) as view:
            raw = bytes(view[:end])
        del self.pending[: end + 1]  # cheap: a bytearray drops its head without moving the rest
        return self.emit(raw, ended=True)

    def emit(self, raw: bytes, *, ended: bool) -> Line:
        """The line made of `raw` (plus what was hashed of it); `ended` when a b"\\n" followed it."""
        index = self.lines_done
        if self.hashed is None and len(raw) > self.max_line:
            self.hashed = Hashed()
        if self.hashed is not None:
            self.hashed.update(raw)
            line = self.hashed.line(self.member.start, index)
            self.hashed = None
        else:
            data, nuls = clean(raw)
            line = Line(offset=self.member.start, index=index, data=data, length=len(raw), nul_prefix=nuls)
        self.lines_done += 1
        self.bytes_done += line.length + ended
        return line

    def finish_member(self, lines: list[Line], damage: list[Damage]) -> None:
        """The member's output is exhausted: its last line, or its damage; then on to the next member."""
        member = self.member
        self.pool.spend(self.inflation)
        ended = self.inflation.ended and not self.error
        if ended:
            if self.pending or self.hashed is not None:
                # A member's last line may lack its b"\n": the member is complete, so is the line.
                lines.append(self.emit(bytes(self.pending), ended=False))
            self.offset = self.inflation.end
        else:
            tail = self.hashed.head if self.hashed is not None else bytes(self.pending)
            detail = self.error or (BOMB_DETAIL if self.inflation.capped else member.error)
            damage.append(
                Damage(
                    offset=member.start,
                    length=member.stop - member.start,
                    detail=detail or "member cut off before its end",
                    tail=tail,
                )
            )
            self.offset = member.stop
        self.member = self.inflation = None
        self.pieces = iter(())
        self.pending = bytearray()
        self.hashed = None
