"""What a whole rebuild reads of a session's trunk transcript, folded over its lines a chunk at a time.

A session of months holds hundreds of thousands of lines: held at once as tuples, they took a
600 MB session's rebuild 140 MB (bench/rss.py --session-mb). They are read CHUNK at a time in file
order (derive/trunk_pass.py, with the turns' outcome signals), and only what grows with the prompts
is kept: the prompt injections and the prompts' seconds. An injection's walk up to its prompt reads
the lines it passes by uuid (the entry_session_uuid index), the first line of the file with each, as
the whole file's map in `join.prompt_turns` has it; the result is the same however the lines were chunked
(tests/introspect/derive/test_trunk_facts.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from introspect.derive import fields, session_inputs
from introspect.models import SourceFile, TranscriptEntry
from introspect.rules import join
from introspect.rules.timestamps import utc_second
from lib import bulk

CHUNK = 5000  # lines held at once: a few MB of tuples
# Session.waiting_parents keeps up to this many parents; past them it says "ask the lines" (NULL).
WAITING_KEPT = 32


class PromptLine(NamedTuple):
    """A prompt line as a turn row points at it (rebuild.NearestPrompt): its id and stamp."""

    pk: int
    ts: datetime


class LineRef(NamedTuple):
    """A line a keyed turn points at: its id only (turn_rows.turn_row reads nothing else)."""

    pk: int


class Node(NamedTuple):
    """What a walk up parentUuid reads of a line (join.walk_to_user)."""

    uuid: str
    type: str
    parent_uuid: str


@dataclass
class TrunkFacts:
    lines: int = 0
    has_attachments: bool = False
    versions: set[str] = field(default_factory=set)  # the distinct values: a handful per session
    injections: list[session_inputs.TrunkLine] = field(default_factory=list)  # UserPromptSubmit, file order
    prompts: list[PromptLine] = field(default_factory=list)  # dated prompts, file order
    peak_context: int = 0
    last_model: str | None = None
    first_prompt: str = ""
    first_cwd: str = ""
    compaction_marks: list[dict] = field(default_factory=list)
    message_count: int = 0
    earliest: datetime | None = None
    latest: datetime | None = None
    waiting_parents: list[str] | None = field(default_factory=list)  # Session.waiting_parents

    def add(self, chunk: list[session_inputs.TrunkLine]) -> None:
        """Fold the next lines of the file (in file order) into the facts."""
        self.lines += len(chunk)
        self.peak_context = fields.peak_context(chunk, self.peak_context)
        self.last_model = join.last_model(chunk) or self.last_model
        self.first_prompt = self.first_prompt or fields.first_prompt(chunk)
        self.first_cwd = self.first_cwd or next((line.cwd for line in chunk if line.cwd), "")
        self.compaction_marks += fields.compaction_marks(chunk)
        self.message_count += fields.message_count(chunk)
        for line in chunk:
            if line.version:
                self.versions.add(line.version)
            if line.type == "attachment":
                self.has_attachments = True
                if line.hook_event == "UserPromptSubmit":
                    self.injections.append(line)
            if line.ts is None:
                continue
            if line.is_prompt:
                self.prompts.append(PromptLine(line.pk, line.ts))
            self.earliest = line.ts if self.earliest is None else min(self.earliest, line.ts)
            self.latest = line.ts if self.latest is None else max(self.latest, line.ts)

    def no_match_reason(self) -> str:
        """join.no_match_reason over every line read."""
        newest = max((join.version_tuple(version) for version in self.versions), default=None)
        return join.unmatched_reason(
            has_lines=self.lines > 0, has_attachments=self.has_attachments, newest=newest
        )

    @property
    def dates(self) -> list[datetime]:
        """The earliest and latest stamp of the lines (what a min and a max over all of them read)."""
        return [ts for ts in (self.earliest, self.latest) if ts is not None]


class Waiting:
    """The parent uuids that a trunk's lines up to id `built` name and none of those lines has
    (Session.waiting_parents), folded over the file's chunks: a chunk's parents that none of its
    own lines has are looked up in the whole file by uuid, a few at a time (most lines name the
    line before them, so usually only a chunk's first line's parent is left to look up)."""

    def __init__(self, trunk: SourceFile | None, built: int | None):
        self.trunk, self.built = trunk, built
        self.unsure: set[str] = set()  # named by a line, not had by one of its chunk
        self.waiting: set[str] | None = set()  # None: more than WAITING_KEPT

    def add(self, chunk: list[session_inputs.TrunkLine]) -> None:
        if self.waiting is None:
            return
        lines = [line for line in chunk if self.built is None or line.pk <= self.built]
        self.unsure |= {line.parent_uuid for line in lines if line.parent_uuid} - {
            line.uuid for line in lines if line.uuid
        }
        if len(self.unsure) > CHUNK:
            self.settle()

    def settle(self) -> None:
        if self.waiting is None or not self.unsure:
            return
        self.waiting |= unstored(self.trunk, self.unsure, self.built)
        self.unsure = set()
        if len(self.waiting) > WAITING_KEPT:
            self.waiting = None

    def found(self) -> list[str] | None:
        self.settle()
        return None if self.waiting is None else sorted(self.waiting)


def unstored(trunk: SourceFile | None, uuids: set[str], built: int | None) -> set[str]:
    """Those of these uuids that no line of the trunk up to id `built` (any, without it) has."""
    if trunk is None or not uuids:
        return set(uuids)
    had = {uuid for *_, uuid, pk in lines_with(trunk, uuids, "id") if built is None or pk <= built}
    return uuids - had


def prompt_turns(
    trunk: SourceFile | None, injections: list[session_inputs.TrunkLine]
) -> list[join.PromptTurn]:
    """join.prompt_turns over the whole file, its walks reading the lines they pass from the database:
    one query per hop for all the walks still going."""
    if trunk is None or not injections:
        return []
    nodes: dict[str, Node | None] = {}
    while True:
        found, unread = walk_all(injections, nodes)
        if not unread:
            return found
        nodes |= dict.fromkeys(unread)  # None: no line of this file, the walk ends unresolved
        nodes |= first_nodes(trunk, unread)


class Unread(LookupError):
    """A walk reached a uuid whose line is not read yet."""


def walk_all(
    injections: list[session_inputs.TrunkLine], nodes: dict[str, Node | None]
) -> tuple[list[join.PromptTurn], set[str]]:
    """The prompt turns of the walks that the lines read so far complete, and the uuids the others need next."""
    unread: set[str] = set()

    def node_of(uuid: str) -> Node | None:
        if uuid in nodes:
            return nodes[uuid]
        unread.add(uuid)
        raise Unread(uuid)

    found = []
    for entry in injections:
        try:
            user = join.walk_to_user(entry, node_of)
        except Unread:
            continue
        second = utc_second(entry.timestamp_raw)
        if second is not None and user is not None:
            found.append(join.PromptTurn(second=second, user_uuid=user, injection=entry))
    return found, unread


def first_nodes(trunk: SourceFile, uuids: set[str]) -> dict[str, Node]:
    """The file's first line with each of these uuids."""
    found: dict[str, Node] = {}
    for *_, uuid, kind, parent in lines_with(trunk, uuids, "type", "parent_uuid"):
        found.setdefault(uuid, Node(uuid, kind, parent))
    return found


def last_lines(trunk: SourceFile | None, uuids: set[str]) -> dict[str, LineRef]:
    """The file's last line with each of these uuids (a keyed turn's prompt, as a map of every line
    by uuid has it)."""
    if trunk is None or not uuids:
        return {}
    return {uuid: LineRef(pk) for *_, uuid, pk in lines_with(trunk, uuids, "id")}


def lines_with(trunk: SourceFile, uuids: set[str], *columns: str) -> list[tuple]:
    """(offset, index, uuid, *columns) of the file's lines with these uuids, in file order."""
    # By the entry_session_uuid index: every line of a trunk has the file's session key
    # (importer/loader.py). A filter on the file as well makes SQLite scan all of the file's lines
    # by their position index instead, once for each query; the few of other files are dropped here.
    rows = TranscriptEntry.objects.filter(session_key=trunk.session_key).values_list(
        "source_id", "offset", "index", "uuid", *columns
    )
    return sorted(row[1:] for row in bulk.chunked_in(rows, "uuid", uuids) if row[0] == trunk.pk)
