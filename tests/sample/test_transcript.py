"""The session builder the sample and the bench corpus share: lines chained in order, the context window
moved by every reply, attachments and compactions written as Claude Code writes them."""

from __future__ import annotations

import json
import random

from sample import formats
from sample.transcript import HEAD, Thread, TranscriptBuilder

SID = "0c6f1f7e-5d1b-4c33-9f0a-5e55e55e5501"


class Builder(TranscriptBuilder):
    """A clock that ticks one millisecond per call to `adv`, replies of 100 tokens, numbered message ids."""

    def __init__(self, *, writes_lines: bool = True) -> None:
        self.rng = random.Random(7)
        self.writes_lines = writes_lines
        self.ms = 0
        self.replies = 0
        env = formats.envelope(
            cwd="/home/dev/src/api-server", session_id=SID, version="2.1.180", git_branch="main", slug="s"
        )
        self.trunk = Thread(env, "claude-opus-4-6", None, pending=15_000)

    def adv(self, lo: int, hi: int) -> None:
        self.ms += 1

    def stamp(self) -> str:
        return f"2026-11-05T13:00:00.{self.ms:03d}Z"

    def output_tokens(self, blocks: list[dict]) -> int:
        return 100

    def message_ids(self) -> tuple[str, str]:
        self.replies += 1
        return f"msg_{self.replies}", f"req_{self.replies}"


def lines(th: Thread) -> list[dict]:
    return [json.loads(line) for line in th.lines]


def test_each_line_is_chained_to_the_one_before_unless_it_names_its_parent():
    b = Builder()
    th = b.trunk
    first = b.put(th, formats.transcript_prompt, "add rate limiting", prompt_id="p1")
    second = b.put(th, formats.transcript_user, "a side note", parent=None)
    third = b.put(th, formats.transcript_user, "an unchained line", chain=False)
    fourth = b.put(th, formats.transcript_user, "next")
    rows = lines(th)
    assert [r["uuid"] for r in rows] == [first, second, third, fourth]
    assert [r["parentUuid"] for r in rows] == [None, None, second, second]
    assert th.head == fourth


def test_a_reply_reads_what_was_pending_from_the_cache_and_moves_the_window():
    b = Builder()
    th = b.trunk
    b.put(th, formats.transcript_prompt, "add rate limiting", prompt_id="p1")
    last = b.respond(th, [formats.text_block("Reading."), formats.text_block("Done.")], "end_turn")
    replies = lines(th)[1:]
    assert [r["message"]["id"] for r in replies] == ["msg_1", "msg_1"]
    assert [r["message"]["stop_reason"] for r in replies] == [None, "end_turn"]
    usage = replies[0]["message"]["usage"]
    assert usage["cache_creation_input_tokens"] == 15_000 and usage["cache_read_input_tokens"] == 0
    assert th.position == usage["input_tokens"] + 15_000
    assert (th.cached, th.pending) == (th.position + 100, 0)
    assert last == replies[-1]["uuid"]


def test_a_builder_that_keeps_no_transcript_still_moves_the_window():
    b = Builder(writes_lines=False)
    th = b.trunk
    assert b.respond(th, [formats.text_block("Done.")], "end_turn") == ""
    assert th.lines == [] and th.cached == th.position + 100


def test_an_attachment_carries_the_bodies_and_draws_a_hook_run_id_when_it_has_no_tool_call():
    b = Builder()
    th = b.trunk
    prompt = b.put(th, formats.transcript_prompt, "add rate limiting", prompt_id="p1")
    b.attach(th, "UserPromptSubmit", "UserPromptSubmit", None, ["# Testing Way"], parent=prompt)
    b.attach(th, "PreToolUse", "PreToolUse:Bash", "toolu_01", ["# Commits Way"], parent=HEAD)
    keyed, by_tool = lines(th)[1:]
    assert keyed["parentUuid"] == prompt
    assert keyed["attachment"]["toolUseID"] not in ("", None)
    assert by_tool["attachment"]["toolUseID"] == "toolu_01"
    assert by_tool["parentUuid"] == keyed["uuid"]


def test_a_compaction_writes_the_boundary_and_the_summary_and_empties_the_window():
    b = Builder()
    th = b.trunk
    b.put(th, formats.transcript_prompt, "add rate limiting", prompt_id="p1")
    b.respond(th, [formats.text_block("Done.")], "end_turn")
    before = th.head
    b.compaction(
        th, "auto", pre=150_000, post=12_000, duration_ms=30_000, summary=lambda: "1. Rate limiting."
    )
    boundary, summary = lines(th)[-2:]
    assert boundary["subtype"] == "compact_boundary"
    assert boundary["parentUuid"] is None and boundary["logicalParentUuid"] == before
    assert boundary["compactMetadata"]["preTokens"] == 150_000
    assert summary["parentUuid"] == boundary["uuid"] and summary["isCompactSummary"] is True
    assert (th.cached, th.pending, th.position) == (0, 12_000, 12_000)
