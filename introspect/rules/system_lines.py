"""What a transcript's system and bookkeeping lines say, for the conversation (formats-claude-code.md).

Only the fields the page shows are read, from the kept raw line: a compaction boundary's trigger
and token counts, a system line's level and content, an attachment's kind.
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson


@dataclass(frozen=True)
class Compaction:
    trigger: str  # "manual", "auto" or "" when not recorded
    pre_tokens: int | None
    post_tokens: int | None


def parsed(line: bytes) -> dict:
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def compaction(line: bytes) -> Compaction:
    """A `compact_boundary` line's compactMetadata."""
    meta = parsed(line).get("compactMetadata")
    meta = meta if isinstance(meta, dict) else {}
    trigger = meta.get("trigger")
    return Compaction(
        trigger=trigger if isinstance(trigger, str) else "",
        pre_tokens=count(meta.get("preTokens")),
        post_tokens=count(meta.get("postTokens")),
    )


def system_text(line: bytes) -> str:
    """A system line's own words (its `content`), else its subtype's fields as `key: value`."""
    obj = parsed(line)
    content = obj.get("content")
    if isinstance(content, str) and content:
        return content
    skip = {
        "type",
        "subtype",
        "uuid",
        "parentUuid",
        "logicalParentUuid",
        "timestamp",
        "sessionId",
        "cwd",
        "version",
        "gitBranch",
        "slug",
        "userType",
        "entrypoint",
        "isSidechain",
        "isMeta",
        "level",
    }
    return ", ".join(
        f"{key}: {value}"
        for key, value in obj.items()
        if key not in skip and not isinstance(value, (dict, list))
    )
