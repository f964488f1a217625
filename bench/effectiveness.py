"""Server time of the effectiveness page and of `introspect effectiveness --json` over an imported
database (decisions-and-effectiveness.md §8.5): p50 and p95, CPU time and queries.

    export WAYSWEB_DATABASE_URL=sqlite:////path/to/db.sqlite3 HOME=/path/to/corpus/home \\
           WAYSWEB_DATA_DIR=/path/to/data DJANGO_SETTINGS_MODULE=waysweb.settings
    uv run python bench/effectiveness.py [--requests 20] [--project P] [--days N]

The database is one that `bench/run.py --tier large` (or `bench/corpus.py` and `ingest`) already
filled; nothing is imported or written. The page goes through Django's test client with the plain
static storage, as bench/inproc.py renders pages: the whole page, every project and every day (the
default view, the most rows), and a frame of one project; the command is called in-process, its
JSON written to a buffer. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Not bench/ first on the path: its secrets.py would stand for the standard library's (lib/viewers.py).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "waysweb.settings")

import django  # noqa: E402 - after the path and settings module

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, override_settings  # noqa: E402

from bench.inproc import STATIC, percentile  # noqa: E402
from introspect.models import DecisionOutcome, Session, TurnOutcome, TurnWay, WaysEvent  # noqa: E402


def series(run, requests: int) -> tuple[str, int]:
    """p50/p95 of wall and CPU time over `requests` runs, then the queries and bytes of one more."""
    timings, cpu = [], []
    for _ in range(requests):
        t0, c0 = time.perf_counter(), time.process_time()
        run()
        timings.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    with CaptureQueriesContext(connection) as captured:
        size = run()
    return (
        f"p50 {statistics.median(timings):7.1f} ms  p95 {percentile(timings, 0.95):7.1f} ms  "
        f"(cpu p50 {statistics.median(cpu):.1f}, p95 {percentile(cpu, 0.95):.1f})  "
        f"{len(captured)} queries  {size / 1024:.0f} KiB"
    ), len(captured)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--project", help="the one-project frame (default: the project with most sessions)")
    args = parser.parse_args()
    client = Client(HTTP_HOST="127.0.0.1")
    project = args.project or (
        Session.objects.exclude(project=None)
        .values_list("project__path", flat=True)
        .order_by("project__path")
        .first()
    )

    def page(**query) -> int:
        response = client.get("/ways/effectiveness/", query)
        assert response.status_code == 200, response.status_code
        return len(response.content)

    def command(*extra: str) -> int:
        out = StringIO()
        call_command("introspect", "effectiveness", "--json", *extra, stdout=out)
        return len(out.getvalue())

    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(
        f"rows: {Session.objects.count():,} sessions, {TurnOutcome.objects.count():,} turn outcomes, "
        f"{TurnWay.objects.count():,} fire-turn ways, "
        f"{WaysEvent.objects.filter(event='way_nearmiss').count():,} near-misses, "
        f"{DecisionOutcome.objects.count():,} decision outcomes"
    )
    with override_settings(STORAGES=STATIC, DEBUG=False):
        client.get("/")  # templates, URLconf and the connection ready before anything is timed
        print(f"page, every project    {series(page, args.requests)[0]}")
        print(f"page, {project}  {series(lambda: page(project=project), args.requests)[0]}")
        print(f"json, every project    {series(command, args.requests)[0]}")
        print(f"json, {project}  {series(lambda: command('--project', project), args.requests)[0]}")


if __name__ == "__main__":
    main()
