"""Way files under a way root: ids, front matter and current criteria (introspection.md §3.1).

No Django here. The id of a way is its directory relative to the root; the way file is a `.md`
whose first line is exactly `---` and whose name does not contain `.check.`. Roots are walked
following symlinks (the core root is often a projection), in path order, without looping.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from waysweb import frontmatter

CRITERIA_KEYS = ("pattern", "commands", "files", "trigger", "vocabulary", "scope")
GONE_FIELDS = {
    "embed_threshold": "not read since ADR-156",
    "curve": "replaced by refire: (ADR-126)",
    "redisclose": "removed by ADR-123",
}
MAX_WAY_FILE_BYTES = 1 << 20


@dataclass(frozen=True)
class WayFile:
    way_id: str
    rel_path: str
    sha256: str
    content: str
    frontmatter: dict = field(default_factory=dict)
    error: str = ""
    criteria: dict = field(default_factory=dict)
    body: str = ""

    @property
    def domain(self) -> str:
        return self.way_id.split("/", 1)[0]


def walk(root: Path) -> list[Path]:
    """Every file under `root`, following symlinked directories once each, in path order."""
    found: list[Path] = []
    seen: set[tuple[int, int]] = set()
    for current, dirs, files in os.walk(root, followlinks=True):
        try:
            st = os.stat(current)
        except OSError:
            dirs[:] = []
            continue
        if (st.st_dev, st.st_ino) in seen:
            dirs[:] = []  # a symlink loop, or a directory reached twice
            continue
        seen.add((st.st_dev, st.st_ino))
        dirs.sort()
        found.extend(Path(current) / name for name in files)
    return sorted(found)


def is_way_file(path: Path) -> bool:
    if not path.name.endswith(".md") or ".check." in path.name:
        return False
    try:
        with open(path, "rb") as fh:
            first = fh.readline(64)
    except OSError:
        return False
    return first.rstrip(b"\n").rstrip(b"\r") == b"---"


def scan_root(root: Path) -> list[WayFile]:
    """The ways of one root, one per id (the first file in path order wins)."""
    if not root.is_dir():
        return []
    ways: dict[str, WayFile] = {}
    for path in walk(root):
        if not is_way_file(path):
            continue
        rel = path.relative_to(root)
        way_id = "/".join(rel.parent.parts)
        if not way_id or way_id in ways:
            continue  # a file directly in the root has no id
        try:
            raw = path.read_bytes()[:MAX_WAY_FILE_BYTES]
        except OSError:
            continue
        ways[way_id] = parse_way(way_id, rel.as_posix(), raw)
    return list(ways.values())


def parse_way(way_id: str, rel_path: str, raw: bytes) -> WayFile:
    content = raw.decode("utf-8", "replace")
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
    return WayFile(way_id=way_id, rel_path=rel_path, sha256=hashlib.sha256(raw).hexdigest(), content=content,
                   frontmatter=jsonable(data), error=error, criteria=criteria(data), body=body.strip("\n"))


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
