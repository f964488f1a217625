"""waysweb at scale: import throughput, re-runs, appends, memory and page times, in one run.

    uv run python bench/run.py [--tier small|large] [--json PATH] [--work DIR] [--requests N] [--skip-ccl]

Generates a deterministic corpus (bench/corpus.py), then measures, all in this run:
- the raw rate of reading the same bytes and `orjson.loads`-ing every line (the ceiling);
- a cold `manage.py ingest` into a fresh SQLite database (a child process: its peak RSS is the
  importer's own) — throughput in MiB/s and lines/s, and its ratio to the raw rate (the headline);
- a re-run over unchanged data, and a one-line append to a large file, imported as `--follow` does;
- server time (Django test client, no network) of the session list, the 5,000-turn session page and
  its next-turns fragment, search, and the dump JSON: p50 and p95;
- claude-code-log (PyPI) converting the same transcripts, against waysweb importing them and
  rendering every session's page.
Prints a table and writes JSON whose keys are the targets, each with value, unit and target.
Not part of the test suite: targets are checked here, never in timed unit tests.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import corpus  # noqa: E402

TARGETS = {
    "cold_import_ratio": ("ratio", ">= 0.25", lambda v: v >= 0.25),
    "rerun_seconds": ("s", "< 1", lambda v: v < 1),
    "append_ms": ("ms", "< 50", lambda v: v < 50),
    "importer_peak_rss_mb": ("MB", "< 300", lambda v: v < 300),
    "session_list_p95_ms": ("ms", "< 150", lambda v: v < 150),
    "replay_page_p95_ms": ("ms", "< 150", lambda v: v < 150),
    "replay_fragment_p95_ms": ("ms", "< 150", lambda v: v < 150),
    "search_p95_ms": ("ms", "< 300", lambda v: v < 300),
    "vs_claude_code_log_ratio": ("ratio", "<= 0.5", lambda v: v <= 0.5),
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round((len(ordered) - 1) * q))]


def raw_rate(files: list[Path]) -> tuple[float, int, int]:
    """Seconds to read every file in 8 MiB chunks, split on newlines and orjson-load every line."""
    import gzip

    started = time.perf_counter()
    lines = size = 0
    for path in files:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rb") as fh:
            rest = b""
            while chunk := fh.read(8 << 20):
                size += len(chunk)
                parts = (rest + chunk).split(b"\n")
                rest = parts.pop()
                for line in parts:
                    if line:
                        try:
                            orjson.loads(line)
                        except orjson.JSONDecodeError:
                            pass
                        lines += 1
    return time.perf_counter() - started, lines, size


def child_env(info: corpus.CorpusInfo, work: Path) -> dict:
    return {**os.environ, "HOME": str(info.home), "WAYSWEB_DATA_DIR": str(work / "data"),
            "WAYSWEB_DATABASE_URL": f"sqlite:///{work / 'bench.sqlite3'}", "DJANGO_SETTINGS_MODULE": "waysweb.settings",
            "XDG_STATE_HOME": "", "XDG_CONFIG_HOME": "", "XDG_DATA_HOME": "", "CLAUDE_CONFIG_DIR": ""}


def cold_import(info: corpus.CorpusInfo, work: Path) -> tuple[float, float, str]:
    for name in ("bench.sqlite3", "bench.sqlite3-wal", "bench.sqlite3-shm"):
        (work / name).unlink(missing_ok=True)
    shutil.rmtree(work / "data", ignore_errors=True)
    env = child_env(info, work)
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "-v0"], env=env, check=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(ROOT / "manage.py"), "ingest"], env=env, check=True,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - started
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    summary = next((line for line in done.stdout.splitlines() if line.startswith("Imported")), "")
    return seconds, max(peak_kb, before) / 1024, summary


def transcripts_import(info: corpus.CorpusInfo, work: Path) -> float:
    """Seconds to import the transcripts alone into a fresh database: what claude-code-log reads."""
    scratch = work / "transcripts-only"
    shutil.rmtree(scratch, ignore_errors=True)
    (scratch / "no-events").mkdir(parents=True)
    env = {**child_env(info, work), "WAYSWEB_DATA_DIR": str(scratch / "data"),
           "WAYSWEB_DATABASE_URL": f"sqlite:///{scratch / 'db.sqlite3'}"}
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "-v0"], env=env, check=True)
    started = time.perf_counter()
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "ingest", "--no-ways", "--state-dir",
                    str(scratch / "no-events"), "--legacy", str(scratch / "no-events" / "events.jsonl")],
                   env=env, check=True, capture_output=True)
    seconds = time.perf_counter() - started
    shutil.rmtree(scratch, ignore_errors=True)
    return seconds


def timed(client, url: str, requests: int, **extra) -> tuple[float, float, int]:
    timings = []
    for _ in range(requests):
        started = time.perf_counter()
        response = client.get(url, **extra)
        timings.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(timings), percentile(timings, 0.95), len(response.content)


def claude_code_log(info: corpus.CorpusInfo, work: Path) -> float | None:
    uv = shutil.which("uv") or "/usr/local/bin/uv"
    out = work / "ccl-out"
    shutil.rmtree(out, ignore_errors=True)
    command = [uv, "tool", "run", "--from", "claude-code-log", "claude-code-log", "convert", "--all-projects",
               "--projects-dir", str(info.home / ".claude" / "projects"), "-o", str(out), "--no-cache"]
    subprocess.run([uv, "tool", "run", "--from", "claude-code-log", "claude-code-log", "--version"],
                   capture_output=True, check=False)  # install outside the timing
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "HOME": str(work / "ccl-home")})
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        print(f"claude-code-log failed ({done.returncode}): {done.stderr.strip().splitlines()[-1:]}")
        return None
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tier", choices=sorted(corpus.TIERS), default="small")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--work", type=Path, help="keep the corpus and database here (reused if present)")
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--skip-ccl", action="store_true", help="do not run claude-code-log")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix=f"waysweb-bench-{args.tier}-"))
    work.mkdir(parents=True, exist_ok=True)
    results: dict[str, dict] = {}
    notes: dict[str, object] = {"tier": args.tier, "python": platform.python_version(), "cpus": os.cpu_count(),
                                "machine": platform.machine()}

    started = time.perf_counter()
    info = corpus.generate(work / "home", args.tier)
    notes["corpus"] = {"events_lines": info.events_lines, "events_bytes": info.events_bytes,
                       "transcript_lines": info.transcript_lines, "transcript_bytes": info.transcript_bytes,
                       "generated_s": round(time.perf_counter() - started, 1)}
    print(f"corpus: {info.events_lines:,} event lines ({info.events_bytes / 2**20:.0f} MiB), "
          f"{info.transcript_lines:,} transcript lines ({info.transcript_bytes / 2**20:.0f} MiB)")
    files = info.events_files + info.transcript_files

    import_s, rss_mb, summary = cold_import(info, work)
    total_bytes = info.events_bytes + info.transcript_bytes
    total_lines = info.events_lines + info.transcript_lines
    raw_runs = [raw_rate(files) for _ in range(3 if args.tier == "small" else 1)]
    raw_s = statistics.median(r[0] for r in raw_runs)
    raw_size = raw_runs[0][2]
    record(results, "cold_import_mib_s", total_bytes / 2**20 / import_s, "MiB/s")
    record(results, "cold_import_lines_s", total_lines / import_s, "lines/s")
    record(results, "raw_parse_mib_s", raw_size / 2**20 / raw_s, "MiB/s")
    record(results, "raw_parse_lines_s", raw_runs[0][1] / raw_s, "lines/s")
    record(results, "cold_import_ratio", raw_s / import_s * (total_bytes / raw_size))
    record(results, "cold_import_seconds", import_s, "s")
    record(results, "importer_peak_rss_mb", rss_mb)
    notes["ingest_summary"] = summary

    os.environ.update(child_env(info, work))
    import django

    django.setup()
    from django.conf import settings
    from django.test import Client
    from django.test.utils import override_settings

    from introspect.importer.run import Options, import_pass
    from introspect.models import Session
    from ledger.importer.run import import_pass as ledger_pass

    locs = settings.WAYSWEB_LOCATIONS
    options = Options(ways=False)
    import_pass(locs, options)
    started = time.perf_counter()
    import_pass(locs, Options())  # a full re-run, way roots included
    ledger_pass(locs)
    record(results, "rerun_seconds", time.perf_counter() - started)

    live = info.home / ".local/state/agent-ways/events.jsonl"
    timings = []
    for n in range(5):
        with open(live, "ab") as fh:
            fh.write(orjson.dumps({"ts": "2026-11-29T10:00:%02dZ" % n, "event": "way_fired", "way": "bench/append",
                                   "trigger": "bash", "session": info.long_session_id}) + b"\n")
        started = time.perf_counter()
        result = import_pass(locs, options)  # one --follow poll: stat every source, read the new line
        timings.append((time.perf_counter() - started) * 1000)
        assert result.totals.imported == 1, result.totals
    record(results, "append_ms", statistics.median(timings))

    static = {"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
              "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
    client = Client(HTTP_HOST="127.0.0.1")
    sid = info.long_session_id
    with override_settings(STORAGES=static):
        pages = {
            "session_list": ("/", {}),
            "replay_page": (f"/sessions/{sid}/", {}),
            "replay_fragment": (f"/sessions/{sid}/?from=2481", {"HTTP_HX_REQUEST": "true"}),
            "search": (f"/search/?q={info.search_terms[0]}", {}),
            "dump_json": (f"/api/sessions/{sid}/dump.json", {}),
        }
        for name, (url, extra) in pages.items():
            p50, p95, size = timed(client, url, args.requests if name != "dump_json" else max(5, args.requests // 5),
                                   **extra)
            record(results, f"{name}_p50_ms", p50, "ms")
            record(results, f"{name}_p95_ms", p95, "ms")
        started = time.perf_counter()
        sessions = list(Session.objects.values_list("sid", flat=True))
        for session in sessions:
            client.get(f"/sessions/{session}/")
        render_all = time.perf_counter() - started
    record(results, "render_every_session_s", render_all, "s")
    notes["sessions"] = len(sessions)
    if not args.skip_ccl:
        ccl = claude_code_log(info, work)
        if ccl is not None:
            record(results, "claude_code_log_s", ccl, "s")
            # The same work as claude-code-log: read the transcripts, then render every session.
            transcripts_s = transcripts_import(info, work)
            record(results, "transcripts_import_s", transcripts_s, "s")
            record(results, "vs_claude_code_log_ratio", (transcripts_s + render_all) / ccl)

    print_table(results, notes)
    if args.json:
        args.json.write_bytes(orjson.dumps({"notes": notes, "results": results}, option=orjson.OPT_INDENT_2))
        print(f"wrote {args.json}")


def record(results: dict, key: str, value: float, unit: str | None = None) -> None:
    target_unit, target, check = TARGETS.get(key, (unit or "", "", None))
    results[key] = {"value": round(value, 3), "unit": unit or target_unit, "target": target}
    if check is not None:
        results[key]["met"] = bool(check(value))


def print_table(results: dict, notes: dict) -> None:
    print(f"\nwaysweb bench — tier {notes['tier']}, Python {notes['python']}, {notes['cpus']} CPUs")
    print(f"{'measure':32s} {'value':>14s}  {'unit':8s} {'target':10s} met")
    for key, row in results.items():
        met = "" if "met" not in row else ("yes" if row["met"] else "NO")
        print(f"{key:32s} {row['value']:>14,.3f}  {row['unit']:8s} {row['target']:10s} {met}")


if __name__ == "__main__":
    main()
