"""Per conversation turn: tool errors, interrupts, corrections, retries, edit churn, compactions,
tokens, cost and duration (decisions-and-effectiveness.md §8.4), each naming the lines that caused it."""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from introspect.importer.transcripts import fields_of
from introspect.rules import outcome_signals as signals
from introspect.rules.outcome_signals import Line

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"
T0 = datetime(2026, 11, 5, 13, 0, tzinfo=UTC)


def at(seconds):
    return T0 + timedelta(seconds=seconds)


def prompt(uuid, text, seconds=0):
    return Line(uuid=uuid, type="user", is_prompt=True, text=text, ts=at(seconds))


def call(uuid, tool, tool_input, seconds=1, usage_row=None):
    return Line(
        uuid=uuid,
        type="assistant",
        tool_name=tool,
        tool_use_id=f"toolu_{uuid}",
        tool_input=tool_input,
        ts=at(seconds),
        usage=usage_row,
    )


def result(uuid, of, text="ok", is_error=False, seconds=2):
    return Line(
        uuid=uuid, type="user", tool_result_id=f"toolu_{of}", text=text, is_error=is_error, ts=at(seconds)
    )


def test_every_definition_is_one_sentence_for_each_signal():
    names = {
        "tool_errors",
        "interrupts",
        "correction",
        "retries",
        "churn",
        "compactions",
        "tokens",
        "cost",
        "duration",
    }
    assert set(signals.DEFINITIONS) == names
    assert all(text.endswith(".") and text[0].isupper() for text in signals.DEFINITIONS.values())


def test_turns_are_cut_at_each_prompt_and_numbered_as_the_page_numbers_them():
    lines = [Line(uuid="s", type="system"), prompt("p1", "a"), call("c", "Bash", {}), prompt("p2", "b")]
    found = signals.outcomes(lines)
    assert [(o.number, o.prompt_uuid) for o in found] == [(0, ""), (1, "p1"), (2, "p2")]
    # Lines read from turn 7's prompt on (a live session's tail) are numbered from 7.
    assert [o.number for o in signals.outcomes(lines[1:], first_number=7)] == [7, 8]


def test_an_error_result_and_a_non_zero_bash_exit_are_tool_errors_a_refusal_is_an_interrupt():
    lines = [
        prompt("p", "run it"),
        call("a", "Bash", {"command": "pytest"}),
        result("ra", "a", "Error: Exit code 1\nF.\n1 failed", is_error=True),
        call("b", "Bash", {"command": "make"}),
        result("rb", "b", "Exit code 2\nmake: *** [all] Error 2"),  # no is_error: the exit code says it
        call("c", "Bash", {"command": "true"}),
        result("rc", "c", "Exit code 0"),
        call("d", "Edit", {"file_path": "x"}),
        result("rd", "d", "The user doesn't want to proceed with this tool use.", is_error=True),
    ]
    [outcome] = signals.outcomes(lines)
    assert outcome.tool_errors == ["ra", "rb"]
    assert outcome.interrupts == ["rd"]


def test_an_interruption_line_is_the_interrupt_its_refused_result_is_not_counted_again():
    lines = [
        prompt("p", "go"),
        call("d", "Edit", {"file_path": "x"}),
        result("rd", "d", "The user doesn't want to proceed with this tool use.", is_error=True),
        Line(uuid="i", type="user", text="[Request interrupted by user for tool use]"),
    ]
    [outcome] = signals.outcomes(lines)
    assert outcome.interrupts == ["i"]


def test_a_retry_repeats_a_failed_call_of_the_same_tool_with_a_near_identical_input():
    lines = [
        prompt("p", "test"),
        call("a", "Bash", {"command": "uv run pytest tests/test_bucket.py -x"}),
        result("ra", "a", "Exit code 1", is_error=True),
        call("b", "Bash", {"command": "uv run pytest tests/test_bucket.py -x -q"}),  # again, barely changed
        call("c", "Bash", {"command": "git status"}),  # another command: no retry
        call("d", "Read", {"command": "uv run pytest tests/test_bucket.py -x"}),  # another tool
    ]
    [outcome] = signals.outcomes(lines)
    assert outcome.retries == ["b"]


def test_a_repeated_call_after_a_success_is_no_retry():
    lines = [
        prompt("p", "x"),
        call("a", "Bash", {"command": "ls"}),
        result("ra", "a"),
        call("b", "Bash", {"command": "ls"}),
    ]
    assert signals.outcomes(lines)[0].retries == []


def test_churn_is_the_third_edit_of_a_file_and_an_edit_undoing_an_earlier_one():
    lines = [
        prompt("p", "x"),
        call("e1", "Edit", {"file_path": "/a.py", "old_string": "x = 1", "new_string": "x = 2"}),
        call("e2", "Edit", {"file_path": "/a.py", "old_string": "x = 2", "new_string": "x = 1"}),  # undoes e1
        call("w1", "Write", {"file_path": "/b.py", "content": "1"}),
        call("w2", "Write", {"file_path": "/b.py", "content": "2"}),
        call("w3", "Write", {"file_path": "/b.py", "content": "3"}),  # third edit of b.py
        call("r", "Read", {"file_path": "/b.py"}),  # a read is no edit
    ]
    assert signals.outcomes(lines)[0].churn == ["e2", "w3"]


def test_a_compaction_inside_the_turn_and_its_tokens_cost_and_duration():
    usage_row = ("msg_1", "req_1", "claude-opus-4-6", 10, 100, 0, 1000, None, None, None)
    lines = [
        prompt("p", "go", seconds=0),
        call("a", "Bash", {"command": "ls"}, seconds=5, usage_row=usage_row),
        call(
            "b", "Bash", {"command": "pwd"}, seconds=6, usage_row=usage_row
        ),  # the same message: counted once
        Line(uuid="cb", type="system", subtype="compact_boundary", ts=at(90)),
    ]
    [outcome] = signals.outcomes(lines)
    assert outcome.compactions == ["cb"]
    assert outcome.tokens == 1110
    assert outcome.usage.cost_usd is not None and outcome.usage.cost_usd > 0
    assert outcome.duration_secs == 90


def test_a_turn_is_marked_corrected_by_the_next_prompt_and_the_last_turn_is_not_yet():
    lines = [
        prompt("p1", "run the bucket tests"),
        prompt("p2", "still failing, same assertion"),
        prompt("p3", "ok"),
    ]
    first, second, third = signals.outcomes(lines)
    assert (first.correction_cue, first.correction_by) == ("fault", "p2")
    assert second.correction_cue is None and third.correction_cue is None


def fixture_lines(name):
    lines = []
    for raw in (FIXTURES / name).read_text(encoding="utf-8").splitlines():
        obj = json.loads(raw)
        out = fields_of(obj)
        lines.append(
            Line(
                uuid=out.uuid or "",
                type=out.type,
                subtype=out.subtype,
                is_prompt=out.is_prompt,
                text=out.text,
                tool_name=out.tool_name,
                tool_use_id=out.tool_use_id,
                tool_result_id=out.tool_result_id,
                is_error=out.is_error,
                tool_input=signals.tool_input_of(obj),
                ts=out.ts,
            )
        )
    return lines


def test_a_real_transcript_the_missing_file_and_the_missing_python_are_the_errors_of_their_turns():
    found = signals.outcomes(fixture_lines("oneryalcin_fasthooks_sample_main_transcript.jsonl"))
    errors = {o.number: len(o.tool_errors) for o in found if o.tool_errors}
    assert errors == {4: 1, 5: 1}  # `cat nonexistent.txt` (exit 1); `python` not found (exit 127)
    assert all(o.duration_secs is not None and o.duration_secs >= 0 for o in found if o.prompt_uuid)
