"""Shared helpers of the fault suite (importer-reliability.md §14).

Every case test compares the STORED ROW SET with what it wrote: the multiset of sha256 of the
stored rows (`WaysEvent`, `TranscriptEntry`, `RawLine`) against the sha256 of the complete, valid
lines, plus the exact quarantine rows (reason, offset). `stored()` reads it in-process; a
`FileDatabase` holds a database that `manage.py` subprocesses share with the test (crash loop,
concurrency, storage faults) and reads it back with plain SQL.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import orjson
import pytest
from django.core.management import call_command

from introspect.models import PhysicalLine, Quarantine, SourceFile, TranscriptEntry, WaysEvent
from tests.ledger.conftest import knowledge, reviewer  # noqa: F401 (fixtures of the review cases)

BASE_DIR = Path(__file__).resolve().parents[2]
MANAGE = BASE_DIR / "manage.py"
ZYGOTE = Path(__file__).with_name("zygote.py")
ARTIFACTS = BASE_DIR / "test-artifacts"
SUITE_URL = os.environ.get("WAYSWEB_DATABASE_URL", "")
BACKEND = "postgresql" if SUITE_URL.startswith(("postgres:", "postgresql:")) else "sqlite"


# --- lines and their identity -------------------------------------------------------------------


def sha(line: bytes) -> str:
    """The sha256 the importer stores for one physical line: without its b"\\n", one trailing
    b"\\r" and leading NULs (importer-reliability.md §5)."""
    data = line[:-1] if line.endswith(b"\n") else line
    data = data[:-1] if data.endswith(b"\r") else data
    return hashlib.sha256(data.lstrip(b"\x00")).hexdigest()


def event(n: int, *, session: str = "s1", name: str = "way_fired", **fields) -> bytes:
    """One events-log line, `ts` first as agent-ways writes it; distinct for each `n`."""
    stamp = f"2026-11-02T{10 + n // 3600 % 10:02d}:{n // 60 % 60:02d}:{n % 60:02d}Z"
    body = {"ts": stamp, "event": name, "session": session}
    if name == "way_fired":
        body |= {"way": f"d/w{n % 7}", "trigger": "keyword", "n": n}
    else:
        body |= {"n": n}
    return orjson.dumps(body | fields) + b"\n"


def entry(session: str, n: int, *, kind: str = "user", text: str = "", **fields) -> dict:
    """A Claude Code transcript object (user prompt or assistant reply) with a stable uuid."""
    body: dict = {
        "type": kind,
        "uuid": f"{session}-u{n}",
        "sessionId": session,
        "timestamp": f"2026-11-02T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
    }
    if n:
        body["parentUuid"] = f"{session}-u{n - 1}"
    if kind == "user":
        body["message"] = {"role": "user", "content": text or f"prompt {n} of {session}"}
    else:
        body["requestId"] = f"req-{session}-{n}"
        body["message"] = {
            "id": f"msg-{session}-{n}",
            "role": "assistant",
            "model": "claude-opus-4-6",
            "content": [{"type": "text", "text": text or f"reply {n}"}],
            "usage": {
                "input_tokens": 10,
                "output_tokens": n + 1,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        }
    return body | fields


def spill_stub(session: str, n: int, name: str, *, hook: bool = False, **fields) -> dict:
    """A transcript line whose output Claude Code spilled to `<session>/tool-results/<name>`
    (formats-claude-code.md §9.4): a tool result, or with `hook` a hook's context injected as a
    meta line."""
    stub = (
        f"<persisted-output>\nOutput too large (24.4KB). Full output saved to: "
        f"~/.claude/projects/-p/{session}/tool-results/{name}\n\nPreview (first 2KB):\n"
        f"{name} begins\n</persisted-output>"
    )
    if hook:
        reminder = f"<system-reminder>\nSessionStart hook additional context: {stub}\n</system-reminder>"
        return entry(session, n, text=reminder, isMeta=True, **fields)
    result = {"type": "tool_result", "tool_use_id": f"toolu-{session}-{n}", "content": stub}
    return entry(session, n, **fields) | {"message": {"role": "user", "content": [result]}}


def jsonl(obj: dict) -> bytes:
    return orjson.dumps(obj) + b"\n"


# --- the stored row set, in-process ------------------------------------------------------------


@dataclass(frozen=True)
class RowSet:
    """sha256 multisets of the stored rows, and the quarantine as (reason, offset) pairs."""

    events: Counter = field(default_factory=Counter)
    entries: Counter = field(default_factory=Counter)
    raw: Counter = field(default_factory=Counter)
    quarantine: Counter = field(default_factory=Counter)


def expected(*, events=(), entries=(), raw=(), quarantine=()) -> RowSet:
    """The row set lines written should give. `events` are distinct by content (one `WaysEvent` per
    distinct line, whatever the number of sources holding it); `entries` and `raw` count every
    physical line; `quarantine` is (reason, offset) pairs."""
    return RowSet(
        events=Counter({sha(line): 1 for line in events}),
        entries=Counter(sha(line) for line in entries),
        raw=Counter(sha(line) for line in raw),
        quarantine=Counter(quarantine),
    )


def stored() -> RowSet:

    return RowSet(
        events=Counter(WaysEvent.objects.values_list("sha256", flat=True)),
        entries=Counter(TranscriptEntry.objects.values_list("sha256", flat=True)),
        raw=Counter(PhysicalLine.objects.values_list("sha256", flat=True)),
        quarantine=Counter(Quarantine.objects.values_list("reason", "offset")),
    )


def assert_rows(want: RowSet, *, got: RowSet | None = None) -> None:
    """No loss, no duplicate: each multiset equal, with the difference named when it is not."""
    got = stored() if got is None else got
    for name in ("events", "entries", "raw", "quarantine"):
        have, need = getattr(got, name), getattr(want, name)
        assert have == need, f"{name}: missing {dict(need - have)}, unexpected {dict(have - need)}"


def assert_counters_add_up() -> None:
    """Principle 0.1: per source generation lines_seen = imported + quarantined + inert + duplicate."""

    for row in SourceFile.objects.all():
        assert row.lines_seen == row.imported + row.quarantined + row.inert + row.duplicate, row


def ingest(*args: str) -> str:
    out = StringIO()
    call_command("ingest", *args, "--no-ways", stdout=out, stderr=StringIO())
    return out.getvalue()


# --- databases shared with subprocesses --------------------------------------------------------


def pg_url(name: str) -> str:
    parts = urlsplit(SUITE_URL)
    return urlunsplit(parts._replace(path=f"/{name}"))


def pg_admin():
    import psycopg

    return psycopg.connect(SUITE_URL.replace("postgres://", "postgresql://", 1), autocommit=True)


def child_env(url: str, home: Path, data_dir: Path, **extra: str) -> dict[str, str]:
    """The environment of a `manage.py` subprocess: this database, this HOME, nothing of ours."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("WAYSWEB_", "XDG_", "CLAUDE_CONFIG_DIR", "DJANGO_", "PYTEST"))
    }
    env.update(
        HOME=str(home),
        WAYSWEB_DATABASE_URL=url,
        WAYSWEB_DATA_DIR=str(data_dir),
        DJANGO_SETTINGS_MODULE="waysweb.settings",
        DJANGO_SECRET_KEY="fault-suite",
        PYTHONUNBUFFERED="1",
        PYTHONPATH=str(BASE_DIR),
    )
    env.update(extra)
    return env


def manage(*args: str, env: dict[str, str], timeout: float = 180) -> subprocess.CompletedProcess:
    return run_python(str(MANAGE), *args, env=env, timeout=timeout)


def run_python(*args: str, env: dict[str, str], timeout: float = 180) -> subprocess.CompletedProcess:
    """`python *args` in the checkout, its output captured: `manage.py …`, or `-c CODE …` (a command
    run with part of it replaced, as a test needs it)."""
    return subprocess.run(
        [sys.executable, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=BASE_DIR,
        check=False,
    )


class FileDatabase:
    """A migrated database on the suite's backend that subprocesses and the test both open."""

    def __init__(self, url: str, *, path: Path | None = None, name: str = ""):
        self.url, self.path, self.name = url, path, name

    @property
    def vendor(self) -> str:
        return "sqlite" if self.path is not None else "postgresql"

    def env(self, home: Path, data_dir: Path, **extra: str) -> dict[str, str]:
        data_dir.mkdir(parents=True, exist_ok=True)
        return child_env(self.url, home, data_dir, **extra)

    def connect(self):
        if self.path is not None:
            return sqlite3.connect(self.path, timeout=30, isolation_level=None)
        import psycopg

        return psycopg.connect(self.url.replace("postgres://", "postgresql://", 1), autocommit=True)

    def rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        connection = self.connect()
        try:
            return [tuple(row) for row in connection.execute(sql, params).fetchall()]
        finally:
            connection.close()

    def snapshot(self) -> dict[str, list]:
        """Every imported row by content and position (never by primary key), sorted."""
        with_source = "JOIN introspect_sourcefile s ON s.id = t.source_id"
        queries = {
            "events": "SELECT sha256, occurrences, order_rank, order_generation, order_offset, order_index "
            "FROM introspect_waysevent",
            "entries": f'SELECT s.kind, s.rel_path, s.generation, t."offset", t."index", t.sha256, t.is_copy, '
            f"t.session_key FROM introspect_transcriptentry t {with_source}",
            "raw": f'SELECT s.kind, s.rel_path, s.generation, t."offset", t."index", t.sha256, t.outcome '
            f"FROM introspect_physicalline t {with_source}",
            "quarantine": f'SELECT s.kind, s.rel_path, s.generation, t."offset", t."index", t.reason, t.sha256 '
            f"FROM introspect_quarantine t {with_source}",
            "decisions": "SELECT sha256, kind, order_rank, order_generation, order_offset, order_index, scan_id, "
            "(SELECT count(*) FROM introspect_decisioncandidate c WHERE c.record_id = t.id), "
            "(SELECT count(*) FROM introspect_decisionoutcome o WHERE o.record_id = t.id) "
            "FROM introspect_decisionrecord t",
            "findings": "SELECT sha256, way, control, evidence_total, order_generation, order_offset, order_index "
            "FROM introspect_finding",
            "sources": 'SELECT kind, rel_path, generation, status, "offset", member_bytes, member_lines, lines_seen, '
            "imported, quarantined, inert, duplicate FROM introspect_sourcefile",
            "sessions": "SELECT sid, origin, event_count, way_fires, turn_count, total_fires, distinct_ways, "
            "window_count, input_tokens, output_tokens, message_count, transcript_status "
            "FROM introspect_session",
            # What was read of each spill; not when or how often it was looked for.
            "spills": f'SELECT s.kind, s.rel_path, s.generation, t."offset", t."index", p.name, p.found, '
            f"p.size, p.sha256, p.truncated, length(p.text), p.problem FROM introspect_spill p "
            f"JOIN introspect_transcriptentry t ON t.id = p.entry_id {with_source}",
        }
        return {name: sorted(self.rows(sql), key=repr) for name, sql in queries.items()}

    def count(self, table: str) -> int:
        return self.rows(f"SELECT count(*) FROM {table}")[0][0]

    def indexes(self) -> dict[str, str]:
        """Every index by name, with its definition: a cold load leaves some out for a while
        (introspect/importer/deferred_indexes.py) and must leave none out in the end."""
        if self.path is not None:
            sql = "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
        else:
            sql = "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'"
        return dict(self.rows(sql))

    def drop(self) -> None:
        if self.path is not None:
            for suffix in ("", "-wal", "-shm", ".import.lock"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            return
        with pg_admin() as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


def create_database(directory: Path, *, template: FileDatabase | None = None) -> FileDatabase:
    """An empty database (to migrate), or a copy of `template`, on the suite's backend."""
    if BACKEND == "sqlite":
        path = directory / f"waysweb-{uuid.uuid4().hex[:8]}.sqlite3"
        if template is not None:
            shutil.copy(template.path, path)
        return FileDatabase(f"sqlite:///{path}", path=path)
    name = f"waysweb_fault_{uuid.uuid4().hex[:12]}"
    with pg_admin() as admin:
        admin.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template.name}"' if template else ""))
    return FileDatabase(pg_url(name), name=name)


@pytest.fixture(scope="session")
def migrated_template(tmp_path_factory):
    """One migrated database per run; each test copies it (a file copy, or a PostgreSQL template)."""
    folder = tmp_path_factory.mktemp("fault-template")
    template = create_database(folder)
    done = manage("migrate", "--no-input", env=template.env(folder / "home", folder / "data"))
    assert done.returncode == 0, done.stderr
    yield template
    template.drop()


@pytest.fixture
def file_db(migrated_template, tmp_path):
    """`file_db()`: a fresh migrated database for subprocesses (optionally in a given folder); dropped afterwards."""
    made: list[FileDatabase] = []

    def make(directory: Path | None = None) -> FileDatabase:
        made.append(create_database(directory or tmp_path, template=migrated_template))
        return made[-1]

    yield make
    for db in made:
        db.drop()


# --- a warmed-up Django that forks importers (crash loop, racing runners) -----------------------


class Zygote:
    """`tests/faults/zygote.py`: Django set up once; each importer is a forked child process.

    Starting `manage.py ingest` costs ~0.5 s of imports (2 s on a loaded two-core machine); a
    crash loop of a hundred kills would spend most of its time starting Django. Each child is
    still its own process running the `ingest` command, and dies of a real SIGKILL.
    """

    def __init__(self, env: dict[str, str]):
        self.proc = subprocess.Popen(
            [sys.executable, str(ZYGOTE)],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=BASE_DIR,
        )
        assert self.ask({"op": "ping"}) == {"ok": True}

    def ask(self, message: dict) -> dict:
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        assert reply, "the zygote died"
        return json.loads(reply)

    def start(self, op: str, log: Path, *args: str) -> int:
        return self.ask({"op": op, "log": str(log), "args": list(args)})["pid"]

    def wait(self, pid: int) -> dict:
        return self.ask({"op": "wait", "pid": pid})

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.send_signal(signal.SIGKILL)
                self.proc.wait()


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


def write_figures(section: str, figures: dict) -> None:
    """Merge `figures` under `section` into test-artifacts/faults-<backend>.json (quoted in the issue)."""
    ARTIFACTS.mkdir(exist_ok=True)
    # Read, merged and written under a lock: the test workers (pytest-xdist) each record their own
    # sections into the same file, and a read between another's read and write would drop one.
    with open(ARTIFACTS / f"faults-{BACKEND}.json", "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        fh.seek(0)
        try:
            data = json.loads(fh.read())
        except ValueError:
            data = {}  # a new (empty) file, or one a killed run left half written
        data[section] = figures | {
            "backend": BACKEND,
            "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        fh.seek(0)
        fh.truncate()
        fh.write(json.dumps(data, indent=2, sort_keys=True) + "\n")


# --- what a pass touched (PEP 578 audit hooks) -------------------------------------------------

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class Touched:
    """Paths this process opened, listed, created, renamed or removed while `watching`; relative
    names are resolved against their directory descriptor (safefs writes through dir fds)."""

    def __init__(self):
        self.watching = False
        self.reads: list[str] = []
        self.writes: list[str] = []

    @staticmethod
    def where(path, dir_fd=None) -> str | None:
        if isinstance(path, int) or path is None:
            return None
        path = os.fsdecode(path)
        if not os.path.isabs(path):
            base = os.getcwd()
            if isinstance(dir_fd, int) and dir_fd >= 0:
                try:
                    base = os.readlink(f"/proc/self/fd/{dir_fd}")
                except OSError:
                    return None
            path = os.path.join(base, path)
        return path

    def hook(self, name: str, args: tuple) -> None:
        if not self.watching:
            return
        if name == "open" and args:
            path = self.where(args[0])
            mode, flags = (args[1] if len(args) > 1 else None), (args[2] if len(args) > 2 else 0)
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or bool(
                (flags or 0) & WRITE_FLAGS
            )
            if path is not None:
                (self.writes if writing else self.reads).append(path)
        elif name in ("os.listdir", "os.scandir") and args:
            path = self.where(args[0])
            if path is not None:
                self.reads.append(path)
        elif name == "os.rename" and len(args) >= 2:
            self.writes += [
                p
                for p in (
                    self.where(args[0], args[2] if len(args) > 2 else None),
                    self.where(args[1], args[3] if len(args) > 3 else None),
                )
                if p
            ]
        elif name in ("os.remove", "os.rmdir", "os.mkdir", "os.chmod", "os.symlink") and args:
            dir_fd = args[-1] if isinstance(args[-1], int) else None
            path = self.where(args[0], dir_fd)
            if path is not None:
                self.writes.append(path)

    def under(self, *places: Path, writes: bool = False) -> list[str]:
        """The touched paths (reads, or writes) whose real path is one of `places` or inside one."""
        real = [Path(os.path.realpath(place)) for place in places]
        found = []
        for path in self.writes if writes else self.reads:
            resolved = Path(os.path.realpath(path))
            if any(resolved == place or resolved.is_relative_to(place) for place in real):
                found.append(path)
        return found


_TOUCHED = Touched()
sys.addaudithook(_TOUCHED.hook)  # cannot be removed; inert while nothing is watching


@pytest.fixture
def touched():
    """`touched.watching = True` around what must not reach outside its roots."""
    _TOUCHED.reads.clear()
    _TOUCHED.writes.clear()
    yield _TOUCHED
    _TOUCHED.watching = False


@pytest.fixture
def no_hang():
    """A blocking read (a FIFO opened without O_NONBLOCK) fails the test instead of hanging the suite."""

    def stop(signum, frame):
        raise TimeoutError("blocked: something opened a FIFO or device without O_NONBLOCK")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(120)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)
