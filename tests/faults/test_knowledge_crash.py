"""SIGKILL while a cold import writes and records its knowledge candidates, then resume.

The candidate files of a pass are written together (ledger/derive/candidate_files.py `Writes`: temp files,
one flush of the disk, renames) and their records inserted a run at a time. An import of sessions
whose evidence makes hundreds of candidates is killed at a random point after its candidates folder
appears (while the files are written, renamed, or recorded), then run again to its end; then the
knowledge it derived is taken away and the next kill lands in a ledger pass from nothing again.
After each resumed run the candidate files on disk and the `KnowledgeRecord` rows must agree exactly
(one present row per file, with its hash, size and mtime), and both must equal an uninterrupted
import of the same HOME: the same files byte for byte, the same rows, their ids in the same order.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import Home
from tests.faults.conftest import BASE_DIR, MANAGE, Zygote, write_figures
from tests.ledger.derive.test_candidates import busy_sessions
from tests.processes import exited

SEED = 29  # issue 29
KILLS = int(os.environ.get("WAYSWEB_KNOWLEDGE_KILLS", "6"))
SESSIONS = 100  # three candidates each
ARGS = ("--no-ways",)
# Every column of a record but its id, its directory and its timestamps (which name the run), its
# session and ledger entry by what they are rather than by their ids, in the order of the ids.
RECORDS = """
SELECT k.record_id, k.source_class, k.origin, k.klass, k.status, k.epistemics, k.title,
       k.description, k.date, k.tags, k.derived_from, k.relations, k.superseded_by, k.about, k.body,
       k.frontmatter, k.sha256, k.file_size, k.present, k.problem, k.conflict, k.turn_epochs,
       s.sid, e.project_slug, e.epoch
FROM ledger_knowledgerecord k
LEFT JOIN introspect_session s ON s.id = k.session_id
LEFT JOIN ledger_ledgerentry e ON e.id = k.ledger_entry_id
ORDER BY k.id
"""
STATS = (
    "SELECT directory, source_class, record_id, sha256, file_size, file_mtime_ns, present "
    "FROM ledger_knowledgerecord"
)


def wait_for(pid: int, ready, *, limit: float = 120.0) -> bool:
    """Wait until `ready()` (True), or until the child has exited (False): never out a deadline
    while nothing can happen any more. `limit` only guards against a child that hangs."""
    deadline = time.monotonic() + limit
    while not ready():
        if exited(pid):
            return ready()
        assert time.monotonic() < deadline, f"the importer {pid} neither wrote candidates nor ended"
        time.sleep(0.002)
    return True


def files_of(directory: Path) -> dict[str, bytes]:
    """The knowledge records on disk (temp files a killed write left are not records: no reader lists them)."""
    return {
        f"{folder}/{path.name}": path.read_bytes()
        for folder in ("candidates", "curated")
        if (directory / folder).is_dir()
        for path in sorted((directory / folder).iterdir())
        if path.name.endswith(".md")
    }


def assert_files_match_rows(db, directory: Path) -> None:
    rows = {(row[1], row[2]): row for row in db.rows(STATS)}
    assert {row[0] for row in rows.values()} == {str(directory)}
    assert all(row[6] for row in rows.values())  # every row present
    on_disk = files_of(directory)
    assert sorted(f"{folder}/{rid}.md" for folder, rid in rows) == sorted(on_disk)
    for name, data in on_disk.items():
        folder, _, file = name.partition("/")
        row = rows[folder, file.removesuffix(".md")]
        st = os.stat(directory / name)
        assert row[3:6] == (hashlib.sha256(data).hexdigest(), st.st_size, st.st_mtime_ns), name


def ledger_tail(db, home: Home, data: Path) -> float:
    """An uninterrupted import, and the seconds from its candidates folder appearing (the first write
    of its candidates) to its end: the span the kills are spread over."""
    proc = subprocess.Popen(
        [sys.executable, str(MANAGE), "ingest", *ARGS],
        env=db.env(home.root, data),
        cwd=BASE_DIR,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert wait_for(proc.pid, (data / "knowledge" / "candidates").exists), proc.communicate()[1][-3000:]
        began = time.monotonic()
        _, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err[-3000:]
    return time.monotonic() - began


def forget_knowledge(db, data: Path) -> None:
    """The knowledge a pass derived and recorded taken away, as before a cold import's ledger pass."""
    connection = db.connect()
    try:
        connection.execute("DELETE FROM introspect_secretfinding WHERE place = 'ledger.knowledgerecord'")
        connection.execute("DELETE FROM ledger_knowledgeevent")
        connection.execute("DELETE FROM ledger_knowledgerecord")
    finally:
        connection.close()
    shutil.rmtree(data / "knowledge" / "candidates")


def test_sigkill_while_candidates_are_written_then_a_rerun_matches_an_uninterrupted_import(file_db, tmp_path):
    rnd = random.Random(SEED)
    home = Home(tmp_path / "home")
    busy_sessions(home, 0, SESSIONS)
    clean_db, crash_db = file_db(), file_db()
    clean_data, crash_data = tmp_path / "clean-data", tmp_path / "crash-data"
    tail = ledger_tail(clean_db, home, clean_data)
    clean_files = files_of(clean_data / "knowledge")
    assert len(clean_files) == 3 * SESSIONS
    assert_files_match_rows(clean_db, clean_data / "knowledge")
    clean_records = clean_db.rows(RECORDS)
    candidates = crash_data / "knowledge" / "candidates"
    logs = tmp_path / "logs"
    logs.mkdir()
    figures = {"kills": 0, "files_half_written": 0, "records_half_written": 0, "completed_before_kill": 0}
    figures["tail_seconds"] = round(tail, 2)
    zygote = Zygote(crash_db.env(home.root, crash_data))
    try:
        for n in range(KILLS):
            if n:
                forget_knowledge(crash_db, crash_data)  # each kill in a ledger pass from nothing
            log = logs / f"run-{n:02d}.log"
            pid = zygote.start("ingest", log, *ARGS)
            if wait_for(pid, candidates.exists):
                # Every other kill while the files are written (a few hundred take a fraction of a
                # second), the others anywhere in the rest of the import.
                time.sleep(rnd.uniform(0, tail / 10 if n % 2 else tail))
                os.kill(pid, signal.SIGKILL)
            status = zygote.wait(pid)
            if status["signal"] == signal.SIGKILL:
                names = [p.name for p in candidates.iterdir()]
                written = sum(name.endswith(".md") for name in names)
                recorded = crash_db.rows("SELECT count(*) FROM ledger_knowledgerecord")[0][0]
                figures["kills"] += 1
                figures["files_half_written"] += written < len(clean_files)
                figures["records_half_written"] += 0 < recorded < written
            else:
                assert status["code"] == 0, log.read_text()[-3000:]
                figures["completed_before_kill"] += 1
            final = logs / f"resumed-{n:02d}.log"
            assert zygote.wait(zygote.start("ingest", final, *ARGS)) == {"code": 0, "signal": None}, (
                final.read_text()[-3000:]
            )
            assert files_of(crash_data / "knowledge") == clean_files
            assert_files_match_rows(crash_db, crash_data / "knowledge")
            assert crash_db.rows(RECORDS) == clean_records
    finally:
        zygote.close()
    write_figures("knowledge_crash", figures)
    assert figures["kills"] >= KILLS // 2, figures
