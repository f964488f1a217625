"""The dashboard's reader while an import writes (fault suite, cases 21–22's "reads keep working").

Requests the real pages — the session list, a session page, a search — through Django's test
client every `--every` seconds, against the database WAYSWEB_DATABASE_URL names, and records per
request the server time and the time spent in SQL. Phase one (`--baseline N` requests) runs with
no importer; then it prints "ready" and samples until the file `--stop` exists. Results: one JSON
document written to `--out`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "waysweb.settings")

import django

django.setup()

from django.conf import settings
from django.db import connection
from django.test import Client

# Manifest storage needs collectstatic; the pages only need their static URLs.
settings.STORAGES = {
    **settings.STORAGES,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}


class SqlTimer:
    """execute_wrapper: adds up the time this request spends in the database."""

    def __init__(self) -> None:
        self.each: list[float] = []

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.each.append((time.perf_counter() - started) * 1000)


def sample(client: Client, url: str) -> dict:
    timer = SqlTimer()
    started = time.perf_counter()
    error = ""
    status = 0
    try:
        with connection.execute_wrapper(timer):
            status = client.get(url).status_code
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        traceback.print_exc()
    return {
        "url": url,
        "status": status,
        "ms": (time.perf_counter() - started) * 1000,
        "sql_ms": sum(timer.each),
        "queries": len(timer.each),
        "query_ms": timer.each,
        "error": error,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--session", required=True)
    parser.add_argument("--query", required=True)
    parser.add_argument("--every", type=float, default=0.05)
    parser.add_argument("--baseline", type=int, default=30)
    parser.add_argument("--stop", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    client = Client(HTTP_HOST="localhost")
    urls = ["/", f"/sessions/{args.session}/", f"/search/?q={args.query}"]
    for url in urls:  # warm: templates compiled, first connection opened
        client.get(url)
    results: dict[str, list[dict]] = {"baseline": [], "during": []}
    for n in range(args.baseline):
        results["baseline"].append(sample(client, urls[n % len(urls)]))
        time.sleep(args.every)
    print("ready", flush=True)
    n = 0
    while not args.stop.exists():
        results["during"].append(sample(client, urls[n % len(urls)]))
        n += 1
        time.sleep(args.every)
    args.out.write_text(json.dumps(results))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
