"""`manage.py serve` listens first and imports behind it, newest files first (issue 15).

Drives the real command in a subprocess, on a free port, with HOME at a generated Claude Code
history whose oldest file, read last, is long enough that reading it takes seconds on any machine:
the pages answer while the import runs, every page shows the progress strip, and the newest session
is listed before the oldest file is done.
"""

from __future__ import annotations

import threading
import time

import pytest

from tests.waysweb.management.served import SESSIONS, TURNS, get, imported_sessions, sid, start, write_history


@pytest.fixture
def served(tmp_path):
    """`serve` on a generated history; yields (base URL, database path, output file)."""
    home = tmp_path / "home"
    # The oldest file is read last; as long as 40 of the others (≈ 24 MiB, several committed
    # batches), it is still being read when the first derive is due (`passes.DERIVE_EVERY_SECS`,
    # tried between batches) however fast the machine: at 10 of the others, a quiet machine read
    # all 30 files in under 2 s and its first derive listed every session.
    write_history(home, oldest_turns=40 * TURNS)
    out = tmp_path / "serve.out"
    with out.open("wb") as sink:
        server = start(tmp_path, home, stdout=sink)
    try:
        yield server.base, server.database, out
    finally:
        server.stop()


def first_listed(database, finished: threading.Event) -> list[set[str]]:
    """Watch the database from the start: the first sessions derived (those the list shows)."""
    seen: list[set[str]] = []

    def watch() -> None:
        while not finished.is_set():
            if derived := imported_sessions(database, derived=True):
                seen.append(derived)
                return
            time.sleep(0.02)

    threading.Thread(target=watch, daemon=True).start()
    return seen


def test_it_answers_while_the_first_import_runs_and_lists_the_newest_session_first(served):
    base, database, out = served
    newest, oldest = sid(SESSIONS - 1), sid(0)
    started = time.monotonic()
    finished = threading.Event()
    first = first_listed(database, finished)
    first_page = None
    strip_seen = False
    while True:
        # A timeout, not a measurement (bench/ measures): a session is listed once derived, and the
        # shared two-core machine may be busy.
        assert time.monotonic() - started < 120, (
            f"the newest session was not listed:\n{out.read_text()[-3000:]}"
        )
        try:
            status, body = get(f"{base}/")
        except OSError:
            time.sleep(0.1)
            continue
        assert status == 200
        if first_page is None:
            # Answered while the import still runs: the oldest file, read last, is not listed yet.
            first_page = oldest not in imported_sessions(database, derived=True)
        strip_seen = strip_seen or 'id="progress-strip"' in body
        if newest in body:
            break
        time.sleep(0.2)
    finished.set()
    # The first sessions the list could show were the newest, derived while the oldest file was
    # still being read (a page could only miss that moment by being slow, so the database is watched).
    assert first and newest in first[0] and oldest not in first[0], first
    assert first_page, "the first page was answered only once the import was done"
    # Every page shows the strip while the import runs, and polls its own route for a fresh one.
    while not strip_seen and oldest not in imported_sessions(database):
        strip_seen = 'id="progress-strip"' in get(f"{base}/ways/")[1]
        time.sleep(0.2)
    assert strip_seen, "no progress strip while the import ran"
    status, fragment = get(f"{base}/import-progress/")
    assert status == 200 and "<html" not in fragment
    # The rest lands behind it: every session, and the strip gone once the import is done.
    while len(imported_sessions(database)) < SESSIONS or 'id="progress-strip"' in get(f"{base}/")[1]:
        assert time.monotonic() - started < 240, f"the import did not finish:\n{out.read_text()[-3000:]}"
        time.sleep(0.5)
    assert get(f"{base}/import-progress/")[1].strip() == ""
