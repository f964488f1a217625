"""Server time of rendering session pages over an imported database: every transcript session's first
page, and the long session's page and next-page fragment.

    export WAYSWEB_DATABASE_URL=sqlite:////path/to/copy.sqlite3 HOME=/path/to/corpus/home \\
           WAYSWEB_DATA_DIR=/path/to/data DJANGO_SETTINGS_MODULE=waysweb.settings
    uv run python bench/render_pages.py --sid LONG_SID [--requests 20] [--limit N]
                                        [--skip-all] [--profile all|page|fragment] [--top 40]
                                        [--warm]

The database is one that `bench/run.py` (or `ingest`) already filled, e.g. a copy of the large
tier's; nothing is imported or written. Pages go through Django's test client with the plain static
storage, as bench/inproc.py `measures` renders them: the sessions with a transcript, each page once
(the bench's `render_transcript_sessions_s`), then `--requests` renders of the long session's page
(`/sessions/SID/`) and of its htmx fragment (`?turn=2481` with HX-Request), as p50/p95 with their
CPU time and query counts.

Every render cache is emptied before the all-sessions loop and before each long-session series,
unless `--warm`: the first render of a page in a fresh process is what the bench measures; `--warm`
shows what a reader re-opening a page gets. `--profile` runs cProfile over the named part instead of
timing it and prints the top `--top` functions by their own time and by cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "waysweb.settings")

import django  # noqa: E402 - after the path and settings module

django.setup()

from django.db import connection, reset_queries  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import override_settings  # noqa: E402

from bench.inproc import STATIC, percentile  # noqa: E402
from introspect.models import Session  # noqa: E402
from introspect.rules import highlight  # noqa: E402
from lib import render  # noqa: E402


def clear_caches() -> None:
    """Forget every rendered text, so a render costs what it costs in a fresh process."""
    render.clear_cache()
    highlight.clear_caches()


def render_all(client: Client, sids: list[str]) -> float:
    started = time.perf_counter()
    for sid in sids:
        response = client.get(f"/sessions/{sid}/")
        assert response.status_code == 200, (sid, response.status_code)
    return time.perf_counter() - started


def series(client: Client, url: str, requests: int, warm: bool, **extra) -> str:
    timings, cpu = [], []
    for _ in range(requests):
        if not warm:
            clear_caches()
        t0, c0 = time.perf_counter(), time.process_time()
        response = client.get(url, **extra)
        timings.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    connection.force_debug_cursor = True
    reset_queries()
    client.get(url, **extra)
    queries = len(connection.queries)
    connection.force_debug_cursor = False
    return (
        f"p50 {statistics.median(timings):6.1f} ms  p95 {percentile(timings, 0.95):6.1f} ms  "
        f"(cpu p50 {statistics.median(cpu):.1f}, p95 {percentile(cpu, 0.95):.1f})  "
        f"{queries} queries  {len(response.content) / 1024:.0f} KiB"
    )


def profiled(run, top: int) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    run()
    profiler.disable()
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sid", required=True, help="the long session's id")
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--limit", type=int, help="render only the first N transcript sessions")
    parser.add_argument("--skip-all", action="store_true", help="only the long session's page and fragment")
    parser.add_argument("--profile", choices=("all", "page", "fragment"))
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--warm", action="store_true", help="keep the render caches between renders")
    args = parser.parse_args()
    client = Client(HTTP_HOST="127.0.0.1")
    sids = list(Session.objects.exclude(transcript=None).order_by("pk").values_list("sid", flat=True))
    sids = sids[: args.limit] if args.limit else sids
    page = (f"/sessions/{args.sid}/", {})
    fragment = (f"/sessions/{args.sid}/", {"QUERY_STRING": "turn=2481", "HTTP_HX_REQUEST": "true"})
    with override_settings(STORAGES=STATIC, DEBUG=False):
        client.get("/")  # templates, URLconf and the connection ready before anything is timed
        if args.profile:
            clear_caches()
            if args.profile == "all":
                profiled(lambda: render_all(client, sids), args.top)
            else:
                url, extra = page if args.profile == "page" else fragment
                client.get(url, **extra)
                clear_caches()
                profiled(lambda: client.get(url, **extra), args.top)
            return
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
        if not args.skip_all:
            clear_caches()
            cpu = time.process_time()
            seconds = render_all(client, sids)
            print(
                f"all {len(sids)} transcript sessions: {seconds:.1f} s "
                f"({1000 * seconds / max(len(sids), 1):.0f} ms a page; cpu {time.process_time() - cpu:.1f} s)"
            )
        print(f"long session page      {series(client, *page[:1], args.requests, args.warm, **page[1])}")
        print(
            f"long session fragment  {series(client, *fragment[:1], args.requests, args.warm, **fragment[1])}"
        )


if __name__ == "__main__":
    main()
