"""agent-ways `ways_core::util::in_project`: whether a recorded project path lies in a `--project` scope."""

from __future__ import annotations

_SEPARATORS = "/\\"


def in_project(project: str, scope: str) -> bool:
    """The same path or one under it, trailing separators aside; `/a/foo-bar` is not under `/a/foo`.
    `/` and `\\` both separate (Windows records backslash paths). An empty scope holds nothing."""
    if not scope:
        return False
    path, root = project.rstrip(_SEPARATORS), scope.rstrip(_SEPARATORS)
    return path == root or (path.startswith(root) and path[len(root) : len(root) + 1] in ("/", "\\"))
