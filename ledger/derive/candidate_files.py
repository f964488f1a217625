"""A knowledge candidate as its file, and the candidate files of a pass (ledger/derive/candidates.py
derives them): written together at the pass's end, each under `candidates/`; one a person promoted,
rejected or reworded is skipped, so a later boundary never undoes a human act.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

from ledger import files
from ledger.records import knowledge
from lib import safefs
from lib.hashing import sha256


@dataclass(frozen=True)
class Candidate:
    klass: str
    epistemics: str
    title: str
    description: str
    day: str
    tag: str
    refs: tuple[str, ...]
    body: str = ""

    @functools.cached_property  # read five times a candidate (its path, its order, its file)
    def record_id(self) -> str:
        canonical = "\n".join([self.klass, self.title, *self.refs])
        return "ww-" + sha256(canonical.encode())[:16]

    def render(self) -> bytes:
        return self.rendered()[0]

    def rendered(self) -> tuple[bytes, knowledge.Front | None]:
        """The file, and what indexing it reads from it when that is sure (`render_front`)."""
        data = {
            "schema": "knowledge/v1",
            "id": self.record_id,
            "kind": "knowledge",
            "class": self.klass,
            "title": self.title,
            "description": self.description,
            "status": "candidate",
            "epistemics": self.epistemics,
            "date": self.day,
            "tags": ["derived", self.tag],
            "provenance": {"origin": "extracted", "derived_from": list(self.refs)},
        }
        return knowledge.render_front(data, f"# {self.title}\n\n{self.description}\n\n{self.body}".strip())


@dataclass
class Outcome:
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    error: OSError | None = None  # a file that could not be written: the boundary failed


@dataclass
class Writes:
    """The candidate files of a pass, written together at its end (`flush`: files.write_many flushes
    the disk once for them all; two fsyncs per file were most of a cold import's derive). A file the
    batch holds reads as written already, so a later boundary deriving the same candidate finds it
    unchanged, as it would have found the file.

    `written` keeps each file flushed with the (size, mtime_ns) it was written at and what it reads
    as (`render_front`): the knowledge import that follows in the same pass takes those instead of
    reading and parsing the file back, as long as the file is still listed so (one a person changed
    since is read as any other)."""

    directory: Path
    pending: dict[Path, bytes] = field(default_factory=dict)
    owners: dict[Path, list[tuple[Outcome, str]]] = field(default_factory=dict)
    fronts: dict[Path, knowledge.Front | None] = field(default_factory=dict)
    written: dict[Path, tuple[bytes, tuple[int, int], knowledge.Front | None]] = field(default_factory=dict)

    def exists(self, path: Path) -> bool:
        return path in self.pending or safefs.exists(path)

    def read(self, path: Path) -> bytes:
        if path in self.pending:
            return self.pending[path]
        return files.read(self.directory, path)

    def add(
        self, path: Path, data: bytes, outcome: Outcome, record_id: str, front: knowledge.Front | None = None
    ) -> None:
        self.pending[path] = data
        self.fronts[path] = front
        self.owners.setdefault(path, []).append((outcome, record_id))
        outcome.written.append(record_id)

    def flush(self) -> None:
        """Write every pending file; one refused is skipped by each outcome that wrote it (as a
        refused single write was), any other failure is set on the outcome (its boundary failed)."""
        writes = list(self.pending.items())
        self.pending, owners, self.owners = {}, self.owners, {}
        fronts, self.fronts = self.fronts, {}
        seen: dict[int, tuple[int, int]] = {}
        failed = files.write_many(self.directory, writes, seen)
        for index, stat in seen.items():
            if index not in failed:
                path, data = writes[index]
                self.written[path] = (data, stat, fronts[path])
        for index, exc in failed.items():
            for outcome, record_id in owners[writes[index][0]]:
                if isinstance(exc, files.Unsafe):
                    outcome.written.remove(record_id)
                    outcome.skipped.append(f"{record_id} ({exc})")
                    # In record-id order, as the candidates were gone through.
                    outcome.skipped.sort(key=lambda text: text.split(" ", 1)[0])
                elif outcome.error is None:
                    outcome.error = exc


def write_candidates(directory: Path, found: list[Candidate], writes: Writes | None = None) -> Outcome:
    """Each candidate's file under `candidates/`; one a person promoted, rejected or reworded is skipped.

    Into `writes` when given (its caller flushes it), else written before returning."""
    batch = writes if writes is not None else Writes(directory)
    outcome = Outcome()
    if found:
        directory.mkdir(parents=True, exist_ok=True)  # waysweb's own directory: ours to create
    promoted, pending = directory / "curated", directory / "candidates"
    for candidate in sorted({c.record_id: c for c in found}.values(), key=lambda c: c.record_id):
        name = f"{candidate.record_id}.md"
        curated, path = promoted / name, pending / name
        if safefs.exists(curated):
            outcome.skipped.append(f"{candidate.record_id} (promoted)")
            continue
        data, front = candidate.rendered()
        if batch.exists(path):
            try:
                current = batch.read(path)
            except (OSError, files.Unsafe) as exc:
                outcome.skipped.append(f"{candidate.record_id} ({exc})")
                continue
            if current == data:
                outcome.unchanged.append(candidate.record_id)
                continue
            parsed = knowledge.parse_knowledge(current, stem=candidate.record_id)
            if parsed.get("status") != "candidate" or b"Edited by " in current:
                # Rejected, or reworded by a person: theirs stands.
                outcome.skipped.append(f"{candidate.record_id} (decided)")
                continue
        batch.add(path, data, outcome, candidate.record_id, front)
    if writes is None:
        batch.flush()
        if outcome.error is not None:
            raise outcome.error
    return outcome
