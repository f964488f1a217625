"""A worker process the writer talks to through its pipes: an order pickled to its stdin, its messages
pickled one after the other on its stdout (importer/prefetch.py reads ahead, derive/planner.py plans
ahead).

The worker is a fresh interpreter (`python -c BOOT`), never a fork: it shares no database
connection, no lock and no Django state with the writer. Its messages are read by a thread into a
queue of `ahead` places: a pipe holds 64 KiB, so without the queue a worker with its next message
ready waits for the writer to take it and runs one message ahead at most. A worker gone (killed,
crashed) ends its pipe: the reader puts None, and the writer goes on alone.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass


@dataclass
class Worker:
    process: subprocess.Popen
    inbox: queue.Queue  # its messages, then None once it has ended
    reader: threading.Thread


def spawn(boot: str, order: object, ahead: int) -> Worker:
    """Start `python -c boot`, give it `order`, and read its messages into a queue of `ahead`."""
    process = subprocess.Popen(
        [sys.executable, "-c", boot], stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True
    )
    # Written by a thread: a long order fills the pipe before the worker, still importing its
    # modules, reads it, and the writer has better things to do than wait.
    threading.Thread(target=give, args=(process.stdin, order), daemon=True).start()
    inbox: queue.Queue = queue.Queue(maxsize=ahead)
    reader = threading.Thread(target=drain, args=(process.stdout, inbox), daemon=True)
    reader.start()
    return Worker(process, inbox, reader)


def end(worker: Worker, *, drained: bool = False) -> float:
    """Kill the worker, whatever it was doing (it holds nothing the writer needs), and reap it; its
    CPU seconds. `drained`: the reader said the pipe ended already."""
    process = worker.process
    with contextlib.suppress(ProcessLookupError):
        os.kill(process.pid, signal.SIGKILL)
    cpu = 0.0
    try:
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        cpu = usage.ru_utime + usage.ru_stime
    except ChildProcessError:
        process.wait()  # reaped already (subprocess's own clean-up)
    # The reader meets the pipe's end once what it holds is taken: empty the queue until it has
    # said so, so that no thread is left waiting to put messages nobody will read.
    while not drained:
        try:
            drained = worker.inbox.get(timeout=5) is None
        except queue.Empty:
            break  # not expected: the worker is dead, its pipe ended
    worker.reader.join(timeout=5)
    process.stdout.close()
    return cpu


def drain(pipe, inbox: queue.Queue) -> None:
    """The worker's messages into `inbox`, then None once it has ended or died (or was stopped)."""
    try:
        while True:
            inbox.put(unpickled(pipe))
    except Exception:  # its end (EOFError), or what it cannot read: the writer reads on alone
        pass
    finally:
        inbox.put(None)


def unpickled(pipe):
    """The worker's next message. The collector is off while it is read: a message is thousands of
    new lists and tuples, each of which would count towards a collection of everything the writer
    holds (its generations ran several times a message), and none of them can be garbage yet."""
    gc.disable()
    try:
        return pickle.load(pipe)
    finally:
        gc.enable()


def give(pipe, order: object) -> None:
    with contextlib.suppress(OSError), pipe:  # the worker gone already: the writer finds its pipe ended
        pickle.dump(order, pipe, protocol=pickle.HIGHEST_PROTOCOL)


def sender(out):
    """The worker's side: `send(message)` pickles one message onto `out` (its stdout) and flushes."""

    def send(message: object) -> None:
        pickle.dump(message, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()

    return send
