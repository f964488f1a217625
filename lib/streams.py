"""Command output that outlives its reader.

`serve | head -1` closes the pipe after one line. Python ignores SIGPIPE, so every later write to
it raises BrokenPipeError: the importer's report ended each pass in "import pass failed (Broken
pipe)", and a failing pass never reached its stop check. Output is a courtesy to whoever reads it;
once nobody does, the commands go on without it.
"""

from __future__ import annotations

import os
from typing import TextIO


class Survivor:
    """A text stream that, once its reader is gone, sends the rest of the output to /dev/null.

    The stream's file descriptor itself is pointed at /dev/null (not only this object silenced):
    Python's own flush at exit, and anything else holding the same descriptor, then write without
    an error too.
    """

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.reader_gone = False

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except BrokenPipeError:
            self.gone()
            return len(text)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except BrokenPipeError:
            self.gone()

    def gone(self) -> None:
        self.reader_gone = True
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, self.stream.fileno())
            finally:
                os.close(devnull)
            self.stream.flush()  # what was buffered for the reader, now to /dev/null
        except (OSError, ValueError, AttributeError):
            pass  # no descriptor of its own (a StringIO under test): this object stays quiet

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


def outlive_reader(output) -> None:
    """Wrap a management command's `self.stdout` or `self.stderr` (Django's OutputWrapper, which
    keeps the stream it writes to in `_out`) so that a reader closing the pipe ends no work."""
    if not isinstance(output._out, Survivor):
        output._out = Survivor(output._out)
