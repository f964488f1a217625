"""Pages under load: 8 concurrent clients against a real `manage.py serve` on loopback.

    uv run python bench/load.py [--clients 8] [--seconds 25] [--turns 5000] [--work DIR] [--tree DIR]

Builds the 5,000-turn session of bench/session_page.py into a HOME (once per --work directory),
imports it into that directory's SQLite database, starts `manage.py serve --no-ingest` on a free
loopback port in a child process, and lets `--clients` threads, each with its own keep-alive
connection, request the session list, the long session's page, a search and one replay window
in turn for `--seconds`. Prints requests/s, p50/p95/p99 per URL and overall, and the errors
(status other than 200, or a connection failure).

`--tree` serves another checkout's manage.py with this environment (a `git archive` export of a
base commit, to measure "before"): the replay target is `replay.json?matched=1&window=2`, which
a build without windowed replay answers with the whole document, as its replay panel fetched it.
The client threads share this process's GIL with nothing else heavy: they only read bytes.
"""

from __future__ import annotations

import argparse
import http.client
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.session_page import build_home  # noqa: E402 - after the path

SID = "bench-0000-4000-8000-long-session"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round((len(ordered) - 1) * q))]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def environment(work: Path) -> dict[str, str]:
    return {
        **os.environ,
        "HOME": str(work / "home"),
        "WAYSWEB_DATA_DIR": str(work / "data"),
        "DJANGO_SETTINGS_MODULE": "waysweb.settings",
        "WAYSWEB_DATABASE_URL": f"sqlite:///{work / 'bench.sqlite3'}",
        "DJANGO_DEBUG": "",
    }


def prepare(work: Path, tree: Path, turns: int) -> None:
    """The HOME and its imported database, built once per work directory."""
    env = environment(work)
    if not (work / "home").exists():
        build_home(work / "home", turns, SID)
    if not (work / "bench.sqlite3").exists():
        manage = str(tree / "manage.py")
        subprocess.run([sys.executable, manage, "migrate", "--verbosity", "0"], env=env, check=True)
        started = time.perf_counter()
        subprocess.run([sys.executable, manage, "ingest"], env=env, check=True, stdout=subprocess.DEVNULL)
        print(f"imported in {time.perf_counter() - started:.1f} s")


def start_server(work: Path, tree: Path, port: int) -> subprocess.Popen:
    server = subprocess.Popen(
        [sys.executable, str(tree / "manage.py"), "serve", "--no-ingest", "--port", str(port)],
        env=environment(work),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited with {server.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return server
        except OSError:
            time.sleep(0.3)
    server.kill()
    raise SystemExit("the server did not start listening within 120 s")


class Results:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.timings: dict[str, list[float]] = {}
        self.errors: dict[str, int] = {}
        self.bytes: dict[str, int] = {}

    def add(self, name: str, ms: float, size: int, ok: bool) -> None:
        with self.lock:
            if ok:
                self.timings.setdefault(name, []).append(ms)
                self.bytes[name] = size
            else:
                self.errors[name] = self.errors.get(name, 0) + 1


def client(port: int, targets: list[tuple[str, str]], offset: int, stop_at: float, results: Results) -> None:
    """One client: the targets in turn (starting at `offset`), one keep-alive connection, a new one after a failure."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    n = offset
    while time.monotonic() < stop_at:
        name, url = targets[n % len(targets)]
        n += 1
        started = time.perf_counter()
        try:
            connection.request("GET", url, headers={"Host": "127.0.0.1", "Accept-Encoding": "identity"})
            response = connection.getresponse()
            body = response.read()
            results.add(name, (time.perf_counter() - started) * 1000, len(body), response.status == 200)
        except (OSError, http.client.HTTPException):
            results.add(name, 0.0, 0, False)
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    connection.close()


def report(results: Results, seconds: float, clients: int, targets: list[tuple[str, str]]) -> None:
    every = [ms for values in results.timings.values() for ms in values]
    errors = sum(results.errors.values())
    print(
        f"{clients} clients for {seconds:.1f} s; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    )
    heads = ("n", 5), ("req/s", 7), ("p50 ms", 9), ("p95 ms", 9), ("p99 ms", 9), ("errors", 6), ("KiB", 8)
    print(f"{'target':22s} " + " ".join(f"{head:>{width}s}" for head, width in heads))
    for name, _ in [*targets, ("all", "")]:
        values = every if name == "all" else results.timings.get(name, [])
        failed = errors if name == "all" else results.errors.get(name, 0)
        size = "" if name == "all" else f"{results.bytes.get(name, 0) / 1024:8.0f}"
        if not values:
            print(f"{name:22s} {0:5d} {'':>7s} {'':>9s} {'':>9s} {'':>9s} {failed:6d} {size}")
            continue
        print(
            f"{name:22s} {len(values):5d} {len(values) / seconds:7.2f} {statistics.median(values):9.1f} "
            f"{percentile(values, 0.95):9.1f} {percentile(values, 0.99):9.1f} {failed:6d} {size}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=25)
    parser.add_argument("--turns", type=int, default=5000)
    parser.add_argument("--work", type=Path, help="reuse (or create) this directory instead of a fresh one")
    parser.add_argument(
        "--tree", type=Path, default=ROOT, help="the checkout whose manage.py serves (default: here)"
    )
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="waysweb-load-"))
    tree = args.tree.resolve()
    prepare(work, tree, args.turns)
    targets = [
        ("session list", "/"),
        ("session page", f"/sessions/{SID}/"),
        ("search", "/search/?q=commit"),
        ("replay window", f"/api/sessions/{SID}/replay.json?matched=1&window=2"),
    ]
    port = free_port()
    server = start_server(work, tree, port)
    try:
        for _, url in targets:  # one of each first: templates compiled, caches filled
            warm = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
            warm.request("GET", url, headers={"Host": "127.0.0.1"})
            warm.getresponse().read()
            warm.close()
        results = Results()
        started = time.monotonic()
        threads = [
            threading.Thread(target=client, args=(port, targets, n, started + args.seconds, results))
            for n in range(args.clients)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        report(results, time.monotonic() - started, args.clients, targets)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
