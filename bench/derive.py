"""The knowledge deriver at scale: seconds per episode boundary, the current code against a baseline.

    uv run python bench/derive.py [--tier small|large] [--work DIR] [--baseline REV]
                                  [--baseline-sessions N] [--no-transcripts] [--no-fsync]

Generates a corpus (bench/corpus.py) into `<work>/home` and imports it with `manage.py ingest`'s
own code into `<work>/derive.sqlite3` (derivation switched off for the import, so it is timed
alone), adds ADR-112 ledger entries to every session with windows — a `Decision:` and an
`Open threads:` line per window, a handoff before each compaction — and imports those the same
way. Both are kept: a second run with the same `--work` reuses them.

Then `derive_due` over all sessions, from nothing (no events, no candidate files), once with the
deriver of `--baseline` (a git revision: `ledger/derive/candidates.py`, `ledger/deriver.py` before it
moved) and once with the current one; then again with every boundary done (the steady state of
`ingest --follow`). Both must write the same candidate files and the same events; the script says
so, or fails. `--baseline-sessions` times the baseline on the first N sessions only (the old deriver does not finish on a large corpus).
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import corpus

BASELINE = "57ff642"  # the last commit with the per-session deriver


def setup_django(work: Path, home: Path) -> None:
    os.environ.update({"HOME": str(home), "WAYSWEB_DATA_DIR": str(work / "data"),
                       "WAYSWEB_DATABASE_URL": f"sqlite:///{work / 'derive.sqlite3'}",
                       "DJANGO_SETTINGS_MODULE": "waysweb.settings", "XDG_STATE_HOME": "", "XDG_CONFIG_HOME": "",
                       "XDG_DATA_HOME": "", "CLAUDE_CONFIG_DIR": ""})
    import django

    django.setup()


def ingest(*args: str) -> None:
    """`manage.py ingest` in this process, with derivation off: it is what this script times."""
    from io import StringIO

    from django.core.management import call_command

    from ledger.derive import candidates as deriver

    derive_due = deriver.derive_due
    deriver.derive_due = lambda directory, sessions=None: []
    try:
        call_command("ingest", *args, stdout=StringIO())
    finally:
        deriver.derive_due = derive_due


def write_ledger(home: Path) -> int:
    """An entry a minute into every window of every session (a decision and an open thread), a
    handoff a minute before each compaction: what a busy ADR-112 ledger holds."""
    from datetime import timedelta

    from introspect.rules.timestamps import utc_second
    from introspect.rules.join import project_slug
    from introspect.models import Window

    starts: dict = {}
    for window in Window.objects.select_related("session__project").order_by("session_id", "number"):
        starts.setdefault(window.session, []).append(utc_second(window.start_ts))
    written, epochs = 0, {}
    for session, begins in starts.items():
        slug = project_slug(session.project.path if session.project else "/home/dev/unknown")
        for number, begin in enumerate(begins, 1):
            if begin is None:
                continue
            entries = [(begin + timedelta(minutes=1), "progress",
                        (f"Work of window {number}.\nDecision: keep window {number} of {session.sid[:8]} small.\n"
                         f"Open threads: review what {session.sid[:8]} left."))]
            if number < len(begins) and begins[number] is not None:
                entries.append((begins[number] - timedelta(minutes=1), "handoff",
                                f"State after window {number}: tests pass, docs next."))
            for ts, phase, body in entries:
                epoch = epochs[slug] = epochs.get(slug, -1) + 1
                stamp = ts.strftime("%Y-%m-%dT%H:%M:%SZ")
                path = home / ".claude" / "ledger" / slug / f"{stamp.replace(':', '')}_e{epoch:05d}.md"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(f"---\nsession: {session.sid}\nepoch: {epoch}\ncontext_pct: 50\n"
                                f"timestamp: {stamp}\nphase: {phase}\n---\n\n{body}\n")
                written += 1
    return written


def prepare(work: Path, tier: str, transcripts: bool) -> None:
    home = work / "home"
    if (work / "derive.sqlite3").exists() and (work / "prepared").exists():
        setup_django(work, home)
        return
    for name in ("derive.sqlite3", "derive.sqlite3-wal", "derive.sqlite3-shm", "prepared"):
        (work / name).unlink(missing_ok=True)
    shutil.rmtree(work / "data", ignore_errors=True)
    started = time.perf_counter()
    info = corpus.generate(home, tier)
    print(f"corpus {tier}: {info.events_lines:,} event lines in {time.perf_counter() - started:.1f} s")
    setup_django(work, home)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    args = () if transcripts else ("--no-transcripts",)
    started = time.perf_counter()
    ingest(*args)
    print(f"imported in {time.perf_counter() - started:.1f} s")
    started = time.perf_counter()
    entries = write_ledger(home)
    ingest(*args)
    print(f"{entries:,} ledger entries written and imported in {time.perf_counter() - started:.1f} s")
    (work / "prepared").write_text("ok\n")


def baseline_module(revision: str, work: Path):
    """The deriver as it was at `revision` (or the file `revision` names), imported from a copy."""
    path = Path(revision)
    if not path.is_file():
        path = work / f"deriver_{revision}.py"
        for name in ("ledger/derive/candidates.py", "ledger/deriver.py"):  # where it lived before
            shown = subprocess.run(["git", "-C", str(ROOT), "show", f"{revision}:{name}"], capture_output=True)
            if shown.returncode == 0:
                break
        shown.check_returncode()
        path.write_bytes(shown.stdout)
    spec = importlib.util.spec_from_file_location("bench_baseline_deriver", path)
    module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)  # dataclasses look it up
    spec.loader.exec_module(module)
    return module


def run(module, directory: Path, sessions: list) -> tuple[float, int, dict, set]:
    """Seconds, boundaries, and what it wrote: candidate files and events."""
    from ledger.models import KnowledgeEvent

    started = time.perf_counter()
    events = module.derive_due(directory, sessions)
    seconds = time.perf_counter() - started
    files = {p.name: p.read_bytes() for p in sorted((directory / "candidates").glob("*.md"))}
    rows = set(KnowledgeEvent.objects.values_list("session_id", "window", "trigger", "kind", "written", "unchanged",
                                                  "skipped", "detail"))
    return seconds, len(events), files, rows


def fresh(directory: Path) -> None:
    from ledger.models import KnowledgeEvent

    KnowledgeEvent.objects.all().delete()
    shutil.rmtree(directory, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tier", choices=sorted(corpus.TIERS), default="small")
    parser.add_argument("--work", type=Path, default=Path("/tmp/waysweb-bench-derive"))
    parser.add_argument("--baseline", default=BASELINE, help="git revision of the deriver to compare against, or a copy of it")
    parser.add_argument("--baseline-sessions", type=int, help="time the baseline on the first N sessions only")
    parser.add_argument("--no-transcripts", action="store_true", help="import the events only (faster)")
    parser.add_argument("--no-fsync", action="store_true",
                        help="candidate files written without fsync: the deriver's own time, without the disk's")
    args = parser.parse_args()
    if args.no_fsync:
        os.fsync = lambda fd: None
    work = args.work / args.tier
    work.mkdir(parents=True, exist_ok=True)
    prepare(work, args.tier, not args.no_transcripts)

    from introspect.models import Session
    from ledger.derive import candidates as deriver
    from ledger.models import LedgerEntry

    directory = work / "knowledge"
    sessions = list(Session.objects.order_by("pk"))
    print(f"{len(sessions):,} sessions, {LedgerEntry.objects.count():,} ledger entries")
    old = baseline_module(args.baseline, work)
    subset = sessions[: args.baseline_sessions] if args.baseline_sessions else sessions
    results = {}
    for name, module, chosen in (("baseline", old, subset), ("current", deriver, subset), ("current", deriver,
                                                                                            sessions)):
        fresh(directory)
        seconds, boundaries, files, rows = run(module, directory, chosen)
        again, _, _, _ = run(module, directory, chosen)
        results.setdefault((name, len(chosen)), (files, rows))
        print(f"{name:8} {len(chosen):6,} sessions {boundaries:7,} boundaries {len(files):7,} candidates: "
              f"{seconds:8.2f} s = {seconds / max(boundaries, 1) * 1000:7.2f} ms per boundary; "
              f"nothing due: {again:.2f} s")
    same = results["baseline", len(subset)] == results["current", len(subset)]
    print(f"baseline and current wrote the same files and events on {len(subset):,} sessions: {same}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
