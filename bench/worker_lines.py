"""What the prepare worker (importer/prefetch.py) spends per line, on a fixed sample of a corpus's lines:
reading, preparing (sha256, parse, columns, secret scan, zstd), and the pickle that carries each
chunk to the writer, both ways, in one process.

    uv run python bench/worker_lines.py --home /tmp/large/home [--lines 50000] [--profile out.prof]

The sample: every `--every`-th transcript file (sorted by path) read chunk by chunk as the worker reads
it, until `--lines` lines; chunks with a line the worker leaves to the writer (prefetch.OWN_LINE) are
skipped, as it skips them. Packed with a dictionary trained on the sample's first lines, as a cold
import's worker packs (run.prefetch_for). Prints CPU µs per line of each step, `--repeat` times (the
least of each is the one to quote on a shared machine), and the pickled bytes.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import os
import pickle
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "waysweb.settings")

import django  # noqa: E402

django.setup()

from introspect.importer import entry_prep, entry_rows, line_dictionary, prefetch, tailer  # noqa: E402
from lib import linepack  # noqa: E402


def sample(home: Path, lines: int, every: int) -> list[tailer.Chunk]:
    """The chunks of the sample, as read (not prepared)."""
    files = sorted((home / ".claude" / "projects").rglob("*.jsonl"))[::every]
    chunks: list[tailer.Chunk] = []
    taken = 0
    for path in files:
        checkpoint = None
        while taken < lines:
            chunk = tailer.read_chunk(path, checkpoint, max_lines=tailer.BATCH_LINES)
            if chunk is None:
                break
            if not any(line.length > prefetch.OWN_LINE and not line.too_long for line in chunk.lines):
                chunks.append(chunk)
                taken += len(chunk.lines)
            if chunk.at_end:
                break
            checkpoint = chunk.checkpoint()
        if taken >= lines:
            break
    return chunks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="a corpus HOME (bench/corpus.py --out)")
    parser.add_argument("--lines", type=int, default=50_000)
    parser.add_argument("--every", type=int, default=3, help="every n-th file")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", type=Path, help="write a cProfile of the preparing here")
    args = parser.parse_args()
    chunks = sample(args.home, args.lines, args.every)
    count = sum(len(chunk.lines) for chunk in chunks)
    size = sum(len(line.data) for chunk in chunks for line in chunk.lines)
    first = [line.data for chunk in chunks for line in chunk.lines][: line_dictionary.TRAIN_LINES]
    dictionary = linepack.train([data[: line_dictionary.SAMPLE_BYTES] for data in first], 64 << 10)
    config = entry_rows.prep_config(dictionary=dictionary)
    print(f"{len(chunks)} chunks, {count:,} lines, {size / 1e6:,.1f} MB")
    # The worker holds one chunk at a time: the sample held whole is kept out of every collection, or
    # each one would walk it and weigh on whatever allocates most.
    gc.collect()
    gc.freeze()
    if args.profile:
        profile = cProfile.Profile()
        profile.enable()
        for chunk in chunks:
            pickle.dumps(entry_prep.prepare_chunk(chunk, config), protocol=pickle.HIGHEST_PROTOCOL)
        profile.disable()
        profile.dump_stats(args.profile)
        print(f"profile: {args.profile}")
        return
    for _ in range(args.repeat):
        spent = dict.fromkeys(("prepare", "pickle", "unpickle"), 0.0)
        pickled = 0
        for chunk in chunks:
            started = time.process_time()
            prepared = entry_prep.prepare_chunk(chunk, config)
            done = time.process_time()
            data = pickle.dumps((0, None, prepared), protocol=pickle.HIGHEST_PROTOCOL)
            dumped = time.process_time()
            pickle.loads(data)
            loaded = time.process_time()
            spent["prepare"] += done - started
            spent["pickle"] += dumped - done
            spent["unpickle"] += loaded - dumped
            pickled += len(data)
        print(
            "µs/line: "
            + ", ".join(f"{step} {seconds / count * 1e6:.1f}" for step, seconds in spent.items())
            + f"; pickled {pickled / 1e6:,.1f} MB"
        )


if __name__ == "__main__":
    main()
