"""A cold `ingest` whose derive a second process plans (introspect/derive/planner.py) writes every
derived row a derive in one process writes, and a planner killed half way loses nothing: the writer
plans the rest itself.

Each run is `ingest` itself on the sample's history, in a process that derives two sessions a chunk
(so that the sample's sessions make several chunks) and, for the comparison, one whose planner never
starts. PYTHONHASHSEED is fixed: the sessions' ids then follow the same order in every run, and the
derived rows are compared whole, ids and all, but for the stamps of when they were written.
"""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import time

from lib import locations
from tests.conftest import Home
from tests.faults.conftest import run_python
from tests.processes import exited

# Put into the planner's boot before it serves: each message sent, then a pause.
PACED = """
import time
from lib import worker_pipes
sender = worker_pipes.sender

def paced(out):
    send = sender(out)

    def send_then_wait(message):
        send(message)
        time.sleep(0.5)

    return send_then_wait

worker_pipes.sender = paced
"""
INGEST = f"""
PACED = {PACED!r}
import os, signal, sys
import django
django.setup()
from django.core.management import call_command
from introspect.derive import planner, sessions

sessions.REBUILD_CHUNK = 2
how = sys.argv[1]
if how == "in process":
    planner.Planner.start = classmethod(lambda cls, chunks: None)
elif how == "planner killed":
    # The planner waits half a second after each chunk it sends: when the writer asks for its
    # second chunk and kills it, it has sent its first and few more, however small a message (the
    # pipe alone holds 64 KiB of them).
    planner.BOOT = planner.BOOT.replace("planner.serve(", PACED + "planner.serve(")
    real = planner.Planner.plans

    def plans(self, index):
        if index == 1 and self.worker is not None:
            os.kill(self.worker.process.pid, signal.SIGKILL)
        return real(self, index)

    planner.Planner.plans = plans
elif how == "writer killed":
    real = planner.Planner.plans

    def plans(self, index):
        if index == 1 and self.worker is not None:
            print("worker", self.worker.process.pid, flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
        return real(self, index)

    planner.Planner.plans = plans
call_command("ingest", *sys.argv[2:])
"""

# Each derived table, and the columns that say when a row was written rather than what it holds.
DERIVED = {
    "introspect_session": ("updated_at", "created_at"),
    "introspect_turn": (),
    "introspect_turnway": (),
    "introspect_window": (),
    "introspect_turnoutcome": (),
    "introspect_subagent": (),
    "introspect_project": ("created_at", "updated_at"),
}


def derived(db) -> dict[str, list]:
    found = {}
    for table, skipped in DERIVED.items():
        connection = db.connect()
        cursor = connection.cursor()
        cursor.execute(f"SELECT * FROM {table} ORDER BY id")
        names = [column[0] for column in cursor.description]
        found[table] = [
            tuple(value for name, value in zip(names, row, strict=True) if name not in skipped)
            for row in cursor.fetchall()
        ]
        connection.close()
    return found


def ingest(db, home: Home, data, how: str, *, status: int = 0) -> subprocess.CompletedProcess:
    env = db.env(home.root, data, PYTHONHASHSEED="0")
    done = run_python("-c", INGEST, how, "--no-ways", env=env, timeout=300)
    assert done.returncode == status, done.stderr[-3000:]
    return done


def ended(pid: int, within: float) -> bool:
    """Whether the process is gone (or a zombie nobody reaps: exited all the same) within `within` s."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if exited(pid):
            return True
        time.sleep(0.1)
    return False


def planned(out: str) -> int:
    found = re.search(r"planned by a second process: the derived rows of ([\d,]+) session", out)
    return int(found.group(1).replace(",", "")) if found else 0


def test_a_derive_planned_by_a_second_process_writes_the_rows_one_process_writes(file_db, tmp_path):
    homes = {how: Home(tmp_path / how.replace(" ", "-")) for how in ("in process", "ahead", "planner killed")}
    runs = {}
    for how, home in homes.items():
        shutil.copytree(locations.SAMPLE_HOME, home.root, symlinks=True, dirs_exist_ok=True)
        db = file_db()
        runs[how] = (db, ingest(db, home, tmp_path / f"{how}-data".replace(" ", "-"), how).stdout)

    alone, alone_out = runs["in process"]
    sessions = alone.count("introspect_session")
    assert sessions > 6  # several chunks of two
    assert planned(alone_out) == 0
    ahead, ahead_out = runs["ahead"]
    assert planned(ahead_out) == sessions  # every session as the second process planned it
    killed, killed_out = runs["planner killed"]
    # Its first chunk, and what it had sent of the next two before it died (planner.AHEAD): the
    # writer planned the rest.
    assert 2 <= planned(killed_out) <= 6 < sessions

    expected = derived(alone)
    assert expected["introspect_turn"] and expected["introspect_turnway"] and expected["introspect_window"]
    assert derived(ahead) == expected
    assert derived(killed) == expected


def test_a_writer_killed_while_its_planner_plans_leaves_no_worker_and_loses_nothing(file_db, tmp_path):
    alone_home, killed_home = Home(tmp_path / "alone"), Home(tmp_path / "killed")
    for home in (alone_home, killed_home):
        shutil.copytree(locations.SAMPLE_HOME, home.root, symlinks=True, dirs_exist_ok=True)
    alone, killed = file_db(), file_db()
    ingest(alone, alone_home, tmp_path / "alone-data", "in process")

    done = ingest(killed, killed_home, tmp_path / "killed-data", "writer killed", status=-signal.SIGKILL)
    worker = int(re.search(r"worker (\d+)", done.stdout).group(1))
    assert ended(worker, within=30)  # its pipe broke: it ends with nothing of its own to keep
    assert derived(killed) != derived(alone)  # killed part way through the derive

    ingest(killed, killed_home, tmp_path / "killed-data", "ahead")  # the next run derives the rest

    assert derived(killed) == derived(alone)
