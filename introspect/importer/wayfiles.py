"""Way files under a way root: ids, front matter and current criteria (introspection.md §3.1).

No Django here. The id of a way is its directory relative to the root; the way file is a `.md`
whose first line is exactly `---` and whose name does not contain `.check.`. A root that is itself a
link (the core root is often a projection) is read where it points; links inside it are followed
only while they stay inside it (lib/safefs.py), in path order, without looping.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from lib import frontmatter, safefs
from lib.hashing import sha256

CRITERIA_KEYS = ("pattern", "commands", "files", "trigger", "vocabulary", "scope")
GONE_FIELDS = {
    "embed_threshold": "not read since ADR-156",
    "curve": "replaced by refire: (ADR-126)",
    "redisclose": "removed by ADR-123",
}
MAX_WAY_FILE_BYTES = 1 << 20
# agent-ways ships ~100 ways; a user with thousands is plausible, a root holding more than this is
# not a way root (a link to a home or to `/`): the walk stops there and says so.
MAX_WAY_FILES = 20_000
MAX_WAY_DIRS = 20_000


@dataclass(frozen=True)
class Parsed:
    """What a way file's text says: its front matter (as JSON data), why it could not be read, its
    criteria and its body."""

    frontmatter: dict
    error: str
    criteria: dict
    body: str


@dataclass(frozen=True)
class WayFile:
    """A way file as read. Its text is parsed when first asked for: the catalog compares the hash
    first, and a pass over ways that did not change parses none (nor imports PyYAML)."""

    way_id: str
    rel_path: str
    raw: bytes

    @property
    def domain(self) -> str:
        return self.way_id.split("/", 1)[0]

    @cached_property
    def sha256(self) -> str:
        return sha256(self.raw)

    @cached_property
    def content(self) -> str:
        return self.raw.decode("utf-8", "replace")

    @cached_property
    def parsed(self) -> Parsed:
        return parse(self.content)

    @property
    def frontmatter(self) -> dict:
        return self.parsed.frontmatter

    @property
    def error(self) -> str:
        return self.parsed.error

    @property
    def criteria(self) -> dict:
        return self.parsed.criteria

    @property
    def body(self) -> str:
        return self.parsed.body


def wanted(name: str) -> bool:
    return name.endswith(".md") and ".check." not in name


def scan_root(root: Path, problems: list[safefs.Problem] | None = None) -> list[WayFile]:
    """The ways of one root, one per id (the first file in path order wins).

    Walked inside the root only (a link leaving it is a problem, never followed: a way root linked
    to `/` must not make `/usr` a catalog), at most `MAX_WAY_FILES` candidate files, each read as a
    regular file capped while reading (a FIFO named `x.md` cannot block the pass).
    """
    problems = [] if problems is None else problems
    if not safefs.is_dir(root):
        return []
    listing = safefs.walk(root, want=wanted, max_files=MAX_WAY_FILES, max_dirs=MAX_WAY_DIRS)
    problems.extend(listing.problems)
    ways: dict[str, WayFile] = {}
    for path in listing.files:
        rel = path.relative_to(root)
        way_id = "/".join(rel.parent.parts)
        if not way_id or way_id in ways:
            continue  # a file directly in the root has no id
        try:
            with safefs.open_file(root, path) as fh:
                first = fh.readline(64)
                if first.rstrip(b"\n").rstrip(b"\r") != b"---":
                    continue
                raw = first + safefs.read_upto(fh, MAX_WAY_FILE_BYTES - len(first))
        except FileNotFoundError:
            continue
        except OSError as exc:
            problems.append(
                exc.problem
                if isinstance(exc, safefs.Refused)
                else safefs.Problem(str(path), safefs.UNREADABLE, exc.strerror or str(exc))
            )
            continue
        ways[way_id] = parse_way(way_id, rel.as_posix(), raw)
    return list(ways.values())


def parse_way(way_id: str, rel_path: str, raw: bytes) -> WayFile:
    """The way of these bytes (its fields parsed when first read)."""
    return WayFile(way_id=way_id, rel_path=rel_path, raw=raw)


def parse(content: str) -> Parsed:
    """A way file's front matter, criteria and body; an unreadable front matter says why in `error`."""
    block, body = frontmatter.split(content)
    data: dict = {}
    error = ""
    if block:
        try:
            loaded = frontmatter.load(block)
        except ValueError as exc:
            error = str(exc)
        else:
            if isinstance(loaded, dict):
                data = {str(key): value for key, value in loaded.items()}
            elif loaded is not None:
                error = "front matter is not a mapping"
    elif block == "":
        error = "no closing --- fence" if not body else ""
    return Parsed(frontmatter=jsonable(data), error=error, criteria=criteria(data), body=body.strip("\n"))


def criteria(data: dict) -> dict[str, str]:
    """The fire-bearing fields as text, each converted on its own (a bad value spoils only itself)."""
    out: dict[str, str] = {}
    for key in CRITERIA_KEYS:
        value = as_text(data.get(key))
        if value:
            out[key] = value
    return out


def as_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ", ".join(item for item in (as_text(v) for v in value) if item)
    return ""


def jsonable(value):
    """Front matter as JSON-storable data (YAML may hold dates or odd keys in user files)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)
