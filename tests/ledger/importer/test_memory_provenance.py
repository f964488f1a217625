"""Each memory version is linked to the transcript call that wrote it: by path and replayed content
(exact), by path and written text (heuristic), or to nothing (changed outside a recorded session)."""

from __future__ import annotations

import os

import pytest
from django.conf import settings

from introspect.importer.run import Options
from ledger.importer import memory, memory_provenance
from ledger.models import MemoryVersion
from tests.ledger.memory_tree import EDITED, FIRST, PROJECT, SID, call, memory_folder, prompt
from waysweb import passes

pytestmark = pytest.mark.django_db


@pytest.fixture
def memory_file(home):
    return memory_folder(home) / "testing.md"


def ingest_transcript(home, *entries: dict) -> None:
    home.transcript(PROJECT, SID, *entries)
    passes.sessions_pass(settings.WAYSWEB_LOCATIONS, Options(ways=False))


def import_and_link() -> list[MemoryVersion]:
    _, changed = memory.import_memory(settings.WAYSWEB_LOCATIONS.every_claude_dir)
    memory_provenance.link_memories(changed)
    return list(MemoryVersion.objects.select_related("session").order_by("number"))


def test_a_write_then_an_edit_link_each_version_to_its_turn_exactly(home, memory_file):
    path = str(memory_file)
    ingest_transcript(
        home,
        prompt("p1", 1, "remember how tests run"),
        call("a1", 2, "toolu_w", "Write", {"file_path": path, "content": FIRST}),
        prompt("p2", 3, "they need docker too"),
        call(
            "a2",
            4,
            "toolu_e",
            "Edit",
            {
                "file_path": path,
                "old_string": "Run make test.",
                "new_string": "Run make test (needs Docker).",
            },
        ),
    )
    memory_file.write_text(FIRST)
    [first] = import_and_link()
    memory_file.write_text(EDITED)
    os.utime(memory_file, ns=(1, 1))
    first, second = import_and_link()
    assert (first.match, first.turn, first.session.sid, first.entry.tool_use_id) == (
        "exact",
        1,
        SID,
        "toolu_w",
    )
    assert (second.match, second.turn, second.entry.tool_use_id) == ("exact", 2, "toolu_e")


def test_an_edit_to_a_file_older_than_any_recorded_call_still_links_exactly(home, memory_file):
    memory_file.write_text(FIRST)
    import_and_link()
    ingest_transcript(
        home,
        prompt("p1", 1, "they need docker"),
        call(
            "a1",
            2,
            "toolu_e",
            "Edit",
            {
                "file_path": str(memory_file),
                "old_string": "Run make test.",
                "new_string": "Run make test (needs Docker).",
            },
        ),
    )
    memory_file.write_text(EDITED)
    os.utime(memory_file, ns=(1, 1))
    first, second = import_and_link()
    assert first.match == "" and first.entry is None  # written before any recorded session
    assert (second.match, second.turn) == ("exact", 1)


def test_a_version_the_calls_do_not_reproduce_is_linked_heuristically(home, memory_file):
    ingest_transcript(
        home,
        prompt("p1", 1, "remember"),
        call("a1", 2, "toolu_w", "Write", {"file_path": str(memory_file), "content": FIRST}),
    )
    memory_file.write_text(FIRST + "\nA line added by hand.\n")  # the written text is in it, the bytes differ
    [version] = import_and_link()
    assert (version.match, version.entry.tool_use_id) == ("heuristic", "toolu_w")


def test_a_call_on_another_file_is_not_a_match(home, memory_file):
    ingest_transcript(
        home,
        prompt("p1", 1, "remember"),
        call("a1", 2, "toolu_w", "Write", {"file_path": str(memory_file) + ".bak", "content": FIRST}),
    )
    memory_file.write_text(FIRST)
    [version] = import_and_link()
    assert (version.match, version.entry, version.turn) == ("", None, None)


def test_a_transcript_imported_after_its_memory_file_links_the_version_on_the_next_pass(home, memory_file):
    # The memory file lands first (a pass reads it before the transcript that wrote it is imported).
    memory_file.write_text(FIRST)
    [version] = import_and_link()
    assert version.match == MemoryVersion.Match.NONE
    ingest_transcript(
        home,
        prompt("p1", 1, "remember how tests run"),
        call("a1", 2, "toolu_w", "Write", {"file_path": str(memory_file), "content": FIRST}),
    )
    # The file itself is unchanged: only the waiting memory is looked at again.
    _, changed = memory.import_memory(settings.WAYSWEB_LOCATIONS.every_claude_dir)
    assert changed == []
    memory_provenance.link_memories(memory_provenance.waiting(skip=changed))
    version.refresh_from_db()
    assert (version.match, version.turn, version.entry.tool_use_id) == ("exact", 1, "toolu_w")


def test_a_memory_changed_outside_any_session_is_looked_at_again_only_when_a_call_on_it_appears(
    home, memory_file
):
    memory_file.write_text(FIRST)
    import_and_link()
    assert memory_provenance.waiting(skip=[]) == []  # linked up to the newest line: nothing new since
    ingest_transcript(
        home, prompt("p1", 1, "unrelated"), call("a1", 2, "toolu_x", "Write", {"file_path": "/x"})
    )
    assert memory_provenance.waiting(skip=[]) == []  # a write to another file: nothing to look at
    ingest_transcript(
        home,
        prompt("p2", 3, "remember it"),
        call("a2", 4, "toolu_m", "Write", {"file_path": str(memory_file), "content": "other"}),
    )
    assert len(memory_provenance.waiting(skip=[])) == 1  # a new call on the file itself: look again
