"""Fault case 19 (importer-reliability.md §14): SIGKILL at random points, then resume.

The crash loop starts the `ingest` command on a corpus that needs many batches — a live log, a
gzip archive whose first member takes three batches, a legacy log, transcripts with spilled
outputs, torn lines — kills it with SIGKILL after a random (seeded) delay, lets the writers append a little, and starts
it again, at least a hundred times. Between kills every source's checkpoint must match its rows
(nothing half-written) and never move back. Finally one run completes, and every row — events,
entries, raw lines, quarantine, spills, source counters, session aggregates — must equal a clean
import of the same files into a fresh database. A second loop kills a cold import of transcripts
with spill files 25 times (issue 24: every spill was lost that way). The figures go to
test-artifacts/faults-<backend>.json.
"""

from __future__ import annotations

import gzip
import os
import random
import signal
import time
from dataclasses import dataclass, field

import pytest

from introspect.derive import rebuild, sessions
from introspect.models import Session
from introspect.rules.join import project_slug
from tests.conftest import Home, append, gzip_member
from tests.faults.conftest import (
    BACKEND,
    Zygote,
    assert_rows,
    entry,
    event,
    expected,
    ingest,
    jsonl,
    manage,
    spill_stub,
    write_figures,
)

SEED = 8  # issue 8
ITERATIONS = int(os.environ.get("WAYSWEB_CRASH_ITERATIONS", "100"))
ARGS = ("--no-ways",)


@dataclass
class Corpus:
    """Appends per stage (stage 0 is what is there before the first run); appends only, so
    applying every stage gives the same files whatever the order runs saw them in."""

    stages: list[list[tuple[str, bytes]]] = field(default_factory=list)

    def apply(self, home: Home, stage: int) -> None:
        for rel, data in self.stages[stage]:
            append(home.root / rel, data)

    @staticmethod
    def lines(home: Home) -> int:
        """Physical lines in the files of a HOME (inflated for the archives)."""
        count = 0
        for path in home.root.rglob("*.jsonl*"):
            data = path.read_bytes()
            count += (gzip.decompress(data) if path.suffix == ".gz" else data).count(b"\n")
        return count


def build_corpus(stages: int, seed: int = SEED) -> Corpus:
    rnd = random.Random(seed)
    state = ".local/state/agent-ways"
    live, legacy = f"{state}/events.jsonl", ".claude/stats/events.jsonl"
    sessions = [f"crash-{n:02d}" for n in range(24)]
    counter = iter(range(10**9))

    def ev(session: str | None = None, **fields) -> bytes:
        n = next(counter)
        session = session or rnd.choice(sessions)
        name = rnd.choice(
            ["way_fired", "way_fired", "way_fired", "way_suppressed", "way_nearmiss", "judge_call"]
        )
        return event(n, session=session, name=name, **fields)

    def trunk(session: str, project: str = "/work/crash") -> str:

        return f".claude/projects/{project_slug(project)}/{session}.jsonl"

    first: list[tuple[str, bytes]] = []
    starts = [event(next(counter), name="session_start", session=s, project="/work/crash") for s in sessions]
    archived_1 = [ev(surface="a" * rnd.randint(0, 120)) for _ in range(2400)]  # one member, three batches
    archived_2 = [ev() for _ in range(300)]
    first.append((f"{state}/events-2026-10-30.jsonl.gz", gzip_member(*starts[:12], *archived_1)))
    first.append((f"{state}/events-2026-10-30.jsonl.gz", gzip_member(*archived_2)))
    body = [*starts[12:], *archived_2[:150]]  # overlaps the archive: absorbed, not duplicated
    body += [ev(surface="l" * rnd.randint(0, 200)) for _ in range(1800)]
    repeated = ev()
    body[100:100] = [b"{not json at all\n", b"\n", repeated, repeated, b'{"ts":"\xff\xfe"}\n', b"   \n"]
    first.append((live, b"".join(body)))
    first.append((legacy, b"".join([*body[300:350], *(ev() for _ in range(250))])))
    said: dict[str, list[dict]] = {}
    for session in sessions[:5]:
        said[session] = [entry(session, n, kind="user" if n % 2 == 0 else "assistant") for n in range(200)]
        # Spilled outputs (a tool result's, a hook's), their files written before their lines.
        for n in (31, 97, 150):
            name = f"out-{n}.txt"
            said[session][n] = spill_stub(session, n, name, hook=n == 97)
            first.append((spilled(trunk(session), name), spill_body(rnd, name)))
        said[session][181] = spill_stub(session, 181, "never-written.txt")  # stays not found
        first.append((trunk(session), b"".join(jsonl(obj) for obj in said[session])))
    resumed = said[sessions[0]][:80] + [entry(sessions[0], n) for n in range(300, 320)]
    first.append((trunk(sessions[0], "/work/elsewhere"), b"".join(jsonl(obj) for obj in resumed)))
    agent = [entry(sessions[1], n, isSidechain=True, agentId="a1") | {"uuid": f"a1-{n}"} for n in range(100)]
    agent[40] = spill_stub(sessions[1], 40, "agent-out.txt", isSidechain=True, agentId="a1") | {
        "uuid": "a1-40"
    }
    first.append((spilled(trunk(sessions[1]), "agent-out.txt"), spill_body(rnd, "agent-out.txt")))
    agent_path = trunk(sessions[1]).removesuffix(".jsonl") + "/subagents/agent-a1.jsonl"
    first.append((agent_path, b"".join(jsonl(obj) for obj in agent)))
    # The decision log: an archive of two members (the older trims), the live file overlapping its
    # last member (a crash between archiving and trimming), a line upstream skips of each kind.
    scans = iter(range(10**9))

    def decided(count: int) -> list[bytes]:
        return [scan(next(scans), rnd.choice(sessions)) for _ in range(count)]

    trimmed, kept = decided(400), decided(300)
    decisions_archive = f"{state}/decisions-2026-10-30.jsonl.gz"
    first.append((decisions_archive, gzip_member(*trimmed[:250])))
    first.append((decisions_archive, gzip_member(*trimmed[250:])))
    skipped = [b'{"kind":"verdict"}\n', b'{"kind":"scan","epoch":-1}\n', b'{"kind":"scan",\n', b"\n"]
    first.append((DECISIONS, b"".join([*trimmed[350:], *skipped, *kept])))
    # The findings ledger: a snapshot per `ways-audit assemble --write`, a line upstream refuses.
    first.append((FINDINGS, b"".join([*snapshot(0), b'{"way":"d/a"}\n'])))
    plan = Corpus([first])
    torn: dict[str, bytes] = {}
    next_uuid = 1000
    for stage in range(1, stages):
        appends: list[tuple[str, bytes]] = []
        for rel, rest in torn.items():  # the writer completes what it left torn
            appends.append((rel, rest))
        torn = {}
        lines = b"".join(ev() for _ in range(rnd.randint(10, 50)))
        if rnd.random() < 0.3:  # leave the last line torn until the next stage
            cut = len(lines) - rnd.randint(1, 30)
            lines, torn[live] = lines[:cut], lines[cut:]
        appends.append((live, lines))
        decisions = b"".join(decided(rnd.randint(2, 12)))
        if rnd.random() < 0.3:  # a scan torn until the next stage
            cut = len(decisions) - rnd.randint(1, 30)
            decisions, torn[DECISIONS] = decisions[:cut], decisions[cut:]
        appends.append((DECISIONS, decisions))
        if stage % 5 == 0:
            findings = b"".join(snapshot(stage))
            if rnd.random() < 0.5:  # a snapshot torn until the next stage
                cut = len(findings) - rnd.randint(1, 30)
                findings, torn[FINDINGS] = findings[:cut], findings[cut:]
            appends.append((FINDINGS, findings))
        if stage % 6 == 0:
            member = gzip_member(*(ev() for _ in range(60)))
            half = len(member) // 2 if rnd.random() < 0.5 else len(member)
            appends.append((f"{state}/events-2026-10-31.jsonl.gz", member[:half]))
            if half < len(member):
                torn[f"{state}/events-2026-10-31.jsonl.gz"] = member[half:]
        session = rnd.choice(sessions[:5])
        grown = [entry(session, next_uuid + n) for n in range(5)]
        if stage % 5 == 0:
            name = f"out-{next_uuid}.txt"
            grown[2] = spill_stub(session, next_uuid + 2, name)
            appends.append((spilled(trunk(session), name), spill_body(rnd, name)))
        next_uuid += 5
        appends.append((trunk(session), b"".join(jsonl(obj) for obj in grown)))
        plan.stages.append(appends)
    if torn:
        plan.stages.append(list(torn.items()))
    return plan


DECISIONS = ".local/state/agent-ways/decisions.jsonl"
FINDINGS = ".local/state/agent-ways/findings.jsonl"


def snapshot(run: int) -> list[bytes]:
    """One `ways-audit assemble --write` run: a row per claimed (way, control), as finding.rs writes it."""
    evidence = {"total": run, "sessions": ["s1"], "first_seen": None, "last_seen": None}
    return [
        jsonl(
            {
                "way": way,
                "control": control,
                "criterion": None,
                "tier": "process",
                "evidence": evidence,
                "determination": None,
                "assessed_by": None,
                "assessed_at": None,
                "basis": None,
                "assembled_at": f"2026-10-30T{run // 60 % 24:02d}:{run % 60:02d}:00Z",
                "assembled_by": "ways-audit",
            }
        )
        for way, control in (("d/a", "NIST CM-3"), ("d/a", "SOC 2 CC8.1"), ("d/n", "NIST AC-2"))
    ]


def scan(n: int, session: str) -> bytes:
    """A decision-log scan with a candidate and outcomes (every third one opening a turn)."""
    record = {
        "ts": f"2026-10-30T{n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}Z",
        "kind": "scan",
        "scan_id": f"scan-{n}",
        "session": session,
        "agent": "main",
        "turn_start": n % 3 == 0,
        "candidates": [{"way": "d/a", "cosine": 0.41, "share": 0.6, "margin": 0.08}],
        "outcomes": [{"way": "d/a", "result": "fired", "rank": 1}, {"way": "d/n", "result": "near_miss"}],
    }
    return jsonl(record)


def spilled(trunk: str, name: str) -> str:
    """Where Claude Code spills an output of the session whose trunk file is `trunk`."""
    return f"{trunk.removesuffix('.jsonl')}/tool-results/{name}"


def spill_body(rnd: random.Random, name: str) -> bytes:
    """A spilled output: a few KB of text, with a NUL and bytes that are not UTF-8 (stored sanitised)."""
    return f"{name}\n".encode() + b"x" * rnd.randint(1_000, 40_000) + b"\x00\xff\xfe tail\n"


def checkpoints_match_rows(db) -> dict[tuple, int]:
    """Nothing half-written: every generation's lines_seen equals its raw rows, and its counters add up."""
    rows = db.rows(
        'SELECT s.kind, s.rel_path, s.generation, s."offset", s.member_bytes, s.lines_seen, s.imported, '
        "s.quarantined, s.inert, s.duplicate, (SELECT count(*) FROM introspect_physicalline r "
        "WHERE r.source_id = s.id) FROM introspect_sourcefile s"
    )
    positions = {}
    for (
        kind,
        rel,
        generation,
        offset,
        member_bytes,
        seen,
        imported,
        quarantined,
        inert,
        duplicate,
        raw,
    ) in rows:
        assert seen == raw == imported + quarantined + inert + duplicate, (kind, rel, generation, seen, raw)
        positions[(kind, rel, generation)] = (offset, member_bytes)
    return positions


class KillLoop:
    """Runs of the `ingest` command in `db`, each killed with SIGKILL after a random delay shorter
    than a clean import, tallied in `figures`. After each kill every checkpoint must match its rows
    and none may have moved back."""

    def __init__(
        self,
        db,
        home: Home,
        tmp_path,
        rnd: random.Random,
        clean_seconds: float,
        window: float,
        *,
        worker: bool = False,
    ):
        self.db, self.rnd = db, rnd
        # With `worker`, every pass reads its transcripts and events logs through the prepare worker
        # (a second process, importer/prefetch.py), however little there is to read: kills land in both.
        extra = {"WAYSWEB_PREPARE_WORKER_BYTES": "1", "WAYSWEB_PREPARE_EVENTS": "1"} if worker else {}
        self.zygote = Zygote(db.env(home.root, tmp_path / "crash-data", **extra))
        self.logs = tmp_path / "logs"
        self.logs.mkdir()
        self.window = window
        self.positions: dict[tuple, tuple[int, int]] = {}
        self.figures = {
            "iterations": 0,
            "killed_before_import": 0,
            "killed_mid_import": 0,
            "killed_after_import": 0,
            "completed_before_kill": 0,
            "lock_still_held": 0,
            "killed_with_indexes_left_out": 0,  # a cold load's (deferred_indexes.py), built by the next run
            "clean_import_seconds": round(clean_seconds, 2),
        }

    def kill_once(self) -> None:
        figures = self.figures
        log = self.logs / f"run-{figures['iterations']:03d}.log"
        delay = self.rnd.uniform(0.02, self.window)
        pid = self.zygote.start("ingest", log, *ARGS)
        began = time.monotonic()
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
        status = self.zygote.wait(pid)
        # No log at all: the child was killed before it opened one (a loaded machine may not run it
        # within the shortest delay), so before it imported anything.
        text = log.read_text(errors="replace") if log.exists() else ""
        if status["signal"] == signal.SIGKILL:
            if "Reading agent-ways events" not in text:
                figures["killed_before_import"] += 1
            elif "Imported" not in text:
                figures["killed_mid_import"] += 1
            else:
                figures["killed_after_import"] += 1
        elif "Only one importer" in text:
            figures["lock_still_held"] += 1  # the killed run's session lock not yet released
            time.sleep(0.2)
        else:
            assert status["code"] == 0, text[-3000:]
            figures["completed_before_kill"] += 1
            self.window = min(max(1.2 * (time.monotonic() - began), 0.5), self.window)
        figures["iterations"] += 1
        if self.db.count("introspect_deferredindex"):
            figures["killed_with_indexes_left_out"] += 1
        now = checkpoints_match_rows(self.db)
        for key, position in self.positions.items():
            assert now.get(key, position) >= position, f"{key} moved back from {position} to {now[key]}"
        self.positions = now

    def resume(self) -> str:
        """Run to the end, twice (the second run finds nothing new); returns the last run's log."""
        final = self.logs / "final.log"
        for _ in range(2):
            pid = self.zygote.start("ingest", final, *ARGS)
            status = self.zygote.wait(pid)
            assert status == {"code": 0, "signal": None}, final.read_text()[-3000:]
        return final.read_text()


def clean_import(db, home: Home, tmp_path) -> float:
    started = time.monotonic()
    clean = manage("ingest", *ARGS, env=db.env(home.root, tmp_path / "clean-data"))
    assert clean.returncode == 0, clean.stderr
    return time.monotonic() - started


def timed_import(db, home: Home, data_dir) -> float:
    """A whole import by a child of a warmed-up Django, so that its time is the import's alone."""
    zygote = Zygote(db.env(home.root, data_dir))
    try:
        started = time.monotonic()
        status = zygote.wait(zygote.start("ingest", data_dir / "clean.log", *ARGS))
        seconds = time.monotonic() - started
    finally:
        zygote.close()
    assert status == {"code": 0, "signal": None}, (data_dir / "clean.log").read_text()[-3000:]
    return seconds


def assert_same_tables(got: dict[str, list], want: dict[str, list]) -> dict[str, int]:
    """Every table of the two snapshots equal; returns the rows compared per table."""
    for table in want:
        missing = [row for row in want[table] if row not in got[table]][:5]
        extra = [row for row in got[table] if row not in want[table]][:5]
        assert got[table] == want[table], f"{table}: missing {missing}, unexpected {extra}"
    return {table: len(rows) for table, rows in want.items()}


def spill_figures(snapshot: dict[str, list]) -> dict[str, int]:
    return {
        "spills": len(snapshot["spills"]),
        "spills_found": sum(1 for row in snapshot["spills"] if row[6]),  # p.found
    }


def test_case_19_sigkill_crash_loop_matches_a_clean_import(file_db, tmp_path):
    rnd = random.Random(SEED)
    corpus = build_corpus(stages=ITERATIONS // 2)
    clean_home, crash_home = Home(tmp_path / "clean"), Home(tmp_path / "crash")
    for stage in range(len(corpus.stages)):
        corpus.apply(clean_home, stage)
    clean_db, crash_db = file_db(), file_db()
    clean_seconds = clean_import(clean_db, clean_home, tmp_path)
    # The clean import reads in one process, the killed runs through the prepare worker: the rows
    # compared at the end are the same whichever path read them.
    loop = KillLoop(
        crash_db, crash_home, tmp_path, rnd, clean_seconds, window=max(clean_seconds, 1.0), worker=True
    )
    figures = loop.figures
    loop_started = time.monotonic()
    try:
        stage = 0
        while figures["iterations"] < ITERATIONS:
            if stage < len(corpus.stages) and (figures["iterations"] % 2 == 0 or stage == 0):
                corpus.apply(crash_home, stage)
                stage += 1
            loop.kill_once()
        figures["loop_seconds"] = round(time.monotonic() - loop_started, 1)
        while stage < len(corpus.stages):
            corpus.apply(crash_home, stage)
            stage += 1
        final = loop.resume()
    finally:
        loop.zygote.close()
    assert "0 lines, 0 imported" in final
    checkpoints_match_rows(crash_db)
    assert crash_db.indexes() == clean_db.indexes() and not crash_db.count("introspect_deferredindex")
    want = clean_db.snapshot()
    figures["rows_compared"] = assert_same_tables(crash_db.snapshot(), want)
    figures["rows_compared_total"] = sum(figures["rows_compared"].values())
    figures["corpus_lines"] = corpus.lines(clean_home)
    figures |= spill_figures(want)
    print(f"crash loop ({BACKEND}): {figures}")
    write_figures("crash_loop", figures)
    assert figures["killed_mid_import"] >= ITERATIONS // 3, figures
    assert figures["spills_found"] > 0 and figures["spills"] > figures["spills_found"]  # found and missing


COLD_KILLS = 25


def cold_corpus(rnd: random.Random) -> Corpus:
    """A Claude directory read from nothing: twelve sessions of three hundred lines, one in ten a
    stub whose output was spilled (its file there beside the transcript), a few never written."""
    files: list[tuple[str, bytes]] = []
    for s in range(12):
        session = f"cold-{s:02d}"
        trunk = f".claude/projects/-work-cold/{session}.jsonl"
        lines = []
        for n in range(300):
            if n % 10 == 3:
                name = f"t{n}.txt"
                lines.append(spill_stub(session, n, name, hook=n % 20 == 3))
                if n != 293:  # its file never written: stays not found, in both imports
                    files.append((spilled(trunk, name), spill_body(rnd, name)))
            else:
                lines.append(entry(session, n, kind="user" if n % 2 == 0 else "assistant"))
        files.append((trunk, b"".join(jsonl(obj) for obj in lines)))
    return Corpus([files])


@pytest.mark.parametrize("worker", [False, True], ids=["one process", "prepare worker"])
def test_case_19_a_cold_import_with_spills_killed_25_times_then_resumed_equals_a_clean_import(
    file_db, tmp_path, worker
):
    rnd = random.Random(SEED + 24)  # issue 24
    corpus = cold_corpus(rnd)
    clean_home, crash_home = Home(tmp_path / "clean"), Home(tmp_path / "crash")
    corpus.apply(clean_home, 0)
    corpus.apply(crash_home, 0)
    clean_db, crash_db = file_db(), file_db()
    clean_seconds = timed_import(clean_db, clean_home, tmp_path / "clean-data")
    # Kills spread over the whole import: together the runs cut short get about twice through it.
    # Under a floor for a fast machine: about the time a run takes to its first batch. A run through
    # the worker starts it first (a Python process setting Django up); one without takes its first
    # batch at once, and a floor of 0.3 s let it finish its import after five kills (stop 49).
    window = max(0.2 if worker else 0.1, 4 * clean_seconds / COLD_KILLS)
    loop = KillLoop(crash_db, crash_home, tmp_path, rnd, clean_seconds, window=window, worker=worker)
    try:
        for _ in range(COLD_KILLS):
            loop.kill_once()
        before = {
            "entries_before_resume": crash_db.count("introspect_transcriptentry"),
            "spills_before_resume": crash_db.count("introspect_spill"),
        }
        final = loop.resume()
    finally:
        loop.zygote.close()
    assert "0 lines, 0 imported" in final
    assert crash_db.indexes() == clean_db.indexes() and not crash_db.count("introspect_deferredindex")
    want, got = clean_db.snapshot(), crash_db.snapshot()
    clean, crashed = spill_figures(want), spill_figures(got)
    print(f"cold crash loop with spills ({BACKEND}): clean {clean}, crashed and resumed {crashed}")
    figures = loop.figures | before | {"rows_compared": assert_same_tables(got, want)} | clean
    print(f"cold crash loop with spills ({BACKEND}): {figures}")
    write_figures("crash_loop_cold_spills" + ("_worker" if worker else ""), figures)
    assert figures["spills"] == 12 * 30 and figures["spills_found"] == 12 * 29
    assert figures["killed_mid_import"] >= COLD_KILLS // 3, figures


class Crash(Exception):
    pass


@pytest.mark.django_db
def test_case_19_kill_between_the_commit_and_the_rebuild_leaves_no_session_behind(home, monkeypatch):
    lines = [
        event(0, name="session_start", project="/p", session="s1"),
        *(event(n, session="s1") for n in range(1, 6)),
    ]
    append(home.live, *lines[:3])
    ingest()
    assert Session.objects.get(sid="s1").event_count == 3
    append(home.live, *lines[3:])

    def killed(sids, **options):
        if sids:  # the command's catch-up at start names no session yet
            raise Crash("killed after the batches committed, before the sessions were rebuilt")
        return sessions.Derived()

    monkeypatch.setattr(sessions, "rebuild_sessions", killed)
    with pytest.raises(Crash):
        ingest()
    monkeypatch.undo()
    assert_rows(expected(events=lines, raw=lines))  # the rows are in: the file will not be read again
    ingest()
    session = Session.objects.get(sid="s1")
    assert session.event_count == len(lines)
    rebuild.rebuild_session(session)  # a whole rebuild agrees with what the catch-up built
    assert Session.objects.get(sid="s1").event_count == session.event_count
