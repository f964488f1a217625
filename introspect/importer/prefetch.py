"""A second core for a long pass: a worker process reads the pass's transcripts and agent-ways events
logs ahead and prepares their lines (sha256, parse, columns; secret scan and zstd for transcripts:
importer/entry_prep.py; an event's row: importer/event_prep.py; an events archive inflated through
gzip_tail) while this process, the one writer, does every lookup and write, the checkpoint and
derivation (issue 29, items 3 and 6).

The worker holds nothing durable: it hands chunks (tailer.Chunk with `prepared` set) through a
bounded queue, in the pass's order, and the writer lands each as one batch, as it would a chunk it
read itself (importer/batch.py: rows and checkpoint in one transaction). So a kill of either process
loses nothing: the checkpoint moves only with committed rows, and what the worker had read ahead is
read again on the next pass.

The writer takes a chunk only when it starts exactly where the writer stands (the same Checkpoint it
would read from); otherwise, and whenever the worker cannot help (it died, it could not read or
prepare the file), the writer reads that file itself, in process, from where it stands: an error then
happens where it always did and is that file's problem, as without the worker. Nothing waits on a
worker that is gone.

The worker is a fresh interpreter (`python -c`, pipes for stdin and stdout), never a fork: it shares
no database connection, no Django state and no lock with the writer, and imports no Django app (its
settings come as values, entry_prep.Config). Not multiprocessing: its spawn starts a resource-tracker
process beside the worker and imports the writer's `__main__` again. The pipe is the bounded queue:
the worker prepares one chunk while the writer writes the one before, and waits while the pipe is
full; a writer gone (killed) breaks the pipe and the worker ends; a worker gone ends the pipe and the
writer reads on in process.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import functools
import pickle
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from introspect.importer import entry_prep, event_prep, gzip_tail, tailer
from lib import gcpause, worker_pipes

# A line longer than a whole batch (tailer.read_chunk's byte limit: the 50 MB line of the large tier)
# is parsed by the writer while no worker runs: parsing it costs several times its size, and two
# processes' memory at once on top of that would raise the importer's peak RSS.
OWN_LINE = 8 << 20
# Chunks the worker may prepare ahead of the writer (a chunk is a batch: tailer.BATCH_LINES lines).
AHEAD = 4
ROOT = Path(__file__).resolve().parents[2]  # the checkout: what the worker imports from
BOOT = f"import sys; sys.path.insert(0, {str(ROOT)!r}); from introspect.importer.prefetch import main; main()"


@dataclass(frozen=True)
class Job:
    """A file to read ahead, from where its generation stands at the start of the pass."""

    path: Path
    root: Path
    checkpoint: tailer.Checkpoint | None
    events: bool = False  # an agent-ways events log (event_prep), not a transcript (entry_prep)
    gzip: bool = False  # an events archive, read by gzip_tail.GzipTail


@dataclass(frozen=True)
class Plan:
    """What a worker is given on its stdin: the jobs from `first` on, and how to read and prepare."""

    jobs: list[Job]
    first: int
    config: entry_prep.Config
    max_line: int
    max_lines: int  # tailer.BATCH_LINES in the writer: its batches, whoever reads them
    own_line: int
    events: event_prep.Config | None = None  # how events logs' lines are prepared (Job.events)


@dataclass(frozen=True)
class Unhelped:
    """The worker read no further in a file (gone, unreadable, a line it could not prepare):
    the writer reads it itself from where it stands."""

    why: str


@dataclass(frozen=True)
class Yours:
    """A line too long to parse beside another process (OWN_LINE): the writer reads this chunk itself;
    the worker has ended, and is started again past it (`after`: where the chunk ends)."""

    after: tailer.Checkpoint
    at_end: bool


def main() -> None:
    """The worker process: a Plan on stdin, its messages on stdout (pickles, one after the other)."""
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # whatever is printed is not a message
    plan = pickle.load(sys.stdin.buffer)
    send = worker_pipes.sender(out)
    with contextlib.suppress(BrokenPipeError):  # the writer is gone (killed): nothing of ours to keep
        work(plan, send)


def work(plan: Plan, send) -> None:
    """Each job's chunks from `plan.first` on, prepared, sent as (job index, start checkpoint, chunk
    or Unhelped or Yours); then (len(jobs), None, None). Ends after a Yours."""
    for index in range(plan.first, len(plan.jobs)):
        job = plan.jobs[index]
        checkpoint = job.checkpoint
        with contextlib.ExitStack() as stack:
            read = reader(job, stack)
            while True:
                try:
                    # a chunk is hundreds of thousands of new containers, none garbage before it
                    # is sent: each few hundred started a collection, a tenth of the worker's CPU
                    with gcpause.paused():
                        item = prepared(job, checkpoint, plan, read)
                except Exception as exc:  # the writer reads the file itself and meets it there
                    item = Unhelped(f"{type(exc).__name__}: {exc}")
                send((index, checkpoint, item))
                if isinstance(item, Yours):
                    return
                trim()
                if isinstance(item, Unhelped) or item.at_end:
                    break
                checkpoint = item.checkpoint()
    send((len(plan.jobs), None, None))


def reader(job: Job, stack: contextlib.ExitStack):
    """`read(checkpoint, max_line=…, max_lines=…)`: the job's next chunk, as the writer reads it
    (loader.reader): an archive through one GzipTail for every chunk of the job, so that its member
    inflates on from where the last chunk stopped."""
    if job.gzip:
        return stack.enter_context(gzip_tail.GzipTail(job.path, root=job.root)).chunk
    return functools.partial(tailer.read_chunk, job.path, root=job.root)


def prepared(job: Job, checkpoint: tailer.Checkpoint | None, plan: Plan, read):
    chunk = read(checkpoint, max_line=plan.max_line, max_lines=plan.max_lines)
    if chunk is None:
        return Unhelped("gone")
    if any(line.length > plan.own_line and not line.too_long for line in chunk.lines):
        return Yours(chunk.checkpoint(), chunk.at_end)
    if job.events:
        return event_prep.prepare_chunk(chunk, plan.events)
    return entry_prep.prepare_chunk(chunk, plan.config)


def trim() -> None:
    """Give the memory a chunk's parse freed back to the system (glibc keeps it otherwise), so that
    the worker's resident size between chunks is its modules and one chunk, not its high-water."""
    if LIBC is not None:
        LIBC.malloc_trim(0)


try:
    LIBC = ctypes.CDLL("libc.so.6")
    LIBC.malloc_trim  # noqa: B018 - glibc only
except (OSError, AttributeError):
    LIBC = None


class Prefetch:
    """The writer's side: the worker's chunks, asked for file by file in the order of `jobs`."""

    def __init__(
        self,
        jobs: list[Job],
        config: entry_prep.Config,
        *,
        max_line: int,
        own_line: int | None = None,
        events: event_prep.Config | None = None,
    ) -> None:
        self.jobs = list(jobs)
        self.config, self.max_line, self.events = config, max_line, events
        self.own_line = OWN_LINE if own_line is None else own_line
        self.index = {(job.path, job.root): i for i, job in enumerate(jobs)}
        self.held: tuple | None = None  # a message for a later file, taken while looking for one before it
        self.worker: worker_pipes.Worker | None = None  # the running worker (None: ended, or none yet)
        self.resume: int | None = None  # the job a worker is to be started at (again) when next asked
        self.taken = 0  # chunks landed from the worker (bench/, tests)
        self.waited = 0.0  # seconds the writer waited for the worker
        # Asked while no chunk is ready: the writer's other work, a piece at a time (a settled
        # session's derive: waysweb/passes.py), each call saying whether it found any.
        self.idle: Callable[[], bool] | None = None
        self.idled = 0.0  # seconds of `idle` work done while the worker prepared
        self.cpu = 0.0  # CPU seconds of the workers ended so far
        self.start(0)

    def start(self, first: int) -> None:
        plan = Plan(
            self.jobs, first, self.config, self.max_line, tailer.BATCH_LINES, self.own_line, self.events
        )
        self.worker = worker_pipes.spawn(BOOT, plan, AHEAD)

    @property
    def process(self) -> subprocess.Popen | None:
        return None if self.worker is None else self.worker.process

    def take(self, path: Path, root: Path, checkpoint: tailer.Checkpoint | None) -> tailer.Chunk | None:
        """The worker's chunk of this file read from `checkpoint`, or None: read it in process."""
        wanted = self.index.get((path, root))
        if wanted is not None and self.resume is not None and self.resume <= wanted:
            # Asked again after landing the long line: every batch before it is committed by now.
            self.start(max(self.resume, wanted))
            self.resume = None
        while wanted is not None:
            message = self.held or self.receive()
            self.held = None
            if message is None:
                return None
            if not understood(message):
                # A worker of another version (the checkout changed under a long-running writer):
                # what it says cannot be trusted, so it is ended and the writer reads on alone.
                self.stop()
                return None
            index, start, item = message
            if index < wanted:
                continue  # a file the writer did not read, or stopped reading
            if index > wanted:
                self.held = message
                return None
            if isinstance(item, Yours):
                self.handed_over(index, item)
                return None
            if isinstance(item, Unhelped) or start != checkpoint:
                return None  # not where the writer stands (the file moved meanwhile): read in process
            self.taken += 1
            return item
        return None

    def handed_over(self, index: int, yours: Yours) -> None:
        """The worker ended at a long line: wait for it to be gone before the writer parses the line,
        and start it again past the line on the next batch or file."""
        self.stop()
        if not yours.at_end:
            self.jobs[index] = dataclasses.replace(self.jobs[index], checkpoint=yours.after)
            self.resume = index
        elif index + 1 < len(self.jobs):
            self.resume = index + 1

    def receive(self) -> tuple | None:
        """The worker's next message; None once it has ended or died (its end of the pipe closed)."""
        if self.worker is None:
            return None
        inbox = self.worker.inbox
        started = time.monotonic()
        if self.idle is not None:
            while inbox.empty() and self.idle():
                pass
            busy, started = started, time.monotonic()
            self.idled += started - busy
        message = inbox.get()
        self.waited += time.monotonic() - started
        if message is None:
            self.stop(drained=True)
        return message

    def stop(self, *, drained: bool = False) -> None:
        """End the worker, whatever it was doing (it holds nothing the writer needs); its CPU time
        is added to `cpu`. `drained`: the reader said the pipe ended already."""
        worker, self.worker = self.worker, None
        if worker is not None:
            self.cpu += worker_pipes.end(worker, drained=drained)

    def close(self) -> None:
        self.resume = None
        self.stop()


def understood(message: object) -> bool:
    """Whether a worker's message has the shape `work` sends: (job index, checkpoint, chunk or
    Unhelped or Yours), or its end (jobs, None, None)."""
    if not (isinstance(message, tuple) and len(message) == 3 and isinstance(message[0], int)):
        return False
    _, start, item = message
    if item is None:
        return start is None
    return isinstance(start, tailer.Checkpoint | None) and isinstance(item, tailer.Chunk | Unhelped | Yours)
