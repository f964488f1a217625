"""The bench's measurements that run inside Django, in a child process started with the run's environment.

    python bench/inproc.py measures --work DIR --info PICKLE --requests N --out JSON   (bench/run.py)
    python bench/inproc.py appends --info PICKLE                   (the appends alone, on an imported corpus)
    python bench/inproc.py pages --sid SID --requests N [--profile]                     (bench/session_page.py)
    python bench/inproc.py derive --work DIR [--no-transcripts]                         (bench/derive.py)

Each driver chooses the run's database, HOME and data directory and passes them in the environment;
this module sets Django up once, at import, with whatever they chose. Keeping Django out of the
drivers keeps their own heap small (the corpus generator, the cold import and claude-code-log run
in children of a process that never loaded an app).
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import gc
import os
import pickle
import pstats
import shutil
import statistics
import sys
import time
from datetime import datetime, timedelta
from io import StringIO
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "waysweb.settings")
if os.environ.get("WAYSWEB_BENCH_NO_FSYNC"):
    os.fsync = lambda fd: None  # bench/derive.py --no-fsync: the deriver's own time, without the disk's

import django  # noqa: E402 - after the path and settings module the drivers chose

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, reset_queries  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import override_settings  # noqa: E402

from bench import corpus  # noqa: E402
from introspect.importer import discovery, watch  # noqa: E402
from introspect.importer.run import Options, absolute  # noqa: E402
from introspect.models import Session, SourceFile, WaysEvent, Window  # noqa: E402
from introspect.rules.join import project_slug  # noqa: E402
from introspect.rules.timestamps import utc_second  # noqa: E402
from ledger.derive import candidates  # noqa: E402
from ledger.models import KnowledgeEvent, LedgerEntry  # noqa: E402
from waysweb import passes  # noqa: E402

STATIC = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round((len(ordered) - 1) * q))]


def timed(client: Client, url: str, requests: int, **extra) -> tuple[float, float, int]:
    timings = []
    for _ in range(requests):
        started = time.perf_counter()
        response = client.get(url, **extra)
        timings.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(timings), percentile(timings, 0.95), len(response.content)


# --- bench/run.py ----------------------------------------------------------------------------------


def measures(info: corpus.CorpusInfo, requests: int) -> tuple[dict[str, tuple[float, str]], dict]:
    """A re-run over unchanged data, one-line appends, page times and rendering every session."""
    found: dict[str, tuple[float, str]] = {}
    notes: dict = {}
    locs = settings.WAYSWEB_LOCATIONS
    options = Options(ways=False)
    passes.sessions_pass(locs, options)
    started = time.perf_counter()
    passes.sessions_pass(locs, Options())  # a full re-run, way roots included
    passes.ledger_pass(locs)
    found["rerun_seconds"] = (time.perf_counter() - started, "s")

    found.update(append_measures(info))

    client = Client(HTTP_HOST="127.0.0.1")
    sid = info.long_session_id
    with override_settings(STORAGES=STATIC):
        pages = {
            "session_list": ("/", {}),
            "replay_page": (f"/sessions/{sid}/", {}),
            "replay_fragment": (f"/sessions/{sid}/?turn=2481", {"HTTP_HX_REQUEST": "true"}),
            "search": (f"/search/?q={info.search_terms[0]}", {}),
            "dump_json": (f"/api/sessions/{sid}/dump.json", {}),
        }
        for name, (url, extra) in pages.items():
            p50, p95, _ = timed(
                client, url, requests if name != "dump_json" else max(5, requests // 5), **extra
            )
            found[f"{name}_p50_ms"] = (p50, "ms")
            found[f"{name}_p95_ms"] = (p95, "ms")
        # Every session that has a transcript: what claude-code-log renders from the same files
        # (the events-only sessions of the corpus have none to give it).
        started = time.perf_counter()
        sessions = list(Session.objects.exclude(transcript=None).values_list("sid", flat=True))
        for session in sessions:
            response = client.get(f"/sessions/{session}/")
            assert response.status_code == 200, (session, response.status_code)
        found["render_transcript_sessions_s"] = (time.perf_counter() - started, "s")
    notes["sessions"] = Session.objects.count()
    notes["sessions_with_transcripts"] = len(sessions)
    return found, notes


# An append reaches a follower that was waiting, not one busy with the last append: on a loaded
# machine the scheduler runs a task that slept at once, and one that kept a core busy for seconds
# only in its share (back-to-back appends measured 2x slower, derive mostly, with two other busy
# processes on two cores).
IDLE_BEFORE_APPEND = 0.3


def append_measures(info: corpus.CorpusInfo) -> dict[str, tuple[float, str]]:
    """One-line appends as `ingest --follow` reads them: watched (written → told by inotify → a pass
    over that file alone → committed and derived), and as one whole poll after the write; the idle
    follower's CPU both ways. Every line goes to the long session (events log and transcript)."""
    found: dict[str, tuple[float, str]] = {}
    locs = settings.WAYSWEB_LOCATIONS
    live = info.home / ".local/state/agent-ways/events.jsonl"
    # As `ingest --follow` runs: its listings kept between polls (discovery.ListingCache).
    follow = Options(ways=False, listings=discovery.ListingCache())
    started = time.perf_counter()
    watcher = watch.Watcher(watch.roots(locs, follow))
    found["watch_start_ms"] = ((time.perf_counter() - started) * 1000, "ms")
    try:
        passes.sessions_pass(locs, follow)
        last = (
            WaysEvent.objects.filter(session__sid=info.long_session_id, ts__isnull=False)
            .order_by("-ts")
            .first()
            .ts
        )
        trunk = (
            SourceFile.objects.filter(kind="transcript", session_key=info.long_session_id)
            .order_by("-generation")
            .first()
        )
        transcript = Path(trunk.root) / trunk.rel_path

        def event(seconds_after_last: int) -> bytes:
            stamp = (last + timedelta(seconds=seconds_after_last)).strftime("%Y-%m-%dT%H:%M:%SZ")
            fields = {"ts": stamp, "event": "way_fired", "way": "bench/append", "trigger": "bash"}
            return orjson.dumps({**fields, "session": info.long_session_id, "n": seconds_after_last}) + b"\n"

        committed: list[float] = []  # ms from the write to the commit of each watched append
        spent: list[float] = []  # the CPU ms of each watched append's pass (this process's)

        def watched(path: Path, data: bytes) -> float:
            """Milliseconds from the write to the session derived, as a watching follower reads it
            (and, in `committed`, to the rows and checkpoint committed: the file's `on_file`)."""
            time.sleep(IDLE_BEFORE_APPEND)
            written, cpu = time.perf_counter(), time.process_time()
            with open(path, "ab") as fh:
                fh.write(data)
            changed: set[Path] = set()
            while absolute(path) not in changed:  # a report may still be one of the last write's
                told = watcher.changed(10.0, lambda: False)
                assert told, f"not told of {path} within 10 s"
                changed |= told
            result = passes.sessions_pass(
                locs,
                dataclasses.replace(follow, only=frozenset(changed)),
                on_file=lambda file: committed.append((time.perf_counter() - written) * 1000),
            )
            assert not result.whole and result.totals.imported == 1, result.totals
            spent.append((time.process_time() - cpu) * 1000)
            return (time.perf_counter() - written) * 1000

        def polled(path: Path, data: bytes) -> float:
            """Milliseconds of one whole --follow poll after the write (what a polling follower does)."""
            time.sleep(IDLE_BEFORE_APPEND)
            with open(path, "ab") as fh:
                fh.write(data)
            quiet(watcher)  # told, and dropped: this poll reads everything
            started = time.perf_counter()
            result = passes.sessions_pass(locs, follow)
            assert result.whole and result.totals.imported == 1, result.totals
            return (time.perf_counter() - started) * 1000

        # A running session appends after its last turn: the import extends the session's tail.
        found["append_ms"] = (statistics.median(watched(live, event(30 * (n + 1))) for n in range(7)), "ms")
        found["append_cpu_ms"] = (statistics.median(spent), "ms")
        found["append_committed_ms"] = (statistics.median(committed), "ms")
        found["append_full_poll_ms"] = (
            statistics.median(polled(live, event(300 + 30 * n)) for n in range(5)),
            "ms",
        )
        # A line stamped before the session's last turn (a late writer) makes the session rebuild whole.
        found["append_before_last_turn_ms"] = (
            statistics.median(watched(live, event(-3600 - n)) for n in range(3)),
            "ms",
        )
        said = transcript_lines(transcript, count=5)
        spent.clear()
        found["append_transcript_ms"] = (statistics.median(watched(transcript, line) for line in said), "ms")
        found["append_transcript_cpu_ms"] = (statistics.median(spent), "ms")
        found.update(idle_cpu(locs, follow, watcher))
    finally:
        watcher.close()
    return found


def transcript_lines(path: Path, *, count: int) -> list[bytes]:
    """Prompts continuing a transcript after its last entry, a second apart, as Claude Code appends them."""
    with open(path, "rb") as fh:
        fh.seek(max(0, path.stat().st_size - (1 << 20)))
        tail = [orjson.loads(raw) for raw in fh.read().splitlines()[1:] if raw.strip()]
    last = next(entry for entry in reversed(tail) if entry.get("uuid") and entry.get("timestamp"))
    ts = datetime.fromisoformat(last["timestamp"].replace("Z", "+00:00"))
    lines, parent = [], last["uuid"]
    for n in range(count):
        uuid = f"bench-append-{n}-{parent[:8]}"
        entry = {
            **{key: last[key] for key in ("sessionId", "cwd", "version", "gitBranch") if key in last},
            "parentUuid": parent,
            "isSidechain": False,
            "type": "user",
            "uuid": uuid,
            "timestamp": (ts + timedelta(seconds=n + 1)).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            "message": {"role": "user", "content": f"bench append {n}"},
        }
        lines.append(orjson.dumps(entry) + b"\n")
        parent = uuid
    return lines


IDLE_SECS = 5.0


def quiet(watcher: watch.Watcher) -> None:
    """Drop what the watcher has to tell until it has had nothing for a moment."""
    while watcher.changed(0.2, lambda: False):
        pass


def idle_cpu(locs, follow: Options, watcher: watch.Watcher) -> dict[str, tuple[float, str]]:
    """The share of one core an idle follower takes over `IDLE_SECS`: waiting for inotify, and
    polling every 0.5 s (a whole pass each time)."""
    quiet(watcher)
    started, cpu = time.monotonic(), time.process_time()
    while time.monotonic() - started < IDLE_SECS:
        assert not watcher.changed(IDLE_SECS, lambda: False)
    watching = (time.process_time() - cpu) / (time.monotonic() - started) * 100
    started, cpu = time.monotonic(), time.process_time()
    while time.monotonic() - started < IDLE_SECS:
        passes.sessions_pass(locs, follow, record_only_changes=True)
        time.sleep(0.5)
    polling = (time.process_time() - cpu) / (time.monotonic() - started) * 100
    return {"idle_cpu_watching_pct": (watching, "%"), "idle_cpu_polling_pct": (polling, "%")}


def command_appends(args: argparse.Namespace) -> None:
    """`append_measures` alone, on a corpus imported already; the files appended to are cut back to
    their sizes (and mtimes) after, so that a corpus shared with other runs stays as generated."""
    info = pickle.loads(args.info.read_bytes())
    live = info.home / ".local/state/agent-ways/events.jsonl"
    trunk = SourceFile.objects.filter(kind="transcript", session_key=info.long_session_id).first()
    touched = [live, Path(trunk.root) / trunk.rel_path]
    kept = {path: path.stat() for path in touched}
    try:
        found = append_measures(info)
    finally:
        for path, st in kept.items():
            os.truncate(path, st.st_size)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    for key, (value, unit) in found.items():
        print(f"{key:32s} {value:10.2f} {unit}")


def command_measures(args: argparse.Namespace) -> None:
    info = pickle.loads(args.info.read_bytes())
    found, notes = measures(info, args.requests)
    args.out.write_bytes(orjson.dumps({"results": found, "notes": notes}))


# --- bench/session_page.py -------------------------------------------------------------------------


def command_pages(args: argparse.Namespace) -> None:
    """Server time of the long session's pages, with CPU time and full collections beside them."""
    sid = args.sid
    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    call_command("ingest", stdout=StringIO())
    print(f"imported in {time.perf_counter() - started:.1f} s")
    client = Client(HTTP_HOST="127.0.0.1")
    targets = {
        "session page, first screen": (f"/sessions/{sid}/", {}),
        "conversation, turn 4000": (f"/sessions/{sid}/", {"QUERY_STRING": "turn=4000"}),
        "next page fragment": (
            f"/sessions/{sid}/",
            {"HTTP_HX_REQUEST": "true", "QUERY_STRING": "turn=2451"},
        ),
        "live tail, nothing new": (
            f"/sessions/{sid}/",
            {"HTTP_HX_REQUEST": "true", "QUERY_STRING": f"after={1 << 40}.0&fire=5000"},
        ),
        "fire-turn list fragment": (
            f"/sessions/{sid}/",
            {"HTTP_HX_REQUEST": "true", "QUERY_STRING": "view=fires&from=2451"},
        ),
        "event log page": (f"/sessions/{sid}/events/", {}),
        "session list": ("/", {}),
    }
    with override_settings(STORAGES=STATIC, DEBUG=False):
        if args.profile:
            client.get(f"/sessions/{sid}/")
            profiler = cProfile.Profile()
            profiler.enable()
            client.get(f"/sessions/{sid}/")
            profiler.disable()
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
            return
        full_gc: list[float] = []  # perf_counter at the start and stop of each full collection

        def stamp(phase: str, info: dict) -> None:
            if info["generation"] == 2:
                full_gc.append(time.perf_counter())

        gc.callbacks.append(stamp)
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
        for name, (url, extra) in targets.items():
            timings, cpu = [], []
            full_gc.clear()
            for _ in range(args.requests):
                t0, c0 = time.perf_counter(), time.process_time()
                response = client.get(url, **extra)
                timings.append((time.perf_counter() - t0) * 1000)
                cpu.append((time.process_time() - c0) * 1000)
                assert response.status_code == 200, (url, response.status_code)
            collected = 1000 * sum(
                stop - start for start, stop in zip(full_gc[::2], full_gc[1::2], strict=False)
            )
            connection.force_debug_cursor = True
            reset_queries()
            client.get(url, **extra)
            queries = len(connection.queries)
            connection.force_debug_cursor = False
            print(
                f"{name:28s} p50 {statistics.median(timings):7.1f} ms   p95 {percentile(timings, 0.95):7.1f} ms   "
                f"{queries} queries   {len(response.content) / 1024:.0f} KiB   "
                f"(cpu p50 {statistics.median(cpu):.1f} p95 {percentile(cpu, 0.95):.1f} ms; "
                f"{len(full_gc) // 2} full gc, {collected:.0f} ms)"
            )


# --- bench/derive.py -------------------------------------------------------------------------------


def ingest_without_deriving(*args: str) -> None:
    """`manage.py ingest` in this process, with derivation off: the derivation is what is timed."""
    derive_due = candidates.derive_due
    candidates.derive_due = lambda directory, sessions=None: []
    try:
        call_command("ingest", *args, stdout=StringIO())
    finally:
        candidates.derive_due = derive_due


def write_ledger(home: Path) -> int:
    """An entry a minute into every window of every session (a decision and an open thread), a
    handoff a minute before each compaction: what a busy ADR-112 ledger holds."""
    starts: dict = {}
    for window in Window.objects.select_related("session__project").order_by("session_id", "number"):
        starts.setdefault(window.session, []).append(utc_second(window.start_ts))
    written, epochs = 0, {}
    for session, begins in starts.items():
        slug = project_slug(session.project.path if session.project else "/home/dev/unknown")
        for number, begin in enumerate(begins, 1):
            if begin is None:
                continue
            entries = [
                (
                    begin + timedelta(minutes=1),
                    "progress",
                    (
                        f"Work of window {number}.\nDecision: keep window {number} of {session.sid[:8]} small.\n"
                        f"Open threads: review what {session.sid[:8]} left."
                    ),
                )
            ]
            if number < len(begins) and begins[number] is not None:
                entries.append(
                    (
                        begins[number] - timedelta(minutes=1),
                        "handoff",
                        f"State after window {number}: tests pass, docs next.",
                    )
                )
            for ts, phase, body in entries:
                epoch = epochs[slug] = epochs.get(slug, -1) + 1
                stamp = ts.strftime("%Y-%m-%dT%H:%M:%SZ")
                path = home / ".claude" / "ledger" / slug / f"{stamp.replace(':', '')}_e{epoch:05d}.md"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(
                    f"---\nsession: {session.sid}\nepoch: {epoch}\ncontext_pct: 50\n"
                    f"timestamp: {stamp}\nphase: {phase}\n---\n\n{body}\n"
                )
                written += 1
    return written


def command_derive(args: argparse.Namespace) -> None:
    """Import the corpus once (derivation off), add ledger entries, then time `derive_due` from
    nothing and with every boundary done (the steady state of `ingest --follow`)."""
    work, home = args.work, Path(os.environ["HOME"])
    ingest_args = ("--no-transcripts",) if args.no_transcripts else ()
    if not (work / "prepared").exists():
        call_command("migrate", verbosity=0)
        started = time.perf_counter()
        ingest_without_deriving(*ingest_args)
        print(f"imported in {time.perf_counter() - started:.1f} s")
        started = time.perf_counter()
        entries = write_ledger(home)
        ingest_without_deriving(*ingest_args)
        print(f"{entries:,} ledger entries written and imported in {time.perf_counter() - started:.1f} s")
        (work / "prepared").write_text("ok\n")
    directory = work / "knowledge"
    sessions = list(Session.objects.order_by("pk"))
    print(f"{len(sessions):,} sessions, {LedgerEntry.objects.count():,} ledger entries")
    KnowledgeEvent.objects.all().delete()
    shutil.rmtree(directory, ignore_errors=True)
    started = time.perf_counter()
    events = candidates.derive_due(directory, sessions)
    seconds = time.perf_counter() - started
    started = time.perf_counter()
    candidates.derive_due(directory, sessions)
    again = time.perf_counter() - started
    written = len(list((directory / "candidates").glob("*.md")))
    print(
        f"{len(sessions):6,} sessions {len(events):7,} boundaries {written:7,} candidates: {seconds:8.2f} s = "
        f"{seconds / max(len(events), 1) * 1000:7.2f} ms per boundary; nothing due: {again:.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("measures")
    run.add_argument("--info", type=Path, required=True)
    run.add_argument("--requests", type=int, default=30)
    run.add_argument("--out", type=Path, required=True)
    pages = commands.add_parser("pages")
    pages.add_argument("--sid", required=True)
    pages.add_argument("--requests", type=int, default=30)
    pages.add_argument("--profile", action="store_true")
    appends = commands.add_parser("appends")
    appends.add_argument("--info", type=Path, required=True)
    derive = commands.add_parser("derive")
    derive.add_argument("--work", type=Path, required=True)
    derive.add_argument("--no-transcripts", action="store_true")
    args = parser.parse_args()
    commands = {
        "measures": command_measures,
        "appends": command_appends,
        "pages": command_pages,
        "derive": command_derive,
    }
    commands[args.command](args)


if __name__ == "__main__":
    main()
