"""What the prepare worker costs per byte (importer/prefetch.py): reading, preparing, and the pickle
that carries each prepared chunk to the writer, in one process, over a corpus's transcripts.

    uv run python bench/prepare_pickle.py --home /tmp/medium

Prints CPU seconds of each step and the pickled bytes against the source bytes: the pickle (both
ways) is the price of the second core; the preparing is the work the writer no longer does.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
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

from introspect.importer import entry_prep, entry_rows, tailer  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="a corpus HOME (bench/corpus.py --out)")
    args = parser.parse_args()
    config = entry_rows.prep_config()
    files = sorted((args.home / ".claude" / "projects").glob("*/*.jsonl"))
    spent = dict.fromkeys(("read", "prepare", "pickle", "unpickle"), 0.0)
    source = pickled = chunks = 0
    for path in files:
        checkpoint = None
        while True:
            started = time.process_time()
            chunk = tailer.read_chunk(path, checkpoint)
            read = time.process_time()
            prepared = entry_prep.prepare_chunk(chunk, config)
            done = time.process_time()
            data = pickle.dumps(prepared, protocol=pickle.HIGHEST_PROTOCOL)
            dumped = time.process_time()
            pickle.loads(data)
            loaded = time.process_time()
            for step, seconds in zip(
                spent, (read - started, done - read, dumped - done, loaded - dumped), strict=True
            ):
                spent[step] += seconds
            source += chunk.next_offset - (checkpoint.offset if checkpoint else 0)
            pickled += len(data)
            chunks += 1
            if chunk.at_end:
                break
            checkpoint = chunk.checkpoint()
    print(
        f"{len(files)} files, {chunks} chunks, {source / 1e6:,.1f} MB read, {pickled / 1e6:,.1f} MB pickled"
    )
    print("CPU s: " + ", ".join(f"{step} {seconds:.2f}" for step, seconds in spent.items()))


if __name__ == "__main__":
    main()
