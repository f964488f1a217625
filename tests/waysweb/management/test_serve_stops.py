"""`manage.py serve` outlives a closed stdout and always stops on Ctrl-C, its importer with it (issue 25).

The real command in a subprocess (tests/waysweb/management/served.py): `serve | head -1` closes
its stdout after the first line, which its importer shares; a terminal's Ctrl-C reaches the whole
process group, `kill -INT` the server alone, and `uv run` sends the command a second copy of the
same Ctrl-C.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from tests.processes import exited
from tests.waysweb.management.served import (
    children,
    get,
    imported_sessions,
    start,
    write_history,
)

SESSIONS = 12
TURNS = 150
STOPPED_WITHIN = 20  # seconds: the importer is asked, then killed after serve.STOP_IMPORTER_SECS


@pytest.fixture
def history(tmp_path):
    home = tmp_path / "home"
    write_history(home, sessions=SESSIONS, turns=TURNS)
    return home


def wait_for(check, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def test_it_imports_and_answers_after_its_reader_closed_stdout_then_stops_on_ctrl_c(tmp_path, history):
    errors = tmp_path / "serve.err"
    with errors.open("wb") as sink:
        served = start(tmp_path, history, stdout=subprocess.PIPE, stderr=sink)
    try:
        first = served.process.stdout.readline().decode()
        served.process.stdout.close()  # `| head -1`: the reader is gone after one line
        assert "waysweb is serving" in first
        importer = served.importer()
        wait_for(
            lambda: len(imported_sessions(served.database, derived=True)) == SESSIONS,
            120,
            f"the import did not finish:\n{errors.read_text()[-3000:]}",
        )
        status, page = get(f"{served.base}/")
        assert status == 200 and "No sessions yet" not in page
        os.killpg(served.process.pid, signal.SIGINT)  # Ctrl-C at the terminal
        assert served.process.wait(timeout=STOPPED_WITHIN) == 0
        wait_for(lambda: exited(importer), 5, "the importer outlived serve")
        said = errors.read_text()
        assert "Broken pipe" not in said and "import pass failed" not in said, said
        assert "Traceback" not in said, said
    finally:
        served.stop()


@pytest.mark.parametrize(
    "ctrl_c",
    ["the server alone", "the group, twice as uv run delivers it", "the server, while it imports"],
)
def test_ctrl_c_stops_the_server_and_its_importer(tmp_path, history, ctrl_c):
    out = tmp_path / "serve.out"
    with out.open("wb") as sink:
        served = start(tmp_path, history, stdout=sink)
    try:
        importer = served.importer()
        served.wait_listening()
        if ctrl_c != "the server, while it imports":
            wait_for(
                lambda: len(imported_sessions(served.database, derived=True)) == SESSIONS,
                120,
                f"the import did not finish:\n{out.read_text()[-3000:]}",
            )
        if ctrl_c == "the group, twice as uv run delivers it":
            os.killpg(served.process.pid, signal.SIGINT)
            os.kill(served.process.pid, signal.SIGINT)
        else:
            os.kill(served.process.pid, signal.SIGINT)
        assert served.process.wait(timeout=STOPPED_WITHIN) == 0, out.read_text()[-3000:]
        wait_for(lambda: exited(importer), 5, "the importer outlived serve")
        said = out.read_text()
        assert "Stopped the web server; stopping the importer." in said
        assert "Traceback" not in said, said
        assert children(served.process.pid) == []
    finally:
        served.stop()
