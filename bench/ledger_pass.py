"""The ledger pass of a cold import alone, in CPU seconds: every knowledge candidate derived, written
and indexed from nothing, on the database a cold import left.

    uv run python bench/cold_ingest.py --home /tmp/large/home --only events --work W    # once
    uv run python bench/ledger_pass.py --home /tmp/large/home --work W [--profile OUT]

Copies W's database and data folder to W/ledger-pass, clears what the pass's knowledge steps wrote
there (the knowledge events and records, the records' secret findings, the candidate files), then
runs the steps of `passes.ledger_pass` once in a child process, each timed in CPU seconds (user +
sys, the machine is shared): the ledger documents (already imported: idle), `derive_due` (the
candidates derived and written), `import_knowledge_dirs` (their records written). With `--profile`,
the child runs the pass under cProfile and prints the top functions. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import peers  # noqa: E402 - the repository root first, so that `bench` imports as run

CHILD = """
import cProfile, pstats, resource, shutil, sys, time
from functools import partial
import django
django.setup()
from django.conf import settings
from introspect.models import SecretFinding, Session
from ledger.derive import candidates
from ledger.importer.run import import_documents, import_knowledge_dirs
from ledger.models import KnowledgeEvent, KnowledgeRecord

locs = settings.WAYSWEB_LOCATIONS
KnowledgeEvent.objects.all().delete()
KnowledgeRecord.objects.all().delete()
SecretFinding.objects.filter(place="ledger.knowledgerecord").delete()
shutil.rmtree(locs.knowledge_dir / "candidates", ignore_errors=True)
# CPU time, not wall time: on a shared machine a function's wall time is mostly waiting.
profile = cProfile.Profile(time.process_time) if sys.argv[1] else None

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

def timed(name, step, *args):
    started = cpu()
    found = profile.runcall(step, *args) if profile else step(*args)
    print(f"{name}: {cpu() - started:.2f} CPU s")
    return found

total = cpu()
result = timed("ledger documents", import_documents, locs)
# As passes.ledger_pass calls it: the files written handed on to the knowledge import, where the
# checkout's derive_due takes them (`--repo` may be an older one, whose derive_due does not).
written = {"written": result.written} if hasattr(result, "written") else {}
result.derived = timed(
    "derive_due", partial(candidates.derive_due, **written), locs.knowledge_dir, Session.objects.all()
)
timed("knowledge directories", import_knowledge_dirs, locs, result)
print(f"ledger pass: {cpu() - total:.2f} CPU s; {len(result.derived):,} events, "
      f"{result.knowledge.added:,} records added, {KnowledgeRecord.objects.count():,} records")
if profile:
    profile.dump_stats(sys.argv[1])
    stats = pstats.Stats(sys.argv[1])
    stats.sort_stats("tottime").print_stats(int(sys.argv[2]))
    stats.sort_stats("cumulative").print_stats(int(sys.argv[2]))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="the corpus HOME the import read")
    parser.add_argument("--work", type=Path, required=True, help="bench/cold_ingest.py's --work")
    parser.add_argument("--profile", type=Path, help="run under cProfile, the stats written here")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--repo", type=Path, default=ROOT, help="run this checkout's code (before/after)")
    args = parser.parse_args()
    scratch = args.work / "ledger-pass"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    for name in ("db.sqlite3", "db.sqlite3-wal", "db.sqlite3-shm"):
        if (args.work / name).exists():
            shutil.copy2(args.work / name, scratch / name)
    shutil.copytree(args.work / "data", scratch / "data")
    env = peers.ingest_env(args.home, scratch / "data", scratch / "db.sqlite3")
    env["PYTHONPATH"] = str(args.repo)
    profile = str(args.profile or "")
    subprocess.run([sys.executable, "-c", CHILD, profile, str(args.top)], env=env, cwd=args.repo, check=True)


if __name__ == "__main__":
    main()
