"""Shared fixtures: plain static storage, and builders for agent-ways files on disk."""

from __future__ import annotations

import fcntl
import gzip
import shutil
import zlib
from io import StringIO
from pathlib import Path

import orjson
import pytest
from django.core.management import call_command

from introspect.importer import line_dictionary
from introspect.rules import highlight
from introspect.rules.join import project_slug
from lib import locations
from tests.kept_imports import KeptImports


class Room:
    """The workers' shared lock (a readers-writer lock on two files of the run's temp root).

    Every test holds `room` shared while it runs; a test marked `alone` holds it exclusively, so it
    starts once the other worker's current test is done and nothing else runs until it ends. The
    `turnstile` gives it priority: the other worker passes it before each test, and an `alone` test
    holds it while it waits for the room, so the other worker cannot keep the room busy forever."""

    def __init__(self, root: Path):
        self.turnstile = open(root / "waysweb-turnstile.lock", "a")  # noqa: SIM115 (held for the session)
        self.room = open(root / "waysweb-room.lock", "a")  # noqa: SIM115

    def enter(self, *, alone: bool) -> None:
        fcntl.flock(self.turnstile, fcntl.LOCK_EX)
        if alone:
            fcntl.flock(self.room, fcntl.LOCK_EX)
            return
        fcntl.flock(self.turnstile, fcntl.LOCK_UN)
        fcntl.flock(self.room, fcntl.LOCK_SH)

    def leave(self) -> None:
        fcntl.flock(self.room, fcntl.LOCK_UN)
        fcntl.flock(self.turnstile, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def room(request, tmp_path_factory) -> Room | None:
    # Only an xdist worker has a neighbour; its base temp is `<run's base temp>/<worker>`, so the
    # parent is this run's and no other run's (a child pytest a test starts runs with -n 0).
    if not hasattr(request.config, "workerinput"):
        return None
    return Room(tmp_path_factory.getbasetemp().parent)


@pytest.fixture(autouse=True)
def alone_or_beside(request, room):
    # Autouse in the root conftest: set up before the test's own fixtures, so an `alone` test's
    # setup (an import, a restored database) also runs with the other worker held off.
    if room is None:
        yield
        return
    room.enter(alone=request.node.get_closest_marker("alone") is not None)
    try:
        yield
    finally:
        room.leave()


@pytest.fixture(autouse=True)
def plain_static_storage(settings):
    # Manifest storage needs collectstatic; templates under test only need URLs.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(autouse=True)
def fresh_highlight_cache():
    # A text coloured before costs a page none of its highlighting budget: start each test with
    # nothing coloured, so what a page colours does not depend on the tests run before it.
    highlight.clear_caches()


@pytest.fixture(autouse=True)
def fresh_line_dictionary(monkeypatch):
    # The importer trains its zstd dictionary on the lines it has seen: start each test with none seen,
    # so how a line is packed does not depend on the tests run before it.
    monkeypatch.setattr(line_dictionary, "TRAINER", line_dictionary.Trainer())


@pytest.fixture(autouse=True)
def private_data_dir(settings, tmp_path):
    # The importer lock lives in the data directory: never share the user's with a test run.
    settings.DATA_DIR = tmp_path / "waysweb-data"
    settings.DATA_DIR.mkdir()


def line(**fields) -> bytes:
    """One events-log line, `ts` first as agent-ways writes it."""
    return orjson.dumps(fields) + b"\n"


def append(path: Path, *chunks: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "ab") as fh:
        for chunk in chunks:
            fh.write(chunk)
    return path


def gzip_member(*lines: bytes) -> bytes:
    return gzip.compress(b"".join(lines), mtime=0)


def rejected_member(before: bytes, after: bytes) -> bytes:
    """A gzip member that zlib rejects ("invalid block type") right after it decoded `before`.

    A full flush ends the output of `before` on a byte boundary, and the header of the block after
    it gets the reserved block type 3. `after` is compressed past that point, never to be decoded.
    """
    deflate = zlib.compressobj(6, zlib.DEFLATED, 31)
    head = deflate.compress(before) + deflate.flush(zlib.Z_FULL_FLUSH)
    rest = deflate.compress(after) + deflate.flush()
    return head + bytes([rest[0] | 0b110]) + rest[1:]


class Home:
    """A HOME laid out as agent-ways and Claude Code lay it out (formats-agent-ways.md §2, §10)."""

    def __init__(self, root: Path):
        self.root = root
        self.state = root / ".local" / "state" / "agent-ways"
        self.live = self.state / "events.jsonl"
        self.legacy = root / ".claude" / "stats" / "events.jsonl"
        self.core_ways = root / ".claude" / "hooks" / "ways"
        self.user_ways = root / ".config" / "agent-ways" / "ways"

    def archive(self, day: str) -> Path:
        return self.state / f"events-{day}.jsonl.gz"

    def transcript(self, project: str, session: str, *entries: dict) -> Path:
        """A trunk transcript in the project's slug folder, as Claude Code lays it out."""

        path = self.root / ".claude" / "projects" / project_slug(project) / f"{session}.jsonl"
        return append(path, *(orjson.dumps(entry) + b"\n" for entry in entries))

    def way(self, root: Path, way_id: str, frontmatter: str, body: str = "# Way\n") -> Path:
        leaf = way_id.rsplit("/", 1)[-1]
        path = root / way_id / f"{leaf}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\n{frontmatter}\n---\n{body}")
        return path


@pytest.fixture
def home(tmp_path, settings) -> Home:
    """An empty HOME that settings point at, as `HOME=<tree> manage.py ingest` would."""

    root = tmp_path / "home"
    root.mkdir()
    settings.WAYSWEB_LOCATIONS = locations.resolve({"HOME": str(root)})
    return Home(root)


def ingest() -> None:
    call_command("ingest", stdout=StringIO())


def import_sample(home: Path) -> None:
    """Lay the bundled sample out at `home` (which settings point at) and import it."""
    shutil.copytree(locations.SAMPLE_HOME, home, symlinks=True)
    ingest()


@pytest.fixture(scope="session")
def kept_imports(tmp_path_factory) -> KeptImports:
    return KeptImports(tmp_path_factory.mktemp("kept-imports"))


@pytest.fixture
def sample(kept_imports, settings, transactional_db) -> Path:
    """The bundled sample imported: sessions with transcripts, so their pages show the conversation.

    Imported once a session (a worker's), then copied back with its rows for each test
    (tests/kept_imports.py); the copy is put back outside a test transaction, hence transactional_db."""
    settings.WAYSWEB_LOCATIONS = locations.resolve({"HOME": str(kept_imports.home)})
    return kept_imports.start("sample", import_sample)
