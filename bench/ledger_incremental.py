"""An incremental ledger pass in CPU seconds: one more session's boundaries derived, written and
indexed after a whole pass, on the scratch folder bench/ledger_pass.py left.

    uv run python bench/ledger_pass.py --home H --work W        # the whole pass, once
    uv run python bench/ledger_incremental.py --home H --work W [--repo CHECKOUT] [--sessions N]

Copies W/ledger-pass to W/ledger-incremental, then in a child: takes the N sessions (1) whose
boundaries wrote the most candidates, forgets them (their knowledge events, their records and the
candidate files only they wrote), runs `passes.ledger_pass` once timed in CPU seconds, and checks the
pass brought back the same files and records (every column but the times a run stamps). Then times
an idle pass (nothing due). Not part of the test suite.
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
import resource, sys
import django
django.setup()
from django.conf import settings
from django.db.models import Sum
from ledger.models import KnowledgeEvent, KnowledgeRecord
from waysweb import passes

locs = settings.WAYSWEB_LOCATIONS
STAMPED = {"first_seen", "updated_at", "file_mtime_ns", "id"}
fields = [f.attname for f in KnowledgeRecord._meta.concrete_fields if f.attname not in STAMPED]

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

def state():
    rows = {r[0]: r for r in KnowledgeRecord.objects.values_list("record_id", *fields)}
    files = {p.name: p.read_bytes() for p in (locs.knowledge_dir / "candidates").iterdir()}
    return rows, files

top = (KnowledgeEvent.objects.values("session").annotate(n=Sum("written")).order_by("-n", "session"))
chosen = [row["session"] for row in top[: int(sys.argv[1])]]
before = state()
records = KnowledgeRecord.objects.filter(session__in=chosen)
others = set(KnowledgeRecord.objects.exclude(session__in=chosen).values_list("record_id", flat=True))
gone = [r for r in records.values_list("record_id", flat=True) if r not in others]
for record_id in gone:
    (locs.knowledge_dir / "candidates" / f"{record_id}.md").unlink()
KnowledgeRecord.objects.filter(record_id__in=gone).delete()
KnowledgeEvent.objects.filter(session__in=chosen).delete()
started = cpu()
result = passes.ledger_pass(locs)
print(f"incremental pass: {cpu() - started:.3f} CPU s; {len(chosen)} sessions, "
      f"{len(result.derived)} events, {result.knowledge.added} records added ({len(gone)} forgotten)")
after = state()
print("same records and files as before" if after == before else "DIFFERENT from before")
started = cpu()
result = passes.ledger_pass(locs)
print(f"idle pass: {cpu() - started:.3f} CPU s; {len(result.derived)} events")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="the corpus HOME the import read")
    parser.add_argument("--work", type=Path, required=True, help="bench/ledger_pass.py's --work")
    parser.add_argument("--sessions", type=int, default=1)
    parser.add_argument("--repo", type=Path, default=ROOT, help="run this checkout's code (before/after)")
    args = parser.parse_args()
    scratch = args.work / "ledger-incremental"
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(args.work / "ledger-pass", scratch)
    # The knowledge directory's rows name the folder they were read in: the copy's is another.
    subprocess.run(
        [
            "sqlite3",
            str(scratch / "db.sqlite3"),
            f"UPDATE ledger_knowledgerecord SET directory = replace(directory, "
            f"'{args.work / 'ledger-pass'}', '{scratch}')",
        ],
        check=True,
    )
    env = peers.ingest_env(args.home, scratch / "data", scratch / "db.sqlite3")
    env["PYTHONPATH"] = str(args.repo)
    subprocess.run([sys.executable, "-c", CHILD, str(args.sessions)], env=env, cwd=args.repo, check=True)


if __name__ == "__main__":
    main()
