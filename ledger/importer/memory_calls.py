"""Which recorded tool call wrote which content of a memory file. No Django.

Claude Code's auto-memory is written by the agent's own Write / Edit / MultiEdit calls, so a memory
version can be traced to the call that produced it. The calls on one file are replayed in
transcript order: a Write's content, or an Edit applied to the content before it, that hashes to a
version's bytes is an *exact* match. A version no replay reproduces (its file existed before any
recorded call, or an edit was made by hand in between) is matched *heuristically* to the last call
whose written text it contains, and said to be heuristic; with no such call it was changed outside
a recorded session.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import orjson

from lib.hashing import sha256

WRITING_TOOLS = ("Write", "Edit", "MultiEdit")


@dataclass(frozen=True)
class Call:
    """A writing tool call on one file, in transcript order; `key` is whatever the caller links to."""

    key: object
    tool: str
    content: str | None = None  # Write
    edits: tuple[tuple[str, str, bool], ...] = ()  # Edit / MultiEdit: (old, new, replace_all)

    @property
    def written(self) -> tuple[str, ...]:
        """The text this call put into the file."""
        return (self.content,) if self.content is not None else tuple(new for _, new, _ in self.edits)


@dataclass(frozen=True)
class Link:
    key: object
    exact: bool


@dataclass
class Replay:
    links: dict[str, Link] = field(default_factory=dict)  # version sha256 → the call


def call_input(line: bytes, tool_use_id: str) -> dict | None:
    """The `input` of the `tool_use` block `tool_use_id` in a stored assistant line, else None."""
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError:
        # orjson refuses lone surrogate escapes and >64-bit integers; the stdlib takes them.
        try:
            obj = json.loads(line.decode("utf-8", "replace"))
        except ValueError:
            return None
    message = obj.get("message") if isinstance(obj, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return None
    for block in content:
        if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("id") == tool_use_id:
            data = block.get("input")
            return data if isinstance(data, dict) else None
    return None


def call_on(path: str, key: object, tool: str, data: dict, *, place: str = "") -> Call | None:
    """The call as a `Call` when it writes `path`, else None. `place` (`/projects/<slug>/memory/<name>`)
    matches the same memory file named under another home: a transcript recorded on another machine,
    or under a Claude directory since moved, names the file by that machine's absolute path."""
    file_path = data.get("file_path")
    if not isinstance(file_path, str) or not (file_path == path or (place and file_path.endswith(place))):
        return None
    if tool == "Write":
        content = data.get("content")
        return Call(key, tool, content=content) if isinstance(content, str) else None
    raw = data.get("edits") if tool == "MultiEdit" else [data]
    edits = tuple(
        (e["old_string"], e["new_string"], e.get("replace_all") is True)
        for e in (raw if isinstance(raw, list) else [])
        if isinstance(e, dict)
        and isinstance(e.get("old_string"), str)
        and isinstance(e.get("new_string"), str)
    )
    return Call(key, tool, edits=edits) if edits else None


def apply(base: str, edits: tuple[tuple[str, str, bool], ...]) -> str | None:
    """`base` with the edits applied as Claude Code applies them; None when one does not apply."""
    for old, new, replace_all in edits:
        if old not in base:
            return None
        base = base.replace(old, new) if replace_all else base.replace(old, new, 1)
    return base


def digest(text: str) -> str:
    return sha256(text.encode("utf-8", "surrogateescape"))


def replay(calls: list[Call], versions: list[tuple[str, str]]) -> Replay:
    """Link each version (sha256, content), oldest first, to the call that wrote it, if any."""
    known = {sha: content for sha, content in versions}
    result = Replay()
    state: str | None = None
    for call in calls:
        if call.content is not None:
            state = call.content
        else:
            # The content before an edit: the replay's, else any version seen (the file may predate
            # the first recorded call).
            bases = [state] if state is not None else []
            bases += [content for content in known.values() if content != state]
            applied = (apply(base, call.edits) for base in bases)
            candidates = [text for text in applied if text is not None]
            state = next(
                (text for text in candidates if digest(text) in known), candidates[0] if candidates else None
            )
        if state is not None and digest(state) in known:
            result.links[digest(state)] = Link(call.key, exact=True)
    for sha, content in versions:
        if sha in result.links:
            continue
        guess = next(
            (call for call in reversed(calls) if any(text and text in content for text in call.written)), None
        )
        if guess is not None:
            result.links[sha] = Link(guess.key, exact=False)
    return result
