"""Command output that outlives its reader (`serve | head -1`)."""

from __future__ import annotations

import io
import os

from django.core.management.base import OutputWrapper

from lib import streams


def test_once_the_reader_closed_the_pipe_writes_go_nowhere_and_raise_nothing():
    read, write = os.pipe()
    stream = os.fdopen(write, "w", buffering=1)
    wrapper = OutputWrapper(stream)
    streams.outlive_reader(wrapper)
    wrapper.write("waysweb is serving")
    assert os.read(read, 100) == b"waysweb is serving\n"
    os.close(read)  # `head -1` exits
    for _ in range(3):
        wrapper.write("Imported 12 files" * 1000)  # BrokenPipeError underneath, once
        wrapper.flush()
    assert wrapper._out.reader_gone
    # The descriptor itself now leads to /dev/null: Python's flush at exit finds no broken pipe.
    assert os.path.samestat(os.fstat(stream.fileno()), os.stat(os.devnull))
    stream.close()


def test_a_stream_with_no_descriptor_is_left_as_it_is():
    out = io.StringIO()
    wrapper = OutputWrapper(out)
    streams.outlive_reader(wrapper)
    streams.outlive_reader(wrapper)  # once is enough
    wrapper.write("hello")
    assert out.getvalue() == "hello\n" and isinstance(wrapper._out, streams.Survivor)
    assert not isinstance(wrapper._out.stream, streams.Survivor)
