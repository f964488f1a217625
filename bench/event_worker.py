"""What the prepare worker (importer/prefetch.py) spends per events-log line: reading a corpus's
agent-ways events logs chunk by chunk as the worker reads them (tailer.read_chunk for the live log,
gzip_tail.GzipTail for the archives), sorting each chunk (event_prep.prepare_chunk) and pickling it
for the writer, in one process. Or, with `--digests FILE`, the sha256 of each chunk's pickle, one a
line, to compare two versions' output byte for byte (`--repo` imports another checkout).

    uv run python bench/event_worker.py --home /tmp/large/home [--repo /work/main] [--lines N]
        [--profile out.prof | --digests out.txt]

Prints CPU µs per line of each step, `--repeat` times over the chunks read once (the least of each is
the one to quote on a shared machine); the reading is timed on the first pass. Not part of the
test suite.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import hashlib
import os
import pickle
import sys
import time
from pathlib import Path


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="a corpus HOME (bench/corpus.py --out)")
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--lines", type=int, default=10**9, help="at most about this many lines a log")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", type=Path, help="write a cProfile of reading and sorting here")
    parser.add_argument("--digests", type=Path, help="write each chunk's pickle's sha256 here")
    parser.add_argument(
        "--worker",
        action="store_true",
        help="CPU of the worker's own loop (prefetch.work) over every log, whole",
    )
    return parser.parse_args()


# Read before anything of a checkout is imported: `--repo` says which one.
ARGS = arguments()
sys.path.insert(0, str(ARGS.repo.resolve()))
os.chdir(ARGS.repo)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "waysweb.settings")

import django  # noqa: E402

django.setup()

from introspect.importer import entry_rows, event_prep, event_rows, gzip_tail, prefetch, tailer  # noqa: E402


def logs(home: Path) -> list[Path]:
    """The corpus's events logs, archives first (oldest first), then the live log."""
    folder = home / ".local" / "state" / "agent-ways"
    return [*sorted(folder.glob("events-*.jsonl.gz")), folder / "events.jsonl"]


def chunks_of(path: Path, lines: int):
    """The chunks of one log as the worker reads them (prefetch.reader), up to about `lines` lines."""
    checkpoint, taken = None, 0
    tail = gzip_tail.GzipTail(path, root=path.parent) if path.suffix == ".gz" else None
    try:
        while taken < lines:
            if tail is not None:
                chunk = tail.chunk(checkpoint, max_lines=tailer.BATCH_LINES)
            else:
                chunk = tailer.read_chunk(path, checkpoint, max_lines=tailer.BATCH_LINES, root=path.parent)
            if chunk is None:
                return
            taken += len(chunk.lines)
            yield chunk
            if chunk.at_end:
                return
            checkpoint = chunk.checkpoint()
    finally:
        if tail is not None:
            tail.close()


def worker(home: Path) -> None:
    """The worker's loop (prefetch.work: read, prepare, its collector and malloc_trim as it runs them)
    over every log, each message pickled as `send` pickles it (to nowhere: no pipe, no writer)."""
    jobs = [
        prefetch.Job(path, path.parent, None, events=True, gzip=path.suffix == ".gz") for path in logs(home)
    ]
    plan = prefetch.Plan(
        jobs,
        0,
        entry_rows.prep_config(),
        64 << 20,
        tailer.BATCH_LINES,
        prefetch.OWN_LINE,
        event_rows.prep_config(),
    )
    counted = {"lines": 0, "bytes": 0}

    def send(message: tuple) -> None:
        item = message[2]
        if isinstance(item, tailer.Chunk):
            counted["lines"] += len(item.prepared.keys)
        counted["bytes"] += len(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))

    before = os.times()
    prefetch.work(plan, send)
    after = os.times()
    cpu = after.user + after.system - before.user - before.system
    lines = counted["lines"]
    print(
        f"worker: {lines:,} lines, {cpu:.1f} CPU s (user {after.user - before.user:.1f}), "
        f"{cpu / lines * 1e6:.1f} µs/line; pickled {counted['bytes'] / 1e6:,.0f} MB; load {os.getloadavg()[0]:.2f}"
    )


def main() -> None:
    args = ARGS
    config = event_rows.prep_config()
    print(f"{event_prep.__file__}: stamps as text {config.stamps_as_text}")
    if args.worker:
        worker(args.home)
        return
    if args.profile:
        profile = cProfile.Profile()
        profile.enable()
        for path in logs(args.home):
            for chunk in chunks_of(path, args.lines):
                pickle.dumps(event_prep.prepare_chunk(chunk, config), protocol=pickle.HIGHEST_PROTOCOL)
        profile.disable()
        profile.dump_stats(args.profile)
        print(f"profile: {args.profile}")
        return
    if args.digests:
        with args.digests.open("w") as out:
            for path in logs(args.home):
                for chunk in chunks_of(path, args.lines):
                    sorted_ = event_prep.sort_lines(chunk.lines, config)
                    data = pickle.dumps(sorted_, protocol=pickle.HIGHEST_PROTOCOL)
                    out.write(f"{path.name} {len(chunk.lines)} {hashlib.sha256(data).hexdigest()}\n")
        print(f"digests: {args.digests}")
        return
    chunks, read = [], 0.0
    for path in logs(args.home):
        started = time.process_time()
        for chunk in chunks_of(path, args.lines):
            chunks.append(chunk)
        read += time.process_time() - started
    count = sum(len(chunk.lines) for chunk in chunks)
    print(f"{len(chunks)} chunks, {count:,} lines; read {read / count * 1e6:.1f} µs/line (with its gc)")
    # The worker holds one chunk at a time: the chunks held whole are kept out of every collection.
    gc.collect()
    gc.freeze()
    for _ in range(args.repeat):
        spent = dict.fromkeys(("sort", "pickle"), 0.0)
        pickled = 0
        for chunk in chunks:
            started = time.process_time()
            prepared = event_prep.prepare_chunk(chunk, config)
            done = time.process_time()
            data = pickle.dumps((0, None, prepared), protocol=pickle.HIGHEST_PROTOCOL)
            spent["sort"] += done - started
            spent["pickle"] += time.process_time() - done
            pickled += len(data)
        print(
            "µs/line: "
            + ", ".join(f"{step} {seconds / count * 1e6:.1f}" for step, seconds in spent.items())
            + f"; pickled {pickled / 1e6:,.1f} MB; load {os.getloadavg()[0]:.2f}"
        )


if __name__ == "__main__":
    main()
