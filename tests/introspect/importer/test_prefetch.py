"""A long pass's transcripts read and prepared by a worker process (issue 29, item 3) land exactly the
rows the single process lands; a worker killed, failing or handing back a long line never loses a
line nor stops the pass; a short pass starts no worker at all."""

from __future__ import annotations

import gc
import os
import random
import shutil
import signal
from pathlib import Path

import orjson
import pytest
from django.conf import settings
from django.db import connection, models, transaction

from introspect.importer import entry_prep, entry_rows, prefetch, run
from introspect.importer.run import Options
from introspect.models import (
    Quarantine,
    RawLine,
    SecretFinding,
    Session,
    SourceFile,
    Spill,
    TranscriptEntry,
    Turn,
    TurnOutcome,
    WaysEvent,
    Window,
)
from lib import column_fit, linepack
from tests.conftest import append, gzip_member
from waysweb import passes

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"
TOKEN = "ghp_R4nd0mT0k3nW1thEnoughEntr0pyXyZ12345"  # a GitHub token's shape: a finding


@pytest.fixture
def workers(monkeypatch):
    """Every Prefetch a pass makes, and every worker process it starts."""
    made: list[prefetch.Prefetch] = []
    started: list[int] = []
    make, start = prefetch.Prefetch.__init__, prefetch.Prefetch.start

    def init(self, *args, **kwargs):
        made.append(self)
        make(self, *args, **kwargs)

    def spawned(self, first):
        start(self, first)
        started.append(first)

    monkeypatch.setattr(prefetch.Prefetch, "__init__", init)
    monkeypatch.setattr(prefetch.Prefetch, "start", spawned)
    return made, started


def entry(session: str, n: int, text: str, **fields) -> dict:
    return {
        "type": "user" if n % 2 == 0 else "assistant",
        "uuid": f"{session}-{n}",
        "parentUuid": f"{session}-{n - 1}" if n else None,
        "sessionId": session,
        "timestamp": f"2026-11-02T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
        "cwd": "/home/dev/app",
        "message": {"role": "user", "content": text},
        **fields,
    }


def corpus(home, *, sessions: int = 6, lines: int = 400, seed: int = 29) -> None:
    """Transcripts of every shape a line takes: plain, large, inert, spliced, torn JSON, bad UTF-8,
    NUL-prefixed, CRLF, a secret, a spill stub, an overlong column, a copy of a line in another
    file; and the fixture transcripts as they were recorded."""
    rnd = random.Random(seed)
    for s in range(sessions):
        session = f"5e551011-0000-4000-8000-{s:012d}"
        out = []
        for n in range(lines):
            text = "".join(rnd.choice("abcdefgh ") for _ in range(rnd.choice((20, 300, 5000))))
            out.append(orjson.dumps(entry(session, n, text)) + b"\n")
        out[5] = b'{"type":"last-prompt","uuid":null}\n'
        out[7] = orjson.dumps(entry(session, 7, "x")) + orjson.dumps(entry(session, 8, "y")) + b"\n"
        out[9] = b'{"type":"user", "uuid": torn\n'
        out[11] = b'{"type":"user","text":"\xff\xfe"}\n'
        out[13] = b"\x00\x00" + orjson.dumps(entry(session, 13, "after nuls")) + b"\n"
        out[15] = orjson.dumps(entry(session, 15, "crlf")) + b"\r\n"
        out[17] = orjson.dumps(entry(session, 17, f"export GITHUB_TOKEN={TOKEN}")) + b"\n"
        stub = (
            "<persisted-output>\nOutput too large (24.4KB). Full output saved to: "
            f"~/.claude/projects/-p/{session}/tool-results/t.txt\n</persisted-output>"
        )
        result = {"type": "tool_result", "tool_use_id": f"toolu-{n}", "content": stub}
        out[19] = (
            orjson.dumps(
                entry(session, 19, "") | {"type": "user", "message": {"role": "user", "content": [result]}}
            )
            + b"\n"
        )
        out[21] = orjson.dumps(entry(session, 21, "v", version="9" * 500)) + b"\n"
        out[23] = b"\n"
        append(home.transcript("/home/dev/app" if s % 2 else "/home/dev/web", session), *out)
    projects = home.root / ".claude" / "projects" / "-home-dev-fixtures"
    projects.mkdir(parents=True)
    for path in FIXTURES.glob("*.jsonl"):
        shutil.copy(path, projects / path.name)


LANDED = (SourceFile, RawLine, TranscriptEntry, Quarantine, SecretFinding, Spill, Session)


def rows(kinds: tuple[type[models.Model], ...] = LANDED) -> dict[str, list[tuple]]:
    """Every row an import writes, without ids and write times."""

    def kept(field: models.Field) -> bool:
        automatic = getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False)
        now = field.model is Spill and isinstance(field, models.DateTimeField)  # due when imported
        return field.attname != "id" and not field.attname.endswith("_id") and not automatic and not now

    found = {}
    for model in kinds:
        names = [field.attname for field in model._meta.concrete_fields if kept(field)]
        found[model.__name__] = sorted(stored(model, names), key=repr)
    found["entry texts as stored"] = stored_texts()
    return found


def stored_texts() -> list[tuple]:
    """Each entry's text column as the database holds it (packed on SQLite), not as the ORM reads it."""
    entries, files = TranscriptEntry._meta.db_table, SourceFile._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f'SELECT f.rel_path, e."offset", e."index", e.text FROM {entries} e JOIN {files} f ON f.id = e.source_id'
        )
        return sorted(
            (
                (*place, bytes(text) if isinstance(text, memoryview) else text)
                for *place, text in cursor.fetchall()
            ),
            key=repr,
        )


def stored(model: type[models.Model], names: list[str]) -> list[tuple]:
    """The rows' values, an entry's line unpacked: the worker packs with a dictionary trained ahead
    of the pass, one process with the one its first batches trained (line_dictionary), so the same
    line may be stored as other bytes."""
    if model is not TranscriptEntry:
        return list(model.objects.values_list(*names))
    names = [name for name in names if name not in ("raw", "raw_compressed")]
    rows = model.objects.values_list(*names, "raw", "raw_compressed")
    return [(*values, linepack.unpack(raw, compressed)) for *values, raw, compressed in rows]


class RolledBack(Exception):
    pass


def imported(least: int, kinds: tuple[type[models.Model], ...] = LANDED) -> dict[str, list[tuple]]:
    """The rows a pass leaves with `least` bytes to read for a worker (0: never), the database put
    back as it was after."""
    settings.WAYSWEB_PREPARE_WORKER_BYTES = least
    try:
        with transaction.atomic():
            passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False))
            found = rows(kinds)
            raise RolledBack
    except RolledBack:
        return found


def test_the_worker_lands_the_rows_a_single_process_lands(home, workers):
    corpus(home)
    alone = imported(0)
    assert not workers[0]
    assert imported(1) == alone
    (worker,) = workers[0]
    assert worker.taken >= len(list(FIXTURES.glob("*.jsonl"))) + 6  # every file's chunks came from it
    assert alone["Quarantine"] and alone["SecretFinding"] and alone["Spill"]  # the shapes were there


def test_sessions_derived_while_the_writer_waits_for_the_worker_are_derived_as_after_the_load(
    home, workers, monkeypatch
):
    corpus(home)
    derived = (*LANDED, Turn, TurnOutcome, Window)
    alone = imported(0, derived)
    receive = prefetch.Prefetch.receive
    meanwhile: list[int] = []

    def late(self):
        # The worker never ready first: every session settled by then is derived before each chunk.
        while self.idle is not None and self.idle():
            meanwhile.append(Session.objects.filter(derived_version__gt=0).count())
        return receive(self)

    monkeypatch.setattr(prefetch.Prefetch, "receive", late)
    assert imported(1, derived) == alone
    assert meanwhile and meanwhile[-1] >= 6  # the corpus's sessions, derived during the load


def events_logs(home, *, lines: int = 3000, seed: int = 29) -> None:
    """An events log and two archives (one of two members) with every shape an event line takes:
    plain, a secret, an overlong column, a value the plain reading does not take, unknown events,
    a bad stamp, torn JSON, NUL-prefixed, CRLF, blank, a line repeated, copies across files."""
    rnd = random.Random(seed)
    out = []
    for n in range(lines):
        event = {"ts": f"2026-11-02T10:{n // 60 % 60:02d}:{n % 60:02d}Z", "event": "way_fired"}
        event |= {"way": f"dev/{rnd.choice('abc')}", "session": f"e5e{n % 7}", "score": str(rnd.random())}
        out.append(orjson.dumps(event) + b"\n")
    out[5] = orjson.dumps({"event": "way_fired", "surface": f"token {TOKEN}", "session": "e5e1"}) + b"\n"
    out[7] = orjson.dumps({"event": "way_fired", "way": "w" * 5000}) + b"\n"
    out[9] = orjson.dumps({"event": "way_fired", "way": ["not", "a", "string"]}) + b"\n"
    out[11] = b'{"event": "way_fired", torn\n'
    out[13] = b"\x00\x00" + orjson.dumps({"event": "nulled", "ts": "not a time"}) + b"\n"
    out[15] = orjson.dumps({"event": "crlf", "ts": "2026-11-02T10:00:00Z"}) + b"\r\n"
    out[17] = b"\n"
    out[19] = out[21] = orjson.dumps({"event": "twice", "session": "e5e2"}) + b"\n"
    out[23] = orjson.dumps({"event": "way_fired", "reason": "x", "check": "c", "empty": ""}) + b"\n"
    append(home.archive("2026-11-01"), gzip_member(*out[: lines // 2]), gzip_member(*out[lines // 2 :]))
    append(home.archive("2026-11-02"), gzip_member(*out[lines // 3 : lines // 2]))
    append(home.live, *out[lines // 4 :], *out[:30])


def imported_events(least: int) -> dict[str, list[tuple]]:
    """The events rows a pass leaves with `least` bytes to read for a worker (0: never)."""
    settings.WAYSWEB_PREPARE_WORKER_BYTES = least
    try:
        with transaction.atomic():
            passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False))
            found = {
                model.__name__: sorted(model.objects.values_list(*names), key=repr)
                for model, names in (
                    # Ids are left out (PostgreSQL's sequences do not roll back): the source by its path.
                    (WaysEvent, [*event_columns(), "source__rel_path", "session__sid"]),
                    (RawLine, ["offset", "index", "sha256", "length", "outcome", "source__rel_path"]),
                    (Quarantine, ["offset", "index", "reason", "raw", "source__rel_path"]),
                    (SecretFinding, ["offset", "index", "kind", "fingerprint", "place", "source__rel_path"]),
                )
            }
            raise RolledBack
    except RolledBack:
        return found


def event_columns() -> list[str]:
    return [f.attname for f in WaysEvent._meta.concrete_fields if not (f.primary_key or f.is_relation)]


@pytest.mark.parametrize("masked_only", [False, True])
def test_the_worker_lands_the_events_rows_a_single_process_lands(home, workers, masked_only):
    settings.WAYSWEB_SECRETS_MASKED_ONLY = masked_only  # team mode: the writer scans and masks
    settings.WAYSWEB_PREPARE_EVENTS = True
    events_logs(home)
    alone = imported_events(0)
    assert not workers[0]
    assert imported_events(1) == alone
    (worker,) = workers[0]
    assert worker.taken >= 3  # the archives' chunks and the live log's came from it
    assert alone["Quarantine"] and alone["SecretFinding"]
    assert any(row[-2] == "duplicate" for row in alone["RawLine"])


def test_a_worker_started_again_past_a_line_longer_than_a_batch_lands_the_same_rows(
    home, workers, monkeypatch
):
    corpus(home, sessions=2, lines=60)
    long = home.transcript("/home/dev/app", "5e551011-0000-4000-8000-000000000000")
    append(
        long,
        orjson.dumps(entry("long", 1000, "z" * (3 << 20))) + b"\n",
        orjson.dumps(entry("long", 1001, "after")) + b"\n",
    )
    monkeypatch.setattr(prefetch, "OWN_LINE", 1 << 20)
    alone = imported(0)
    assert imported(1) == alone
    made, started = workers
    assert len(started) == 2  # ended before the writer parsed the long line, started again past it
    assert made[0].taken > 0


def test_a_killed_worker_leaves_the_writer_reading_every_line_itself(home, workers, monkeypatch):
    corpus(home)
    alone = imported(0)
    take = prefetch.Prefetch.take

    def killing(self, path, root, checkpoint):
        chunk = take(self, path, root, checkpoint)
        if self.taken == 2 and self.process is not None:
            os.kill(self.process.pid, signal.SIGKILL)
        return chunk

    assert imported(1) == alone
    everything = workers[0].pop().taken  # the chunks a worker left alive hands over
    monkeypatch.setattr(prefetch.Prefetch, "take", killing)
    assert imported(1) == alone
    (worker,) = workers[0]
    # Those it had sent before it was killed may still arrive (its queue, its pipe); no more.
    assert 2 <= worker.taken < everything


def test_a_file_the_worker_cannot_prepare_is_that_file_s_problem_and_the_pass_goes_on(
    home, workers, monkeypatch
):
    corpus(home, sessions=2, lines=40)
    broken = entry_prep.Config(bounds=column_fit.Bounds(("type",), (0,), ()), keep_inert=False, scan=True)
    monkeypatch.setattr(entry_rows, "prep_config", lambda **_: broken)  # the writer's and the worker's
    settings.WAYSWEB_PREPARE_WORKER_BYTES = 1
    result = passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False))
    failed = [file for file in result.files if file.status == "failed"]
    assert failed and len(failed) == len(result.files)  # every transcript listed, none hung
    assert all("ValueError" in file.problem.detail for file in failed)
    (worker,) = workers[0]
    assert worker.taken == 0


def test_a_short_pass_starts_no_worker(home, workers):
    settings.WAYSWEB_PREPARE_WORKER_BYTES = 1 << 20
    path = home.transcript("/home/dev/app", "5e551011-0000-4000-8000-000000000001")
    append(path, *(orjson.dumps(entry("s", n, "hello")) + b"\n" for n in range(50)))
    passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False))
    append(path, orjson.dumps(entry("s", 50, "and one more")) + b"\n")
    passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False))
    assert TranscriptEntry.objects.count() == 51
    assert workers[0] == []


def test_a_machine_with_one_cpu_starts_no_worker(home, workers, monkeypatch):
    corpus(home, sessions=1, lines=40)
    monkeypatch.setattr(run, "cores", lambda: 1)
    alone = imported(0)
    assert imported(1) == alone
    assert workers[0] == []


def test_a_worker_whose_writer_is_gone_ends_instead_of_waiting(tmp_path):
    path = tmp_path / "t.jsonl"
    append(path, *(orjson.dumps(entry("s", n, "x" * 2000)) + b"\n" for n in range(5000)))
    ahead = prefetch.Prefetch(
        [prefetch.Job(path, tmp_path, None)], entry_rows.prep_config(), max_line=64 << 20
    )
    process = ahead.process
    assert ahead.receive() is not None  # reading ahead, several chunks still to send
    process.stdout.close()  # what a SIGKILL of the writer does to its end of the pipe
    process.wait(timeout=60)  # a bound on the test, not a speed: a worker left waiting would hang here
    assert process.returncode is not None


@pytest.mark.parametrize(
    "said",
    [
        "(0, None, {'chunk': 'of a newer shape'})",  # an item of a type this writer does not know
        "(0, None, None, 'a fourth field')",  # a message of another shape
        "'not a message at all'",
    ],
)
def test_a_worker_of_another_version_leaves_the_writer_reading_every_line_itself(
    home, workers, monkeypatch, said
):
    """The worker boots from the checkout: one upgraded under a running writer may say what the
    writer does not understand. The writer ends it and reads every file itself; no file fails."""
    corpus(home, sessions=2, lines=40)
    alone = imported(0)
    newer = "import pickle, sys; pickle.load(sys.stdin.buffer); out = sys.stdout.buffer; "
    newer += f"[pickle.dump({said}, out) for _ in range(3)]; out.flush()"
    monkeypatch.setattr(prefetch, "BOOT", newer)
    settings.WAYSWEB_PREPARE_WORKER_BYTES = 1
    result = passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False))
    assert not [file for file in result.files if file.status == "failed"]
    assert rows() == alone
    assert all(worker.taken == 0 and worker.process is None for worker in workers[0])


def test_the_collector_is_off_while_a_chunk_is_prepared_and_as_it_was_after_even_an_error(monkeypatch):
    states = []

    def failing(*args):
        states.append(gc.isenabled())
        raise OSError("unreadable")

    monkeypatch.setattr(prefetch, "prepared", failing)
    jobs = [prefetch.Job(Path("/nowhere/a.jsonl"), Path("/nowhere"), None)]
    plan = prefetch.Plan(jobs, 0, entry_rows.prep_config(), 1 << 20, 10, 1 << 20)
    sent = []
    assert gc.isenabled()
    prefetch.work(plan, sent.append)
    assert states == [False] and gc.isenabled()
    assert isinstance(sent[0][2], prefetch.Unhelped) and sent[-1] == (1, None, None)
