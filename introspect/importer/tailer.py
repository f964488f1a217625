"""Reading complete lines past a checkpoint, and noticing when a file is no longer the same file.

No Django here: the loader decides what to do with a `Chunk`; this module only reads bytes
(importer-reliability.md §3–§6). Rules that keep every line accounted for:
- split on b"\\n" only, and never consume bytes after the last b"\\n" (a torn line is re-read);
- a file whose (dev, inode), size or anchor no longer matches the checkpoint starts a new
  generation read from 0 (truncation, replacement, rewrite in place);
- a line longer than the cap is skipped to its b"\\n" while being hashed, never buffered whole.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from dataclasses import dataclass, field
from pathlib import Path

ANCHOR_WINDOW = 4096
HEAD_KEEP = 1024
GZIP_MAGIC = b"\x1f\x8b\x08"


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


@dataclass(frozen=True)
class Line:
    """One complete physical line, without its b"\\n", one trailing b"\\r" and leading NULs."""

    offset: int
    data: bytes
    length: int
    index: int = 0
    nul_prefix: int = 0
    too_long_sha256: str = ""  # set when the line exceeded the cap: `data` then holds its first KiB

    @property
    def too_long(self) -> bool:
        return bool(self.too_long_sha256)


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


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


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
    if checkpoint is None or checkpoint.offset == 0:
        return True  # nothing read yet: there is nothing a different file could make us lose
    if (st.st_dev, st.st_ino) != (checkpoint.dev, checkpoint.inode):
        return False
    if st.st_size < checkpoint.offset:
        return False
    if checkpoint.offset and anchor_of(fh, checkpoint.offset) != checkpoint.anchor:
        return False
    return not (checkpoint.head_fp and head_fingerprint(fh) != checkpoint.head_fp)


def unchanged(st: os.stat_result, checkpoint: Checkpoint | None) -> bool:
    """Cheap idle check: same inode, nothing past the offset, mtime and ctime as last seen."""
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


def split_lines(buf: bytes, base: int, *, index_from: int = 0, indexed: bool = False) -> tuple[list[Line], int]:
    """Complete lines of `buf` (whose first byte is at file offset `base`) and the bytes consumed."""
    lines: list[Line] = []
    pos = 0
    index = index_from
    while True:
        end = buf.find(b"\n", pos)
        if end < 0:
            return lines, pos
        data, nuls = clean(buf[pos:end])
        lines.append(Line(offset=base if indexed else base + pos, index=index, data=data, length=end - pos,
                          nul_prefix=nuls))
        index += 1
        pos = end + 1


def read_long_line(fh, start: int, *, max_line: int, block: int = 1 << 20) -> tuple[Line | None, int]:
    """Read the line starting at `start` whatever its length; over `max_line` only hash it.

    Returns (line, offset after its b"\\n"), or (None, start) when it has no b"\\n" yet.
    """
    pieces: list[bytes] = []
    digest = None
    head = b""
    length = 0
    fh.seek(start)
    while True:
        piece = fh.read(block)
        if not piece:
            return None, start
        end = piece.find(b"\n")
        part = piece if end < 0 else piece[:end]
        length += len(part)
        if digest is None and length > max_line:
            # Too long to keep: from here on hash, never buffer (memory stays bounded).
            whole = b"".join(pieces)
            head = (whole + part)[:HEAD_KEEP]
            digest = hashlib.sha256(whole)
            pieces = []
        if digest is None:
            pieces.append(part)
        else:
            digest.update(part)
        if end >= 0:
            break
    if digest is None:
        data, nuls = clean(b"".join(pieces))
        return Line(offset=start, data=data, length=length, nul_prefix=nuls), start + length + 1
    data, nuls = clean(head)
    return (Line(offset=start, data=data, length=length, nul_prefix=nuls, too_long_sha256=digest.hexdigest()),
            start + length + 1)


def open_at(path: Path, checkpoint: Checkpoint | None):
    """(file, stat, new generation?, offset to read from), or None when the file is gone."""
    try:
        fh = open(path, "rb")
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    st = os.fstat(fh.fileno())
    new_generation = not is_same_file(st, checkpoint, fh)
    pos = 0 if new_generation or checkpoint is None else checkpoint.offset
    return fh, st, new_generation, pos


def read_chunk(path: Path, checkpoint: Checkpoint | None, *, limit: int = 8 << 20, max_lines: int = 1000,
               max_line: int = 64 << 20, block: int = 1 << 20) -> Chunk | None:
    """Complete lines after the checkpoint, up to about `limit` bytes; None when the file is gone."""
    opened = open_at(path, checkpoint)
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
            line, after = read_long_line(fh, pos, max_line=max_line, block=block)
            if line is None:
                break
            lines.append(line)
            consumed += after - pos
            pos = after
        return Chunk(lines=lines, next_offset=pos, new_generation=new_generation, dev=st.st_dev,
                     inode=st.st_ino, size=st.st_size, mtime_ns=st.st_mtime_ns, ctime_ns=st.st_ctime_ns,
                     anchor=anchor_of(fh, pos) if pos else "", head_fp=head_fingerprint(fh), at_end=at_end)


def decode_member(data: bytes, start: int, *, step: int = 1 << 16) -> tuple[bytes, int | None, str]:
    """Inflate the gzip member at data[start:], in small pieces so output before damage is kept.

    Returns (text, end offset or None when the member did not end, error message or "").
    A member cut off mid-stream runs on into the next member's bytes and inflates garbage from
    them; so when it does not end cleanly, only the text inflated from bytes before the next gzip
    header is returned.
    """
    inflater = zlib.decompressobj(wbits=31)
    out = bytearray()
    next_header = data.find(GZIP_MAGIC, start + 1)
    before_header: int | None = None
    pos = start
    error = ""
    try:
        while pos < len(data):
            stop = min(pos + step, len(data))
            if before_header is None and next_header >= 0:
                stop = min(stop, next_header) if pos < next_header else stop
            piece = data[pos:stop]
            out += inflater.decompress(piece)
            if inflater.eof:
                return bytes(out), stop - len(inflater.unused_data), ""
            pos = stop
            if before_header is None and pos == next_header:
                before_header = len(out)
    except zlib.error as exc:
        error = str(exc)
    keep = len(out) if before_header is None else before_header
    return bytes(out[:keep]), None, error


def read_gzip_chunk(path: Path, checkpoint: Checkpoint | None, *, limit: int = 8 << 20,
                    max_lines: int = 1000) -> Chunk | None:
    """Lines of the complete gzip members after the checkpoint (agent-ways appends members).

    A damaged member (importer-reliability.md §6): its complete lines are imported, the rest is
    reported as `Damage`, and reading resumes at the next gzip header after the member's first
    byte. A member still being written (it reaches the end of the file with no later header) is
    left for the next poll.
    """
    opened = open_at(path, checkpoint)
    if opened is None:
        return None
    fh, st, new_generation, pos = opened
    with fh:
        fh.seek(pos)
        data = fh.read()
        base = pos
        lines: list[Line] = []
        damage: list[Damage] = []
        produced = 0
        at_end = True
        while pos - base < len(data):
            if produced >= limit or len(lines) >= max_lines:
                at_end = False
                break
            rel = pos - base
            if not data.startswith(GZIP_MAGIC, rel):
                nxt = data.find(GZIP_MAGIC, rel + 1)
                end = len(data) if nxt < 0 else nxt
                damage.append(Damage(offset=pos, length=end - rel, detail="bytes between members are not gzip"))
                pos = base + end
                continue
            text, end, error = decode_member(data, rel)
            if end is not None:
                found, used = split_lines(text, pos, indexed=True)
                if used < len(text):  # a member's last line may lack its b"\n": the member is complete
                    data_, nuls = clean(text[used:])
                    found.append(Line(offset=pos, index=len(found), data=data_, length=len(text) - used,
                                      nul_prefix=nuls))
                lines.extend(found)
                produced += len(text)
                pos = base + end
                continue
            later = data.find(GZIP_MAGIC, rel + 1)
            if not error and later < 0:
                break  # trailing member still being appended
            found, used = split_lines(text, pos, indexed=True)
            lines.extend(found)
            stop = len(data) if later < 0 else later
            damage.append(Damage(offset=pos, length=stop - rel, detail=error or "member cut off before its end",
                                 tail=text[used:]))
            produced += len(text)
            pos = base + stop
        return Chunk(lines=lines, next_offset=pos, new_generation=new_generation, dev=st.st_dev,
                     inode=st.st_ino, size=st.st_size, mtime_ns=st.st_mtime_ns, ctime_ns=st.st_ctime_ns,
                     anchor=anchor_of(fh, pos) if pos else "", head_fp="", at_end=at_end, damage=damage)
