"""How soon an appended decision-log scan is on its session page while `manage.py serve` follows.

    uv run python bench/decision_follow.py                    # 2,000 scans before, 20 appended
    uv run python bench/decision_follow.py --scans 100000 --trials 30 --work /tmp/follow-bench

Issue 27's "an appended scan is on its session page within a second when following". Writes
bench/decision_rules.py's deterministic log as the live `decisions.jsonl` of a HOME that also holds
an events log (so `serve` imports it rather than showing the sample), starts `manage.py serve`
(which migrates, imports and then follows, as a user runs it), waits until the whole log is in,
then appends one scan of a session at a time and polls that session's page until the scan's id is
on it. Prints each latency and their median, p90 and max, and how long one page takes to answer
(the floor of any latency measured this way). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import child  # noqa: E402 - after the path
from bench.decision_rules import write_log  # noqa: E402
from introspect.rules import rust_json  # noqa: E402

POLL_SECONDS = 0.01
CATCH_UP_SECONDS = 1800


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def page(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read().decode()


def appended_scan(session: str, n: int) -> tuple[str, bytes]:
    """A prompt scan of `session` that opens a turn, with a candidate and an outcome."""
    scan_id = f"bench-follow-{n:05d}"
    record = {
        "ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "kind": "scan",
        "scan_id": scan_id,
        "session": session,
        "agent": "main",
        "epoch": n,
        "turn_start": True,
        "token_position": 0,
        "surface": "prompt",
        "hook_event": "UserPromptSubmit",
        "scope": "agent",
        "project": "/bench",
        "candidates": [{"way": "code/testing", "cosine": 0.41, "share": 0.6, "margin": 0.08}],
        "outcomes": [{"way": "code/testing", "result": "fired", "rank": 1, "channel": "keyword"}],
        "judge": {"status": "off", "capped": []},
    }
    return scan_id, (rust_json.dumps(record) + "\n").encode()


def wait_for(url: str, text: str, limit: float) -> float:
    """Seconds until `text` is on the page at `url` (polled every POLL_SECONDS)."""
    started = time.perf_counter()
    while True:
        try:
            if text in page(url):
                return time.perf_counter() - started
        except OSError:
            pass  # not listening yet
        if time.perf_counter() - started > limit:
            raise SystemExit(f"{text!r} not on {url} after {limit:.0f} s")
        time.sleep(POLL_SECONDS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scans", type=int, default=2_000, help="scans in the log before following")
    parser.add_argument("--trials", type=int, default=20, help="scans appended, one at a time")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--work", type=Path, help="the HOME, database and logs go here")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="waysweb-follow-"))
    state = work / "home" / ".local" / "state" / "agent-ways"
    state.mkdir(parents=True, exist_ok=True)
    log = state / "decisions.jsonl"
    lines, session = write_log(log, args.scans, args.seed)
    (state / "events.jsonl").write_bytes(
        rust_json.dumps(
            {"ts": "2026-10-01T00:00:00Z", "event": "session_start", "session": session, "project": "/bench"}
        ).encode()
        + b"\n"
    )
    port = free_port()
    env = child.environment(work)
    url = f"http://127.0.0.1:{port}/sessions/{session}/"
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "serve", "--port", str(port)],
        env=env,
        stdout=open(work / "serve.out", "w"),  # noqa: SIM115 - the child holds it
        stderr=subprocess.STDOUT,
    )
    try:
        _, last_line = appended_scan(session, 0)
        with log.open("ab") as out:  # a marker after the whole log: on the page once it is all in
            out.write(last_line)
        caught_up = wait_for(url, "bench-follow-00000", CATCH_UP_SECONDS)
        print(f"log: {lines:,} lines; served and imported in {caught_up:.1f} s (page {url})", flush=True)
        page_times = []
        for _ in range(5):
            started = time.perf_counter()
            page(url)
            page_times.append(time.perf_counter() - started)
        latencies = []
        for n in range(1, args.trials + 1):
            time.sleep(0.3)  # a prompt at a time, as a person types them
            scan_id, data = appended_scan(session, n)
            with log.open("ab") as out:  # one write_all on an O_APPEND handle, as agent-ways writes
                out.write(data)
            latencies.append(wait_for(url, scan_id, 60))
            print(f"  scan {n}: on the page after {latencies[-1] * 1000:.0f} ms", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=60)
    latencies.sort()
    p90 = latencies[max(-(-len(latencies) * 9 // 10), 1) - 1]
    print(
        f"appended scan on its session page: median {statistics.median(latencies) * 1000:.0f} ms, "
        f"p90 {p90 * 1000:.0f} ms, max {latencies[-1] * 1000:.0f} ms over {len(latencies)} scans; "
        f"one page answers in {statistics.median(page_times) * 1000:.0f} ms (median of 5)"
    )
    print(f"work directory: {work}")


if __name__ == "__main__":
    main()
