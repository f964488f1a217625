"""Replaying a file's Write / Edit / MultiEdit calls to find the one that wrote each version."""

from __future__ import annotations

import orjson

from ledger.importer import memory_calls
from ledger.importer.memory_calls import Call, digest, replay


def test_it_reads_the_input_of_the_named_tool_use_block():
    line = orjson.dumps(
        {
            "message": {
                "content": [
                    {"type": "text", "text": "x"},
                    {"type": "tool_use", "id": "t2", "input": {"a": 1}},
                ]
            }
        }
    )
    assert memory_calls.call_input(line, "t2") == {"a": 1}
    assert memory_calls.call_input(line, "t9") is None
    assert memory_calls.call_input(b"{torn", "t2") is None


def test_a_call_on_another_path_is_not_a_call_on_this_file():
    assert memory_calls.call_on("/m/a.md", 1, "Write", {"file_path": "/m/b.md", "content": "x"}) is None


def test_a_multiedit_replays_each_edit_in_order_and_honours_replace_all():
    call = memory_calls.call_on(
        "/m/a.md",
        "k",
        "MultiEdit",
        {
            "file_path": "/m/a.md",
            "edits": [
                {"old_string": "a", "new_string": "b", "replace_all": True},
                {"old_string": "bb", "new_string": "c"},
            ],
        },
    )
    assert memory_calls.apply("a a aa", call.edits) == "b b c"
    links = replay([Call("w", "Write", content="a a aa"), call], [(digest("b b c"), "b b c")]).links
    assert links[digest("b b c")] == memory_calls.Link("k", exact=True)


def test_an_edit_that_does_not_apply_leaves_the_version_unmatched_unless_its_text_is_there():
    edit = Call("e", "Edit", edits=(("missing", "new words", False),))
    plain = replay([edit], [(digest("unrelated"), "unrelated")]).links
    assert plain == {}
    guessed = replay([edit], [(digest("has new words"), "has new words")]).links
    assert guessed[digest("has new words")] == memory_calls.Link("e", exact=False)


def test_the_same_memory_named_under_another_home_is_a_call_on_this_file():
    data = {"file_path": "/home/dev/.claude/projects/-p/memory/a.md", "content": "x"}
    here = "/srv/copy/.claude/projects/-p/memory/a.md"
    assert memory_calls.call_on(here, 1, "Write", data, place="/projects/-p/memory/a.md") is not None
    assert memory_calls.call_on(here, 1, "Write", data, place="/projects/-q/memory/a.md") is None
