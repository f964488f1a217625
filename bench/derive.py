"""The knowledge deriver at scale: seconds per episode boundary, from nothing and in the steady state.

    uv run python bench/derive.py [--tier small|large] [--work DIR] [--no-transcripts] [--no-fsync]

Generates a corpus (bench/corpus.py) into `<work>/home` and imports it with `manage.py ingest`'s own
code into `<work>/derive.sqlite3` (derivation switched off for the import, so it is timed alone),
adds ADR-112 ledger entries to every session with windows — a `Decision:` and an `Open threads:`
line per window, a handoff before each compaction — and imports those the same way. Both are kept:
a second run with the same `--work` reuses them. Then `derive_due` over all sessions from nothing
(no events, no candidate files), and again with every boundary done (the steady state of
`ingest --follow`), in bench/inproc.py. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import child, corpus  # noqa: E402 - the repository root first, so that `bench` imports as run


def environment(work: Path, *, no_fsync: bool) -> dict[str, str]:
    env = child.environment(work, database="derive.sqlite3")
    if no_fsync:
        env["WAYSWEB_BENCH_NO_FSYNC"] = "1"
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tier", choices=sorted(corpus.TIERS), default="small")
    parser.add_argument("--work", type=Path, default=Path("/tmp/waysweb-bench-derive"))
    parser.add_argument("--no-transcripts", action="store_true", help="import the events only (faster)")
    parser.add_argument(
        "--no-fsync",
        action="store_true",
        help="candidate files written without fsync: the deriver's own time, without the disk's",
    )
    args = parser.parse_args()
    work = args.work / args.tier
    work.mkdir(parents=True, exist_ok=True)
    if not (work / "prepared").exists():
        for name in ("derive.sqlite3", "derive.sqlite3-wal", "derive.sqlite3-shm"):
            (work / name).unlink(missing_ok=True)
        shutil.rmtree(work / "data", ignore_errors=True)
        shutil.rmtree(work / "home", ignore_errors=True)
        started = time.perf_counter()
        info = corpus.generate(work / "home", args.tier)
        print(
            f"corpus {args.tier}: {info.events_lines:,} event lines in {time.perf_counter() - started:.1f} s"
        )
    command = [sys.executable, str(ROOT / "bench" / "inproc.py"), "derive", "--work", str(work)]
    subprocess.run(
        [*command, *(["--no-transcripts"] if args.no_transcripts else [])],
        env=environment(work, no_fsync=args.no_fsync),
        check=True,
    )


if __name__ == "__main__":
    main()
