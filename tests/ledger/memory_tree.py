"""A project whose session wrote its auto-memory: a Write, then an Edit in a later turn, an index,
and a topic file changed by hand. Imported the way a pass imports it."""

from __future__ import annotations

import os
from pathlib import Path

from django.conf import settings

from introspect.importer.run import Options
from introspect.rules.join import project_slug
from ledger.importer import memory, memory_provenance
from waysweb import passes

SID = "3e3e0000-0000-4000-8000-000000000001"
PROJECT = "/home/dev/app"
SLUG = project_slug(PROJECT)
FIRST = (
    "---\nname: test command\ndescription: how tests run\nmetadata:\n  type: project\n---\nRun make test.\n"
)
EDITED = FIRST.replace("Run make test.", "Run make test (needs Docker).")
INDEX = "- [test command](testing.md) — how tests run\n"


def prompt(uuid: str, second: int, text: str) -> dict:
    return {
        "type": "user",
        "uuid": uuid,
        "parentUuid": None,
        "sessionId": SID,
        "timestamp": f"2026-11-02T10:00:{second:02d}.000Z",
        "cwd": PROJECT,
        "message": {"role": "user", "content": text},
    }


def call(uuid: str, second: int, tool_use_id: str, name: str, data: dict) -> dict:
    return {
        "type": "assistant",
        "uuid": uuid,
        "parentUuid": None,
        "sessionId": SID,
        "timestamp": f"2026-11-02T10:00:{second:02d}.000Z",
        "cwd": PROJECT,
        "message": {
            "id": f"msg_{uuid}",
            "role": "assistant",
            "content": [{"type": "tool_use", "id": tool_use_id, "name": name, "input": data}],
        },
    }


def memory_folder(home) -> Path:
    folder = home.root / ".claude" / "projects" / SLUG / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def import_memory() -> None:
    _, changed = memory.import_memory(settings.WAYSWEB_LOCATIONS.every_claude_dir)
    memory_provenance.link_memories(changed)


def written_memory(home) -> Path:
    """testing.md written in turn 1 and edited in turn 2 (two versions, both exact), and the index."""
    folder = memory_folder(home)
    topic = folder / "testing.md"
    edit = {
        "file_path": str(topic),
        "old_string": "Run make test.",
        "new_string": "Run make test (needs Docker).",
    }
    home.transcript(
        PROJECT,
        SID,
        prompt("p1", 1, "remember how tests run"),
        call("a1", 2, "toolu_w", "Write", {"file_path": str(topic), "content": FIRST}),
        prompt("p2", 3, "they need docker too"),
        call("a2", 4, "toolu_e", "Edit", edit),
    )
    passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False))
    (folder / "MEMORY.md").write_text(INDEX)
    topic.write_text(FIRST)
    import_memory()
    topic.write_text(EDITED)
    os.utime(topic, ns=(1, 1))
    import_memory()
    return topic
