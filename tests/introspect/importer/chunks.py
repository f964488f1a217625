"""Helpers the tailer and gzip tail tests share: numbered lines, and reading a file to its end."""

from __future__ import annotations

from introspect.importer import tailer


def checkpoint_after(chunk: tailer.Chunk) -> tailer.Checkpoint:
    return chunk.checkpoint()


def numbered(count: int, *, start: int = 0) -> list[bytes]:
    return [b'{"i":%d}\n' % i for i in range(start, start + count)]


def read_all(read, checkpoint=None, **kwargs) -> tuple[list[tailer.Chunk], tailer.Checkpoint]:
    """Every chunk until the reader says it reached the end, each read from the last one's checkpoint."""
    chunks = []
    while True:
        chunk = read(checkpoint, **kwargs)
        chunks.append(chunk)
        checkpoint = chunk.checkpoint()
        if chunk.at_end:
            return chunks, checkpoint


def keys(chunks: list[tailer.Chunk]) -> list[tuple[int, int, bytes]]:
    return [(line.offset, line.index, line.data) for chunk in chunks for line in chunk.lines]
