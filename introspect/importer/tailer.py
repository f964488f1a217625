"""Reading complete lines past a checkpoint, and noticing when a file is no longer the same file.

No Django here: the loader decides what to do with a `Chunk`; this module only reads bytes
(importer-reliability.md §3–§6). Rules that keep every line accounted for:
- split on b"\\n" only, and never consume bytes after the last b"\\n" (a torn line is re-read);
- a file whose (dev, inode), size or anchor no longer matches the checkpoint starts a new
  generation read from 0 (truncation, replacement, rewrite in place);
- a line longer than the cap is skipped to its b"\\n" while being hashed, never buffered whole;
- a gzip archive is read by `gzip_tail.GzipTail`, which hands out the same `Chunk`s.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from lib import safefs
from lib.hashing import sha256

ANCHOR_WINDOW = 4096
# Lines per batch (one transaction each). A batch's commit writes every index page its rows
# touched, and the unique line hashes scatter over all of them: 5,000 lines a commit instead of
# 1,000 write the shared pages a fifth as often (a cold import of 524,000 events: see bench/).
BATCH_LINES = 5000
HEAD_KEEP = 1024


@dataclass(frozen=True)
class Checkpoint:
    """Where the last committed batch ended, and how to recognise the same file again."""

    dev: int
    inode: int
    offset: int
    anchor: str
    head_fp: str
    size: int = 0
    mtime_ns: int = 0
    ctime_ns: int = 0
    # gzip, a batch boundary inside a member: `offset` is the member's start, and these lines
    # (these uncompressed bytes, each line's b"\n" included) of it are already committed.
    member_lines: int = 0
    member_bytes: int = 0

    @property
    def position(self) -> tuple[int, int, int]:
        return self.offset, self.member_bytes, self.member_lines


class Line:
    """One complete physical line, without its b"\\n", one trailing b"\\r" and leading NULs.

    A value: never changed once made. A class with slots, not a frozen dataclass: a worker makes a
    million of them in a cold import, and a frozen dataclass's __init__ sets each field through
    object.__setattr__ (a third of what reading a line cost). It equals, hashes and pickles as the
    frozen dataclass did (the state a dict of its fields in their order: the worker's pickles are
    the same bytes)."""

    __slots__ = ("data", "index", "length", "nul_prefix", "offset", "too_long_sha256")

    def __init__(
        self,
        offset: int,
        data: bytes,
        length: int,
        index: int = 0,
        nul_prefix: int = 0,
        too_long_sha256: str = "",  # set when the line exceeded the cap: `data` then holds its first KiB
    ) -> None:
        self.offset = offset
        self.data = data
        self.length = length
        self.index = index
        self.nul_prefix = nul_prefix
        self.too_long_sha256 = too_long_sha256

    @property
    def too_long(self) -> bool:
        return bool(self.too_long_sha256)

    def fields(self) -> tuple:
        return (self.offset, self.data, self.length, self.index, self.nul_prefix, self.too_long_sha256)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.fields() == other.fields()

    def __hash__(self) -> int:
        return hash(self.fields())

    def __repr__(self) -> str:
        return (
            f"Line(offset={self.offset!r}, data={self.data!r}, length={self.length!r}, index={self.index!r}, "
            f"nul_prefix={self.nul_prefix!r}, too_long_sha256={self.too_long_sha256!r})"
        )

    def __getstate__(self) -> dict:
        return {
            "offset": self.offset,
            "data": self.data,
            "length": self.length,
            "index": self.index,
            "nul_prefix": self.nul_prefix,
            "too_long_sha256": self.too_long_sha256,
        }

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            setattr(self, name, value)


@dataclass(frozen=True)
class Damage:
    """A byte range of a gzip archive that did not decode, with the text it gave before failing."""

    offset: int
    length: int
    detail: str
    tail: bytes = b""


@dataclass(frozen=True)
class Chunk:
    lines: list[Line]
    next_offset: int
    new_generation: bool
    dev: int
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int
    anchor: str
    head_fp: str
    at_end: bool
    damage: list[Damage] = field(default_factory=list)
    member_lines: int = 0  # see Checkpoint: the batch stopped inside the member at `next_offset`
    member_bytes: int = 0
    read_to: int = 0  # compressed bytes read so far (progress); `next_offset` stays at a member's start
    # Read and prepared by the worker (importer/prefetch.py): a transcript's, per line of `lines`,
    # (sha256, Parsed whose records are entry_prep.Prepared), None for a line over the cap; an events
    # log's, an event_prep.Sorted of its lines (`lines` then empty). Empty: read in process.
    prepared: tuple = ()

    def checkpoint(self) -> Checkpoint:
        """The checkpoint this chunk leaves once its batch is committed."""
        return Checkpoint(
            dev=self.dev,
            inode=self.inode,
            offset=self.next_offset,
            anchor=self.anchor,
            head_fp=self.head_fp,
            size=self.size,
            mtime_ns=self.mtime_ns,
            ctime_ns=self.ctime_ns,
            member_lines=self.member_lines,
            member_bytes=self.member_bytes,
        )


def anchor_of(fh, offset: int) -> str:
    """sha256 of the (up to) 4 KiB before `offset`: changes when the bytes we already read change."""
    start = max(0, offset - ANCHOR_WINDOW)
    fh.seek(start)
    return sha256(fh.read(offset - start))


def head_fingerprint(fh) -> str:
    """sha256 of the first complete line; '' while the file has none."""
    fh.seek(0)
    head = fh.read(64 * 1024)
    end = head.find(b"\n")
    return sha256(head[:end]) if end >= 0 else ""


def is_same_file(st: os.stat_result, checkpoint: Checkpoint | None, fh) -> bool:
    """False when the file at the path is not the generation the checkpoint describes."""
    if checkpoint is None or checkpoint.position == (0, 0, 0):
        return True  # nothing read yet: there is nothing a different file could make us lose
    if (st.st_dev, st.st_ino) != (checkpoint.dev, checkpoint.inode):
        return False
    if st.st_size < checkpoint.offset:
        return False
    if checkpoint.offset and anchor_of(fh, checkpoint.offset) != checkpoint.anchor:
        return False
    return not (checkpoint.head_fp and head_fingerprint(fh) != checkpoint.head_fp)


def find_rotated(path: Path, checkpoint: Checkpoint) -> Path | None:
    """The checkpoint's file under another name beside `path` (a rename rotation), or None.

    Only a file whose bytes were read (offset > 0) is looked for: its anchor then proves the file
    found is that one, not another that reuses the inode number.
    """
    if not checkpoint.offset:
        return None
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return None
    for entry in entries:
        try:
            if (
                entry.inode() == checkpoint.inode
                and entry.name != path.name
                and entry.is_file(follow_symlinks=False)
                and entry.stat(follow_symlinks=False).st_dev == checkpoint.dev
            ):
                return Path(entry.path)
        except OSError:
            continue
    return None


def unchanged(st: os.stat_result, checkpoint: Checkpoint | None) -> bool:
    """Cheap idle check: same inode, nothing past the offset, mtime and ctime as last seen.

    Anything with a checkpoint's dev, inode, offset, size, mtime_ns and ctime_ns will do (the
    loader's `Generation`, read as value tuples by an idle poll)."""
    return (
        checkpoint is not None
        and (st.st_dev, st.st_ino) == (checkpoint.dev, checkpoint.inode)
        and st.st_size == checkpoint.offset == checkpoint.size
        and st.st_mtime_ns == checkpoint.mtime_ns
        and st.st_ctime_ns == checkpoint.ctime_ns
    )


def clean(raw: bytes) -> tuple[bytes, int]:
    """Drop one trailing CR (CRLF files) and leading NULs (copy-truncate holes); count the NULs."""
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    stripped = raw.lstrip(b"\x00")
    return stripped, len(raw) - len(stripped)


def split_lines(buf: bytes, base: int) -> tuple[list[Line], int]:
    """Complete lines of `buf` (whose first byte is at file offset `base`) and the bytes consumed.

    A line of a plain file is identified by its offset alone (index 0): never by its place in the
    buffer, which depends on where the read started and so on the checkpoint.
    """
    lines: list[Line] = []
    append, find = lines.append, buf.find
    pos = 0
    # `clean` inlined: this loop runs once a line of every file read.
    while (end := find(b"\n", pos)) >= 0:
        data = buf[pos:end]
        if data[-1:] == b"\r":
            data = data[:-1]
        if data[:1] == b"\x00":
            stripped = data.lstrip(b"\x00")
            append(Line(base + pos, stripped, end - pos, 0, len(data) - len(stripped)))
        else:
            append(Line(base + pos, data, end - pos))
        pos = end + 1
    return lines, pos


class Hashed:
    """A line over the cap: hashed as it streams past; only its first KiB is kept."""

    def __init__(self) -> None:
        self.digest = hashlib.sha256()
        self.head = b""
        self.length = 0

    def update(self, part: bytes | bytearray) -> None:
        self.digest.update(part)
        if len(self.head) < HEAD_KEEP:
            self.head += part[: HEAD_KEEP - len(self.head)]
        self.length += len(part)

    def line(self, offset: int, index: int = 0) -> Line:
        data, nuls = clean(self.head)
        return Line(
            offset=offset,
            index=index,
            data=data,
            length=self.length,
            nul_prefix=nuls,
            too_long_sha256=self.digest.hexdigest(),
        )


def read_long_line(fh, start: int, *, max_line: int, block: int = 1 << 20) -> tuple[Line | None, int]:
    """Read the line starting at `start` whatever its length; over `max_line` only hash it.

    Returns (line, offset after its b"\\n"), or (None, start) when it has no b"\\n" yet.
    The b"\\n" is found first and the line then read in one piece, so a 50 MB line is held once,
    never as blocks and their join at the same time.
    """
    fh.seek(start)
    length = 0
    while True:
        piece = fh.read(block)
        if not piece:
            return None, start
        end = piece.find(b"\n")
        if end >= 0:
            length += end
            break
        length += len(piece)
    fh.seek(start)
    if length <= max_line:
        data, nuls = clean(fh.read(length))
        return Line(offset=start, data=data, length=length, nul_prefix=nuls), start + length + 1
    hashed = Hashed()  # too long to keep: hash it, memory stays one block
    while hashed.length < length:
        hashed.update(fh.read(min(block, length - hashed.length)))
    return hashed.line(start), start + length + 1


def open_at(path: Path, checkpoint: Checkpoint | None, *, root: Path | None = None):
    """(file, stat, new generation?, offset to read from), or None when the file is gone.

    The file is opened only inside `root` (default: its own folder) and only when it is a regular
    file (lib/safefs.py); anything else raises `safefs.Refused`.
    """
    try:
        fh = safefs.open_file(root or path.parent, path)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    st = os.fstat(fh.fileno())
    new_generation = not is_same_file(st, checkpoint, fh)
    pos = 0 if new_generation or checkpoint is None else checkpoint.offset
    return fh, st, new_generation, pos


def read_chunk(
    path: Path,
    checkpoint: Checkpoint | None,
    *,
    limit: int = 8 << 20,
    max_lines: int | None = None,
    max_line: int = 64 << 20,
    block: int = 1 << 20,
    root: Path | None = None,
) -> Chunk | None:
    """Complete lines after the checkpoint, up to about `limit` bytes or `max_lines` (default
    BATCH_LINES); None when the file is gone."""
    max_lines = BATCH_LINES if max_lines is None else max_lines
    opened = open_at(path, checkpoint, root=root)
    if opened is None:
        return None
    fh, st, new_generation, pos = opened
    with fh:
        lines: list[Line] = []
        consumed = 0
        at_end = True
        while pos < st.st_size:
            if consumed >= limit or len(lines) >= max_lines:
                at_end = False
                break
            fh.seek(pos)
            buf = fh.read(min(block, st.st_size - pos, max(limit - consumed, 1 << 16)))
            found, used = split_lines(buf, pos)
            if found:
                found = found[: max_lines - len(lines)]
                used = found[-1].offset + found[-1].length + 1 - pos
                lines.extend(found)
                pos += used
                consumed += used
                continue
            if pos + len(buf) >= st.st_size:
                break  # a torn last line: leave it unconsumed, re-read on the next poll
            if lines:
                # A line longer than a block starts a batch of its own: memory then holds one such
                # line and what parsing and storing it take, never that on top of a full batch.
                at_end = False
                break
            line, after = read_long_line(fh, pos, max_line=max_line, block=block)
            if line is None:
                break
            lines.append(line)
            consumed += after - pos
            pos = after
        return Chunk(
            lines=lines,
            next_offset=pos,
            new_generation=new_generation,
            dev=st.st_dev,
            inode=st.st_ino,
            size=st.st_size,
            mtime_ns=st.st_mtime_ns,
            ctime_ns=st.st_ctime_ns,
            anchor=anchor_of(fh, pos) if pos else "",
            head_fp=head_fingerprint(fh),
            at_end=at_end,
        )
