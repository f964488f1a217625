"""Tool call and tool result display models, from real-shaped transcript lines (formats-claude-code.md §7)."""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from introspect.rules import tool_cards
from introspect.rules.highlight import diff_block
from introspect.rules.tool_cards import answered, tool_call, tool_result


@dataclass
class FakeEntry:
    line: bytes
    type: str = "assistant"
    subtype: str = ""
    tool_use_id: str | None = None
    tool_name: str | None = None
    tool_result_id: str | None = None
    is_error: bool = False
    text: str = ""


def use(name: str, tool_input, tool_use_id: str = "toolu_1") -> FakeEntry:
    block = {"type": "tool_use", "id": tool_use_id, "name": name, "input": tool_input}
    line = orjson.dumps({"type": "assistant", "message": {"role": "assistant", "content": [block]}})
    return FakeEntry(line=line, subtype="tool_use", tool_use_id=tool_use_id, tool_name=name)


def result(content="", extra=None, is_error=None, tool_use_id: str = "toolu_1") -> FakeEntry:
    block = {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    obj = {"type": "user", "message": {"role": "user", "content": [block]}}
    if extra is not None:
        obj["toolUseResult"] = extra
    return FakeEntry(line=orjson.dumps(obj), type="user", tool_result_id=tool_use_id, is_error=bool(is_error))


def result_of(*args, **kwargs):
    return tool_result(result(*args, **kwargs))


def test_it_summarises_a_bash_call():
    call = tool_call(use("Bash", {"command": "uv run pytest -q", "description": "Run tests"}))

    assert call.kind == "bash"
    assert call.name == "Bash"
    assert call.tool_use_id == "toolu_1"
    assert call.summary == "uv run pytest -q"
    assert '"command": "uv run pytest -q"' in call.input_json
    assert call.diff == ()


def test_it_marks_a_multi_line_command():
    call = tool_call(use("Bash", {"command": "cd /repo\nmake test"}))

    assert call.summary == "cd /repo …"


def test_it_reads_bash_stdout_and_stderr():
    r = result_of("ok\nwarn", {"stdout": "ok", "stderr": "warn", "interrupted": False, "isImage": False})

    assert r.kind == "bash"
    assert r.stdout == "ok"
    assert r.stderr == "warn"
    assert r.interrupted is False
    assert r.text == "ok\nwarn"
    assert r.is_error is False


def test_it_builds_an_edit_diff_from_old_and_new_strings():
    call = tool_call(
        use(
            "Edit",
            {"file_path": "/repo/a.py", "old_string": "a = 1\nb = 2\n", "new_string": "a = 1\nb = 3\n"},
        )
    )

    assert call.kind == "edit"
    assert call.summary == "/repo/a.py"
    assert call.diff == ((" ", "a = 1"), ("-", "b = 2"), ("+", "b = 3"))


def test_it_notes_replace_all():
    call = tool_call(
        use("Edit", {"file_path": "a.py", "old_string": "x", "new_string": "y", "replace_all": True})
    )

    assert call.summary == "a.py (replace all)"


def test_it_builds_an_edit_diff_from_structured_patch():
    patch = [
        {
            "oldStart": 10,
            "oldLines": 2,
            "newStart": 10,
            "newLines": 2,
            "lines": [" a = 1", "-b = 2", "+b = 3"],
        }
    ]
    r = result_of(
        "The file /repo/a.py has been updated.",
        {
            "filePath": "/repo/a.py",
            "oldString": "b = 2",
            "newString": "b = 3",
            "originalFile": "…",
            "structuredPatch": patch,
            "userModified": False,
            "replaceAll": False,
        },
    )

    assert r.kind == "edit"
    assert r.file_path == "/repo/a.py"
    assert r.diff == (("@", "@@ -10,2 +10,2 @@"), (" ", "a = 1"), ("-", "b = 2"), ("+", "b = 3"))


def test_it_builds_one_diff_per_multiedit_edit():
    call = tool_call(
        use(
            "MultiEdit",
            {
                "file_path": "/repo/b.py",
                "edits": [
                    {"old_string": "x = 1", "new_string": "x = 2"},
                    {"old_string": "y", "new_string": "z", "replace_all": True},
                    "not an edit",
                ],
            },
        )
    )

    assert call.kind == "multiedit"
    assert call.summary == "/repo/b.py"
    assert call.diff == (
        ("@", "edit 1"),
        ("-", "x = 1"),
        ("+", "x = 2"),
        ("@", "edit 2 (replace all)"),
        ("-", "y"),
        ("+", "z"),
    )


def test_it_shows_written_content_as_added_lines():
    call = tool_call(use("Write", {"file_path": "/repo/new.py", "content": "one\ntwo\n"}))

    assert call.kind == "write"
    assert call.summary == "/repo/new.py"
    assert call.diff == (("+", "one"), ("+", "two"))


def test_it_caps_a_huge_write():
    call = tool_call(use("Write", {"file_path": "big", "content": "x\n" * 5000}))

    assert len(call.diff) == 2001
    assert call.diff[-1] == ("@", "… 3000 more lines")


def test_it_reads_a_write_create_result():
    r = result_of(
        "File created",
        {"type": "create", "filePath": "/repo/new.py", "content": "one\n", "structuredPatch": []},
    )

    assert r.kind == "write"
    assert r.file_path == "/repo/new.py"
    assert r.diff == ()


def test_it_reads_a_read_result():
    call = tool_call(use("Read", {"file_path": "/repo/a.py", "offset": 10, "limit": 5}))
    r = result_of(
        "    10→a = 1",
        {
            "type": "text",
            "file": {
                "filePath": "/repo/a.py",
                "content": "a = 1",
                "numLines": 1,
                "startLine": 10,
                "totalLines": 40,
            },
        },
    )

    assert call.kind == "read"
    assert call.summary == "/repo/a.py"
    assert (r.kind, r.file_path, r.num_lines) == ("read", "/repo/a.py", 1)
    assert (r.start_line, r.total_lines) == (10, 40)


def test_it_reads_a_grep_result():
    call = tool_call(use("Grep", {"pattern": "def main", "path": "src", "output_mode": "files_with_matches"}))
    r = result_of(
        "Found 2 files\nsrc/a.py\nsrc/b.py",
        {"mode": "files_with_matches", "filenames": ["src/a.py", "src/b.py", 7], "numFiles": 2},
    )

    assert call.kind == "grep"
    assert call.summary == "def main in src"
    assert r.kind == "grep"
    assert r.filenames == ("src/a.py", "src/b.py")
    assert r.num_files == 2


def test_it_reads_a_glob_result():
    call = tool_call(use("Glob", {"pattern": "**/*.py"}))
    r = result_of("a.py", {"filenames": ["a.py"], "durationMs": 4, "numFiles": 1, "truncated": False})

    assert (call.kind, call.summary) == ("glob", "**/*.py")
    assert (r.kind, r.filenames, r.num_files) == ("glob", ("a.py",), 1)


def test_it_summarises_task_and_agent_calls():
    task = tool_call(
        use("Task", {"description": "Find callers", "prompt": "Look…", "subagent_type": "Explore"})
    )
    agent = tool_call(use("Agent", {"description": "Review diff", "prompt": "…"}))

    assert (task.kind, task.summary) == ("agent", "[Explore] Find callers")
    assert (agent.kind, agent.summary) == ("agent", "Review diff")


def test_it_reads_an_agent_result():
    content = [{"type": "text", "text": "Found 3 callers."}, {"type": "text", "text": "<usage>…</usage>"}]
    r = result_of(
        content,
        {
            "status": "completed",
            "agentId": "a1b2c3",
            "totalDurationMs": 5120,
            "totalTokens": 20345,
            "totalToolUseCount": 7,
            "usage": {"input_tokens": 3},
        },
    )

    assert r.kind == "agent"
    assert r.agent_id == "a1b2c3"
    assert (r.total_tokens, r.total_duration_ms, r.total_tool_use_count) == (20345, 5120, 7)
    assert r.text == "Found 3 callers.\n<usage>…</usage>"


def test_it_lists_todos():
    call = tool_call(
        use(
            "TodoWrite",
            {
                "todos": [
                    {"content": "Write tests", "status": "completed", "activeForm": "Writing tests"},
                    {"content": "Ship", "status": "in_progress"},
                    "junk",
                ]
            },
        )
    )

    assert call.kind == "todo"
    assert call.summary == "2 todos"
    assert call.todos == (("completed", "Write tests"), ("in_progress", "Ship"))


def test_it_summarises_a_webfetch():
    call = tool_call(use("WebFetch", {"url": "https://example.com/doc", "prompt": "summarise"}))

    assert (call.kind, call.summary) == ("webfetch", "https://example.com/doc")


def test_it_recognises_an_mcp_tool():
    call = tool_call(use("mcp__server__tool", {"query": "open issues"}))

    assert call.kind == "mcp"
    assert call.name == "mcp__server__tool"
    assert call.summary == "open issues"


def test_it_summarises_an_unknown_tool_generically():
    call = tool_call(use("NotebookEdit", {"notebook_path": "/n.ipynb", "new_source": "x"}))

    assert (call.kind, call.summary) == ("other", "/n.ipynb")


def test_it_reads_an_error_result():
    r = result_of("Error: Exit code 1\nboom", "Error: Exit code 1\nboom", is_error=True)

    assert r.is_error is True
    assert r.text == "Error: Exit code 1\nboom"
    assert r.stdout is None


def test_it_takes_text_from_a_string_tool_use_result():
    r = result_of([], "User rejected tool use")

    assert r.text == "User rejected tool use"
    assert r.kind == "other"


def test_it_treats_absent_is_error_as_success():
    assert result_of("fine").is_error is False


def test_it_marks_images_in_result_content():
    r = result_of([{"type": "image", "source": {"type": "base64", "data": "…"}}, "bare string"])

    assert r.text == "[image]\nbare string"


def test_it_picks_the_block_matching_the_entry_ids():
    blocks = [
        {"type": "tool_result", "tool_use_id": "toolu_a", "content": "first"},
        {"type": "tool_result", "tool_use_id": "toolu_b", "content": "second"},
    ]
    line = orjson.dumps({"type": "user", "message": {"content": blocks}})
    entry = FakeEntry(line=line, tool_result_id="toolu_b")

    assert tool_result(entry).text == "second"


def test_it_falls_back_to_other_for_a_list_input():
    call = tool_call(use("Edit", ["not", "a", "dict"]))

    assert call.kind == "other"
    assert call.name == "Edit"
    assert call.summary == ""
    assert call.diff == ()
    assert '"not"' in call.input_json


def test_it_survives_wrong_types_inside_the_input():
    call = tool_call(use("Edit", {"file_path": 3, "old_string": None, "new_string": ["x"]}))
    multi = tool_call(use("MultiEdit", {"edits": "nope"}))
    bash = tool_call(use("Bash", {"command": {"x": 1}}))

    assert (call.kind, call.summary, call.diff) == ("edit", "", ())
    assert multi.diff == ()
    assert bash.summary == ""


def test_it_survives_a_missing_content():
    line = orjson.dumps({"type": "user", "message": {"role": "user"}})
    entry = FakeEntry(line=line, tool_result_id="toolu_9", text="from the column")
    r = tool_result(entry)

    assert r.tool_use_id == "toolu_9"
    assert r.text == "from the column"


def test_it_survives_a_result_block_without_content():
    entry = FakeEntry(
        line=orjson.dumps(
            {
                "type": "user",
                "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_1"}]},
                "toolUseResult": {"stdout": 5, "stderr": None},
            }
        ),
        tool_result_id="toolu_1",
    )
    r = tool_result(entry)

    assert (r.text, r.kind, r.stdout, r.stderr) == ("", "bash", "", "")


def test_it_survives_odd_structured_results():
    r = result_of(
        "x",
        {
            "structuredPatch": [None, {"lines": [3, "-a", "+b", "\\ No newline at end of file"]}],
            "filePath": None,
        },
    )
    read = result_of("x", {"file": {"filePath": 1, "numLines": "3"}})
    agent = result_of("x", {"agentId": "a1", "totalTokens": True, "totalDurationMs": 12.0})

    assert r.diff == (("-", "a"), ("+", "b"), (" ", "\\ No newline at end of file"))
    assert (read.file_path, read.num_lines) == ("", None)
    assert (agent.total_tokens, agent.total_duration_ms) == (None, 12)


def test_it_survives_an_unparsable_line():
    call = tool_call(FakeEntry(line=b'{"type":"assistant", torn', tool_use_id="toolu_1", tool_name="Bash"))
    r = tool_result(FakeEntry(line=b"[1, 2]", type="user", tool_result_id="toolu_1", text=""))

    assert (call.kind, call.name, call.tool_use_id) == ("other", "Bash", "toolu_1")
    assert call.input_json == '{"type":"assistant", torn'
    assert r.text == "[1, 2]"


def test_it_reads_a_line_orjson_refuses():
    line = (
        b'{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash",'
        b'"input":{"command":"echo \\ud800","n":NaN}}]}}'
    )
    call = tool_call(FakeEntry(line=line))

    assert call.kind == "bash"
    assert call.summary.startswith("echo ")


# --- code boxes -----------------------------------------------------------------------------------


def test_it_gives_calls_and_results_their_lexer():
    assert tool_call(use("Bash", {"command": "ls -la"})).language == "bash"
    assert tool_call(use("Write", {"file_path": "/r/a.go", "content": "package a"})).language == "go"
    assert (
        tool_call(use("Edit", {"file_path": "/r/a.py", "old_string": "a", "new_string": "b"})).language
        == "python"
    )
    read = result_of("1→x = 1", {"type": "text", "file": {"filePath": "/r/m.py", "content": "x = 1\n"}})
    assert read.language == "python"
    assert read.content == "x = 1\n"


def test_it_names_each_code_box_a_card_draws_by_its_slot():
    bash = use("Bash", {"command": "ls"})
    write = use("Write", {"file_path": "/r/a.py", "content": "x = 1"})
    edit = use("Edit", {"file_path": "/r/a.py", "old_string": "x", "new_string": "y"})
    read = result("1→x", {"type": "text", "file": {"filePath": "/r/m.py", "content": "x\n", "startLine": 7}})

    assert tool_cards.code_box(bash, "command") == tool_cards.CodeBox("ls", "bash")
    assert tool_cards.code_box(bash, "input") == tool_cards.CodeBox('{\n  "command": "ls"\n}', "json")
    assert tool_cards.code_box(write, "content") == tool_cards.CodeBox("x = 1", "python")
    assert tool_cards.code_box(edit, "diff") == tool_cards.CodeBox(
        language="python", diff=(("-", "x"), ("+", "y"))
    )
    assert tool_cards.code_box(read, "content") == tool_cards.CodeBox("x\n", "python", 7)
    assert tool_cards.code_box(read, "command") is None
    assert tool_cards.code_box(FakeEntry(line=b"{}", type="assistant"), "input") is None  # not a call


def test_it_numbers_and_highlights_a_structured_patch():
    r = result_of(
        "ok",
        {
            "filePath": "/repo/a.py",
            "oldString": "b = 2",
            "newString": "b = 3",
            "structuredPatch": [
                {
                    "oldStart": 10,
                    "oldLines": 3,
                    "newStart": 10,
                    "newLines": 3,
                    "lines": [" a = 1", "-b = 2", "+b = 3", " c = 4"],
                }
            ],
        },
    )

    block = diff_block(r.diff, r.language)
    rows = block.head

    assert [row.kind for row in rows] == ["hunk", "ctx", "del", "add", "ctx"]
    assert (rows[1].old, rows[1].new) == (10, 10)
    assert (rows[2].old, rows[2].new) == (11, None)
    assert (rows[3].old, rows[3].new) == (None, 11)
    assert (rows[4].old, rows[4].new) == (12, 12)
    assert '<span class="mi">3</span>' in rows[3].html


def test_it_clamps_a_long_diff():
    call = tool_call(
        use(
            "Edit",
            {"file_path": "/r/a.txt", "old_string": "", "new_string": "\n".join("abcdefghijklmnopqrst")},
        )
    )

    block = diff_block(call.diff, call.language)

    assert block.total_lines == 20
    assert len(block.head) == 12 and len(block.rest) == 8


# --- AskUserQuestion ------------------------------------------------------------------------------

QUESTIONS = {
    "questions": [
        {
            "question": "Which database?",
            "header": "Storage",
            "multiSelect": False,
            "options": [
                {"label": "SQLite", "description": "one file"},
                {"label": "PostgreSQL", "description": "a server"},
            ],
        },
        {
            "question": "Which extras?",
            "header": "Extras",
            "multiSelect": True,
            "options": [{"label": "FTS"}, {"label": "JSON1"}, {"label": "R*Tree"}],
        },
    ]
}


def test_it_reads_the_questions_and_options():
    call = tool_call(use("AskUserQuestion", QUESTIONS))

    assert call.kind == "ask"
    assert call.summary == "2 questions"
    assert [q.question for q in call.questions] == ["Which database?", "Which extras?"]
    assert call.questions[0].header == "Storage"
    assert [(o.label, o.description) for o in call.questions[0].options] == [
        ("SQLite", "one file"),
        ("PostgreSQL", "a server"),
    ]
    assert call.questions[1].multi_select is True


def test_it_marks_the_chosen_answers_from_the_structured_result():
    call = tool_call(use("AskUserQuestion", QUESTIONS))
    r = result_of(
        'User has answered your questions: "Which database?"="PostgreSQL", "Which extras?"="FTS, R*Tree". '
        "You can now continue with the user's answers in mind.",
        {**QUESTIONS, "answers": {"Which database?": "PostgreSQL", "Which extras?": "FTS, R*Tree"}},
    )

    assert r.kind == "ask"
    shown = answered(call, r)

    assert [o.chosen for o in shown[0].options] == [False, True]
    assert shown[0].answer == "PostgreSQL"
    assert [o.chosen for o in shown[1].options] == [True, False, True]


def test_it_reads_the_answers_from_the_result_text_alone():
    r = result_of(
        'User has answered your questions: "Which database?"="Something \\"else\\"". You can now continue.'
    )

    assert r.kind == "ask"
    assert r.answers == (("Which database?", 'Something \\"else\\"'),)
    shown = answered(tool_call(use("AskUserQuestion", QUESTIONS)), r)
    assert not any(o.chosen for o in shown[0].options)
    assert shown[0].answer == 'Something \\"else\\"'


def test_it_shows_unanswered_questions_without_a_result():
    call = tool_call(use("AskUserQuestion", QUESTIONS))

    assert answered(call, None) == call.questions
    assert answered(call, "") == call.questions
