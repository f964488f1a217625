"""A project toggle: `ways: {<id>: false}` in `<project>/.claude/ways.yaml` (ADR-131; §8.5).

agent-ways reads the project overlay's `ways:` mapping (config.rs `apply_project_ways_overlay_value`):
`<id>: false` (or the long form `<id>: {enabled: false}`) disables the way in that project only.
Its own writer (`ways disable`) edits only the lines of the way's entry and keeps comments and
every other key; waysweb goes further and writes **exactly one line**:

- no file, or a file without a `ways:` key: one line `ways: {<id>: false}` appended (flow form,
  which serde_yaml reads as the same mapping);
- a block `ways:` at column 0: one line `<indent><id>: false` after its last entry, in the
  indentation the block already uses (2 when it has none); an entry `<id>: <scalar>` is that one
  line rewritten.

Anything else (a flow `ways: {…}`, a long-form entry, tabs) cannot be changed in one line and is
refused with the reason: the diff is still shown, to copy by hand. The result is parsed again and
must say the way is disabled and keep every other key as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lib import frontmatter

# upstream `validate_way_name`: lowercase ASCII, digits, `_`, `-`, joined by `/`; anything else
# cannot be written as a bare YAML key that agent-ways' writer and reader agree on.
WAY_NAME = re.compile(r"^[a-z0-9_-]+(/[a-z0-9_-]+)*$")
OVERLAY_PARTS = (".claude", "ways.yaml")


class CannotToggle(ValueError):
    """The overlay cannot be changed by one line (the reason says why)."""


@dataclass(frozen=True)
class Toggle:
    before: str
    after: str
    already: bool  # the way is already disabled there: nothing to write


def ways_key(line: str) -> bool:
    """A column-0 `ways:` key (with nothing after it but a comment), as upstream's `matches_ways_key`."""
    rest = line.rstrip()
    if not rest.startswith("ways:"):
        return False
    rest = rest[len("ways:") :]
    return rest == "" or (rest.lstrip().startswith("#") and rest[:1] in (" ", "\t"))


def parsed(text: str) -> dict:
    try:
        data = frontmatter.load(text) if text.strip() else {}
    except ValueError as exc:
        raise CannotToggle(f"ways.yaml is not valid YAML ({exc})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise CannotToggle("ways.yaml is not a mapping")
    return data


def disabled(data: dict, way_id: str) -> bool:
    ways = data.get("ways")
    if not isinstance(ways, dict) or way_id not in ways:
        return False
    entry = ways[way_id]
    return entry is False or (isinstance(entry, dict) and entry.get("enabled") is False)


def toggle_off(text: str, way_id: str) -> Toggle:
    """`text` (the overlay as read, "" when there is none) with `way_id` disabled by one line."""
    if not WAY_NAME.match(way_id):
        raise CannotToggle(f"{way_id!r} is not a way name agent-ways writes into ways.yaml")
    before = parsed(text)
    if disabled(before, way_id):
        return Toggle(text, text, already=True)
    lines = text.split("\n")
    start = next((n for n, line in enumerate(lines) if ways_key(line)), None)
    if start is None:
        if "ways" in before:
            raise CannotToggle("its `ways:` key is not a block at column 0; edit it by hand")
        head = text if text.endswith("\n") or not text else text + "\n"
        after = f"{head}ways: {{{way_id}: false}}\n"
    else:
        after = "\n".join(block_edit(lines, start, way_id))
    result = parsed(after)
    if not disabled(result, way_id) or {k: v for k, v in result.items() if k != "ways"} != {
        k: v for k, v in before.items() if k != "ways"
    }:
        raise CannotToggle("one line could not disable it and keep the rest; edit it by hand")
    return Toggle(text, after, already=False)


def block_edit(lines: list[str], start: int, way_id: str) -> list[str]:
    """The lines with the block's entry for `way_id` rewritten or one entry added after its last."""
    indent, last = None, start
    for n in range(start + 1, len(lines)):
        line = lines[n]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] == "\t" or (line[0] == " " and "\t" in line[: len(line) - len(line.lstrip())]):
            raise CannotToggle("its `ways:` block is indented with tabs; edit it by hand")
        if line[0] != " ":
            break
        width = len(line) - len(line.lstrip(" "))
        indent = width if indent is None else indent
        if width == indent and re.match(rf"{re.escape(way_id)}:(\s|$)", line[width:]):
            value = line[width + len(way_id) + 1 :].split("#", 1)[0].strip()
            if not value:
                raise CannotToggle("its entry is in the long form; edit it by hand")
            out = list(lines)
            out[n] = f"{' ' * width}{way_id}: false"
            return out
        last = n
    pad = " " * (indent or 2)
    return [*lines[: last + 1], f"{pad}{way_id}: false", *lines[last + 1 :]]
